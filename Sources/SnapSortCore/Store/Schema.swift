import SnapSortSystem

/// One schema step. Versions are applied in order inside one transaction each.
public struct Migration: Sendable {
    public let version: Int
    public let sql: String
}

/// The database schema, migrated by `PRAGMA user_version`.
///
/// Each concern owns its migrations in a `Schema+Concern.swift` file; `all` lists them in order.
public enum Schema {
    /// Every migration, in version order.
    public static var all: [Migration] {
        (engine + groups + review + agent + reminders + models).sorted { $0.version < $1.version }
    }

    /// The newest schema version this build knows.
    public static var currentVersion: Int { all.last?.version ?? 0 }

    /// The engine's tables: roots and files (one row per file identity).
    static let engine: [Migration] = [
        Migration(
            version: 1,
            sql: """
                CREATE TABLE roots(
                    id INTEGER PRIMARY KEY,
                    path TEXT NOT NULL UNIQUE,
                    device INTEGER,
                    state TEXT NOT NULL DEFAULT 'online',      -- online | offline
                    last_scan_at TEXT
                );
                CREATE TABLE files(
                    id INTEGER PRIMARY KEY,                    -- the file's identity: decisions refer to it
                    path TEXT NOT NULL,                        -- absolute, as reached from its root
                    device INTEGER NOT NULL,
                    inode INTEGER NOT NULL,
                    size INTEGER NOT NULL,
                    mtime_ns INTEGER NOT NULL,
                    quick_hash BLOB,                           -- size + first and last 64 KiB
                    content_hash BLOB,                         -- the whole file
                    kind TEXT NOT NULL,                        -- photo | video | other
                    format TEXT,
                    width INTEGER, height INTEGER,             -- after EXIF rotation
                    status TEXT NOT NULL,                      -- pending | ok | damaged | unreadable | unsupported | gone
                    reason_code TEXT, reason TEXT,
                    taken_at TEXT,                             -- RFC 3339 (with offset when known)
                    taken_ts REAL,                             -- seconds since 1970 for ordering and windows
                    taken_source TEXT,                         -- exif | container | filename | mtime
                    make TEXT, model TEXT, lens TEXT, software TEXT,
                    orientation INTEGER, has_gps INTEGER, rating INTEGER,
                    exif_offset TEXT,
                    duration_s REAL,
                    metrics TEXT,                              -- JSON, documented in Metrics.swift
                    dhash INTEGER, phash INTEGER, signature BLOB,
                    analyzer_version INTEGER NOT NULL DEFAULT 0,
                    first_seen_at TEXT NOT NULL,
                    analyzed_at TEXT,
                    gone_at TEXT
                );
                CREATE UNIQUE INDEX files_live_path ON files(path) WHERE status != 'gone';
                CREATE INDEX files_path ON files(path);
                CREATE INDEX files_quick ON files(size, quick_hash);
                CREATE INDEX files_content ON files(content_hash);
                CREATE INDEX files_taken ON files(taken_ts);
                """),
        // A RAW and a JPEG of the same shot (same folder and stem, same capture time) are one
        // item: the JPEG is the item, the RAW its sidecar, so review and trash move them together.
        Migration(
            version: 2,
            sql: """
                CREATE TABLE sidecars(
                    file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,           -- the item
                    sidecar_id INTEGER NOT NULL UNIQUE REFERENCES files(id) ON DELETE CASCADE, -- goes with it
                    kind TEXT NOT NULL,                        -- raw
                    PRIMARY KEY(file_id, sidecar_id)
                );
                """),
        // What a container says beyond the columns (videos: brand, encoder, handler names, codec).
        Migration(
            version: 3,
            sql: """
                ALTER TABLE files ADD COLUMN details TEXT;     -- JSON, see VideoInfo.json
                """),
        // The path index carries what a rescan compares (`Library.identityColumns`), so listing
        // a root's 100 000 rows reads the index alone instead of one table page per row (the
        // rows hold metrics and signatures, ~2 KB each): 0.25 → 0.08 s on a warm cache.
        Migration(
            version: 4,
            sql: """
                DROP INDEX files_path;
                CREATE INDEX files_path_identity ON files(path, status, id, device, inode, size, mtime_ns, analyzer_version);
                """),
        // What the status file counts (recomputed by the agent after every decision): the files
        // awaiting review by kind, and each group's files by size. Both read index pages instead
        // of a table row per file: `snapsort status` at 100 000 photos 0.35 → 0.2 s, warm cache.
        Migration(
            version: 5,
            sql: """
                CREATE INDEX files_kind_live ON files(kind, id) WHERE status != 'gone';
                CREATE INDEX files_group_sizes ON files(id, status, size);
                """),
        // The XMP sidecar's modification time when the file has one (its rating is the user's):
        // a rescan analyzes the file again when the sidecar changed, came or went. The few rows
        // with one are found by the partial index, so the rescan's identity index is unchanged.
        Migration(
            version: 55,
            sql: """
                ALTER TABLE files ADD COLUMN sidecar_mtime_ns INTEGER;
                CREATE INDEX files_sidecar ON files(path) WHERE sidecar_mtime_ns IS NOT NULL;
                """),
        // The real folder a trashed file was moved from: a restore does not go through a folder
        // replaced by a symbolic link since (the photo would land outside its library).
        Migration(
            version: 56,
            sql: """
                ALTER TABLE trash_ledger ADD COLUMN real_dir TEXT;
                """),
        // The UTC offset of the user's time zone when a verdict was given or a commit cleared
        // bytes: its day stays the day it was where it was made (a trip across time zones no
        // longer moved past sessions to other days and broke or joined streaks).
        Migration(
            version: 57,
            sql: """
                ALTER TABLE review_events ADD COLUMN utc_offset INTEGER;
                """),
        // Pictures over the whole-decode budget (a panorama, a long screenshot, a 48 MP HEIF)
        // were "unreadable, too large": analyzed again (only they), a PNG reduced while it is
        // read, a WebP through libwebp's scaler, the others out of every group, not broken.
        Migration(
            version: 58,
            sql: """
                UPDATE files SET analyzer_version = 0 WHERE reason_code = 'too_large' AND status != 'gone';
                """),
        // A keeper chosen in Similar Shots is an undo step: `keeper_before` is the set's keeper
        // choices as they were (JSON), and `before` the new keeper's decision (it was un-staged).
        Migration(
            version: 59,
            sql: """
                ALTER TABLE undo_steps ADD COLUMN keeper_before TEXT;
                """),
        // A JPEG or HEIC that cannot be read whole carried its intact RAW or Live Photo clip as a
        // sidecar (trashing it from Unreadable took the good file along): such pairs go, and
        // their RAWs and clips are analyzed again (only they) to stand as items of their own.
        Migration(
            version: 60,
            sql: """
                UPDATE files SET analyzer_version = 0 WHERE id IN (
                    SELECT s.sidecar_id FROM sidecars s JOIN files f ON f.id = s.file_id WHERE f.status != 'ok');
                DELETE FROM sidecars WHERE file_id IN (SELECT id FROM files WHERE status != 'ok');
                """),
        // A photo its permissions kept from being read was Unreadable clutter (its bytes
        // "reclaimable", trashable): it leaves the group.
        Migration(
            version: 61,
            sql: """
                DELETE FROM group_members WHERE group_id = 'unreadable'
                    AND file_id IN (SELECT id FROM files WHERE reason_code IN ('permission', 'io_error'));
                """),
        // Pictures under 96 px on their short side are no longer looked at by the models (an
        // icon was a "pet"): their results go, and the next pass marks them skipped.
        Migration(
            version: 62,
            sql: """
                DELETE FROM vision WHERE file_id IN (
                    SELECT id FROM files WHERE kind = 'photo' AND min(COALESCE(width, 0), COALESCE(height, 0)) BETWEEN 1 AND 95);
                """),
        // RAWs without a readable preview are analyzed again (only they): one cut short is now
        // damaged, in Unreadable, and no longer its JPEG's sidecar.
        Migration(
            version: 63,
            sql: """
                UPDATE files SET analyzer_version = 0 WHERE reason_code = 'no_preview' AND status != 'gone';
                """),
        // Inode numbers are handed out again at once (ext4, xfs, tmpfs): a copy that landed on a
        // deleted photo's inode took over its row and its trash decision. A row records its
        // file's birth time (statx; -1 where the file system keeps none, NULL until first seen),
        // a tombstone whether its file was seen deleted (never revived then), and a decision
        // which file it was given to, so a commit moves only that file. A photo's ledger entry
        // says until its sidecars are sent after it (a commit killed between them left the
        // `.xmp` behind, and no later command knew).
        Migration(
            version: 64,
            sql: """
                ALTER TABLE files ADD COLUMN btime_ns INTEGER;
                ALTER TABLE files ADD COLUMN deleted INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE decisions ADD COLUMN reviewed_device INTEGER;
                ALTER TABLE decisions ADD COLUMN reviewed_inode INTEGER;
                ALTER TABLE decisions ADD COLUMN reviewed_btime_ns INTEGER;
                ALTER TABLE trash_ledger ADD COLUMN sidecars_pending INTEGER NOT NULL DEFAULT 0;
                DROP INDEX files_path_identity;
                CREATE INDEX files_path_identity ON files(path, status, id, device, inode, size, mtime_ns, analyzer_version, btime_ns, deleted);
                """),
        // "Not similar" is an undo step: the pairs it added (JSON `[[a, b], …]`).
        Migration(
            version: 65,
            sql: """
                ALTER TABLE undo_steps ADD COLUMN not_similar TEXT;
                """),
        // A restore (from staging or from the system Trash) and "similar unmark" are undo steps
        // too: `action` says which (JSON), `before` is the decision a restore cleared.
        Migration(
            version: 66,
            sql: """
                ALTER TABLE undo_steps ADD COLUMN action TEXT;
                """),
        // The hash of the data a picture's pixels are decoded from, without its metadata
        // (`PixelHash`): copies whose metadata a tool rewrote are joined by it as the same bytes
        // are by `content_hash`, not compared two by two (a backup of 1 205 photos × 83 such
        // copies held 4 million copy links). Only the files that may have such a copy — a JPEG or
        // PNG sharing its pHash and size with a file of other bytes — are analyzed again to get
        // it; the others get it when they next change.
        Migration(
            version: 68,
            sql: """
                ALTER TABLE files ADD COLUMN pixel_hash BLOB;
                UPDATE files SET analyzer_version = 0
                WHERE status = 'ok' AND format IN ('jpeg', 'png') AND phash IS NOT NULL
                  AND (phash, width, height) IN (
                    SELECT phash, width, height FROM files
                    WHERE status = 'ok' AND format IN ('jpeg', 'png') AND phash IS NOT NULL
                    GROUP BY phash, width, height HAVING count(DISTINCT content_hash) > 1);
                """),
        // A video's frames over its length (`VideoSignature`, ~8.6 KB): its copies are found
        // whatever their encoding (issue 44). Analyzer 7 reads videos through FFmpeg; the rows
        // of other kinds analyzed by version 6 stand as they are, so only videos are read again.
        Migration(
            version: 70,
            sql: """
                ALTER TABLE files ADD COLUMN video_signature BLOB;
                UPDATE files SET analyzer_version = 7 WHERE analyzer_version = 6 AND kind != 'video';
                """),
        // A video's poster, made at scan time on the confined worker (a JPEG of ~10–20 KB): the
        // page's server decodes no video. Analyzer 8 reads videos again (their samples and this
        // poster); the rows of other kinds stand as they are.
        Migration(
            version: 78,
            sql: """
                ALTER TABLE files ADD COLUMN video_poster BLOB;
                UPDATE files SET analyzer_version = 8 WHERE analyzer_version = 7 AND kind != 'video';
                """),
        // Analyzer 9 samples videos again (MPEG-PS seeks sought again where they land past the
        // time, frames without a time refused): a short DVD copy gives the samples its original
        // gives. The rows of other kinds stand as they are; only videos are read again.
        Migration(
            version: 84,
            sql: """
                UPDATE files SET analyzer_version = 9 WHERE analyzer_version = 8 AND kind != 'video';
                """),
        // Ogg Theora (`.ogv`) is read now. A folder whose stamp is unchanged is not listed again
        // (the agent's walk checks only the files it knows there), so clips already on disk
        // would wait for their folder to change: every folder is listed once more.
        Migration(
            version: 85,
            sql: """
                DELETE FROM folders;
                """),
        // Analyzer 10 measures the brightest channel's bright and clipped shares
        // (`Metrics.channelClippedFraction`): a blown-out garden clips its green while its luma
        // stays under white. They count only for a frame whose median is bright (the bright
        // tone scale, `GroupRules.brightToneScalePenalty`), so only such photos are read again;
        // the other rows stand as they are (their channels' shares read as 0).
        Migration(
            version: 94,
            sql: """
                UPDATE files SET analyzer_version = 10
                WHERE analyzer_version = 9
                  AND NOT (kind = 'photo' AND status = 'ok' AND json_valid(metrics)
                           AND json_extract(metrics, '$.p50') >= 170);
                """),
    ]
}
