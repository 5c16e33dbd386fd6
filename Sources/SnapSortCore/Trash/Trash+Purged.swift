import Foundation
import SnapSortSystem

extension Trash {
    /// A trashed file no longer in its Trash (the Trash emptied, the file deleted there): the
    /// ledger says `purged`, and its bytes count as cleared — they left the disk (issue 43,
    /// item 4: "cleared" means that and nothing else; a commit's bytes are "moved to the Trash").
    /// Counted once, when noticed (`noticeRestores`, a restore that finds it gone); a milestone
    /// its bytes reach is recorded then.
    static func recordPurged(_ t: TrashedFile, library: Library, clock: Clock) throws {
        let now = clock.now()
        try library.db.transaction {
            try library.db.run(
                "UPDATE trash_ledger SET state = \(LedgerState.purged.sql), reason='no longer in the Trash' WHERE id=? AND state = \(LedgerState.trashed.sql)",
                t.ledgerID)
            guard library.db.changes > 0 else { return }
            try library.db.run(
                "INSERT INTO review_events(ts, kind, file_id, bytes) VALUES(?, \(ReviewEventKind.purged.sql), ?, ?)",
                now.timeIntervalSince1970, t.fileID, t.bytes)
            try Stats.recordMilestones(library: library, clock: clock)
        }
    }
}
