import Foundation
import SnapSortSystem
import SnapSortTestSupport
import Synchronization
import Testing

@testable import SnapSortCore

/// Real clips made at test time with the ffmpeg CLI from opencv-doc's sample videos (issue 44).
enum VideoClips {
    static let data = "/usr/share/doc/opencv-doc/examples/data"

    /// Runs ffmpeg quietly; throws on failure.
    static func ffmpeg(_ args: [String]) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        p.arguments = ["-nostdin", "-v", "error", "-y"] + args
        p.standardInput = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else { throw SystemError(.decode, "ffmpeg \(args.joined(separator: " ")) failed", operation: "ffmpeg") }
    }

    /// Small clips, 320×240, no sound, fast to encode.
    static func small(_ src: String, from: Double, seconds: Double, to out: String) throws {
        try ffmpeg([
            "-ss", "\(from)", "-i", "\(data)/\(src)", "-t", "\(seconds)", "-vf", "scale=320:240,setsar=1,fps=25,format=yuv420p",
            "-c:v", "libx264", "-preset", "ultrafast", "-an", out,
        ])
    }

    /// `intro` (a clip) followed by `body` (another), re-encoded as one.
    static func concat(_ intro: String, _ body: String, to out: String) throws {
        try ffmpeg([
            "-i", intro, "-i", body, "-filter_complex", "[0:v][1:v]concat=n=2:v=1:a=0", "-c:v", "libx264", "-preset", "ultrafast", out,
        ])
    }

    /// How many frames ffprobe counts in the file's video stream (decoding it).
    static func frameCount(_ path: String) throws -> Int {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/ffprobe")
        p.arguments = ["-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries", "stream=nb_read_frames", "-of", "csv=p=0", path]
        let out = Pipe()
        p.standardOutput = out
        p.standardInput = FileHandle.nullDevice
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return Int(String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
    }

    /// vtest.avi's street sped up `speed` times (a phone's time-lapse: people cross the frame
    /// between two samples), `seconds` long at `fps` frames a second, 320×240.
    static func timeLapse(speed: Int, fps: Int, seconds: Double, to out: String) throws {
        try ffmpeg([
            "-i", "\(data)/vtest.avi", "-vf", "setpts=PTS/\(speed),fps=\(fps),scale=320:240,setsar=1,format=yuv420p", "-t", "\(seconds)",
            "-c:v", "libx264", "-preset", "ultrafast", "-an", out,
        ])
    }

    /// `seconds` of black, or of one still picture, at 320×240.
    static func still(_ picture: String?, seconds: Double, to out: String) throws {
        let input = picture.map { ["-loop", "1", "-i", $0] } ?? ["-f", "lavfi", "-i", "color=c=black:s=320x240:r=25"]
        try ffmpeg(
            input + ["-t", "\(seconds)", "-vf", "scale=320:240,setsar=1,fps=25,format=yuv420p", "-c:v", "libx264", "-preset", "ultrafast", out])
    }
}

@Suite(.serialized) struct VideoCopiesTests {
    /// The sets a regroup stored: each file's set key, keeper and original.
    struct Stored {
        var setOf: [String: Int64] = [:]
        var keepers: Set<String> = []
        var duplicate: Set<String> = []
        func together(_ a: String, _ b: String) -> Bool { setOf[a] != nil && setOf[a] == setOf[b] }
    }

    static func regrouped(_ lib: TestLibrary) throws -> Stored {
        try Grouper(library: lib.library).regroupAll()
        var out = Stored()
        for r in try lib.library.db.rows(
            "SELECT f.path, s.set_key, s.keeper FROM similar_sets s JOIN files f ON f.id = s.file_id WHERE f.kind = 'video'")
        {
            let name = String(r.string(0)!.split(separator: "/").last!)
            out.setOf[name] = r.int(1)
            if r.int(2) == 1 { out.keepers.insert(name) }
        }
        for r in try lib.library.db.rows(
            "SELECT f.path FROM group_members m JOIN files f ON f.id = m.file_id WHERE m.group_id = 'duplicate' AND f.kind = 'video'")
        {
            out.duplicate.insert(String(r.string(0)!.split(separator: "/").last!))
        }
        return out
    }

    @Test func aHalfSizeReencodeOfVtestIsADuplicateAndTheOriginalIsKept() throws {
        let lib = try TestLibrary()
        let original = lib.root + "/VID_20240615_101500.avi"
        try FileSystem.writeAtomically(original, try FileSystem.readFile("\(VideoClips.data)/vtest.avi", limit: 64 << 20))
        // The issue's messenger copy: half the size, H.264 at CRF 30.
        try VideoClips.ffmpeg([
            "-i", original, "-vf", "scale=iw/2:-2", "-c:v", "libx264", "-preset", "ultrafast", "-crf", "30", "-an",
            lib.root + "/video_2024-06-15_copy.mp4",
        ])
        try lib.scan()
        let stored = try Self.regrouped(lib)
        #expect(stored.together("VID_20240615_101500.avi", "video_2024-06-15_copy.mp4"))
        #expect(stored.keepers == ["VID_20240615_101500.avi"])
        #expect(stored.duplicate == ["VID_20240615_101500.avi", "video_2024-06-15_copy.mp4"])
    }

    /// An Ogg Theora clip (screencasts, Wikimedia Commons) is a video like the others: analyzed,
    /// with its poster, and its H.264 copy is a duplicate of it; sound alone named `.ogv` is no
    /// video and says so, and is no Unreadable clutter either (held3's last misses: `.ogv` was
    /// not read at all).
    @Test func anOggTheoraClipIsAVideoAndItsCopyADuplicate() throws {
        let lib = try TestLibrary()
        try VideoClips.ffmpeg([
            "-i", "\(VideoClips.data)/vtest.avi", "-t", "12", "-vf", "scale=320:240", "-c:v", "libtheora", "-q:v", "6", "-an",
            lib.root + "/street.ogv",
        ])
        try VideoClips.ffmpeg([
            "-i", lib.root + "/street.ogv", "-c:v", "libx264", "-preset", "ultrafast", "-crf", "30", lib.root + "/street-copy.mp4",
        ])
        try VideoClips.ffmpeg(["-f", "lavfi", "-i", "sine=frequency=440:duration=2", "-c:a", "libvorbis", "-f", "ogg", lib.root + "/tone.ogv"])
        try lib.scan()
        let row = try #require(
            try lib.library.db.rows(
                "SELECT kind, status, video_signature IS NOT NULL, video_poster IS NOT NULL FROM files WHERE path LIKE '%/street.ogv'"
            ).first)
        #expect(row.string(0) == "video" && row.string(1) == "ok" && row.int(2) == 1 && row.int(3) == 1)
        let tone = try #require(try lib.library.db.rows("SELECT status, reason FROM files WHERE path LIKE '%/tone.ogv'").first)
        #expect(tone.string(0) == "unsupported" && (tone.string(1) ?? "").contains("sound only"), "\(tone.string(0) ?? "") \(tone.string(1) ?? "")")
        let stored = try Self.regrouped(lib)
        #expect(stored.together("street.ogv", "street-copy.mp4"))
        #expect(stored.duplicate == ["street.ogv", "street-copy.mp4"])
    }

    /// Clips already on disk when `.ogv` began to be read: the agent's walk lists a folder again
    /// only when its stamp changed, so migration 85 drops every stamp and the next walk finds them.
    @Test func anOggClipAlreadyOnDiskIsFoundAfterTheUpgrade() throws {
        let t = try TestLibrary()
        t.dir.write("Pictures/old/a.jpg", Fixtures.jpeg(seed: 5, width: 96, height: 72))
        try VideoClips.ffmpeg([
            "-i", "\(VideoClips.data)/vtest.avi", "-t", "3", "-vf", "scale=160:120", "-c:v", "libtheora", "-an", t.root + "/old/clip.ogv",
        ])
        let past = Date().addingTimeInterval(-3600)
        for f in ["Pictures", "Pictures/old"] { try FileManager.default.setAttributes([.modificationDate: past], ofItemAtPath: t.dir.at(f)) }
        let scanner = t.scanner()
        scanner.skipUnchangedFolders = true
        #expect(try scanner.scan([t.root]).added == 2)
        // A library an older build made: the clip was never listed, the folders are stamped.
        try t.library.db.run("DELETE FROM files WHERE path LIKE '%.ogv'")
        #expect(try scanner.scan([t.root]).added == 0, "an unchanged folder is not listed again")
        // The upgrade.
        try t.library.db.run("DELETE FROM schema_migrations WHERE version = 85")
        let upgraded = try Library(path: t.dbPath)
        #expect(try upgraded.db.scalar("SELECT count(*) FROM folders") == 0)
        #expect(try scanner.scan([t.root]).added == 1)
        #expect(try t.library.db.scalar("SELECT count(*) FROM files WHERE path LIKE '%/clip.ogv' AND kind = 'video' AND status = 'ok'") == 1)
    }

    @Test func aSharedBlackIntroAStaticSceneAndOtherTimesOfOnePlaceAreNoCopies() throws {
        let lib = try TestLibrary()
        let work = lib.dir.folder("work")
        try VideoClips.still(nil, seconds: 3, to: work + "/black.mp4")
        try VideoClips.ffmpeg(["-i", "\(VideoClips.data)/vtest.avi", "-frames:v", "1", work + "/scene.png"])
        try VideoClips.still(work + "/scene.png", seconds: 4, to: work + "/scene.mp4")
        try VideoClips.small("vtest.avi", from: 30, seconds: 8, to: work + "/vtest-a.mp4")
        try VideoClips.small("Megamind.avi", from: 0, seconds: 8, to: work + "/megamind.mp4")
        try VideoClips.small("tree.avi", from: 5, seconds: 8, to: work + "/tree.mp4")
        try VideoClips.concat(work + "/black.mp4", work + "/vtest-a.mp4", to: lib.root + "/black-vtest.mp4")
        try VideoClips.concat(work + "/black.mp4", work + "/megamind.mp4", to: lib.root + "/black-megamind.mp4")
        try VideoClips.concat(work + "/scene.mp4", work + "/tree.mp4", to: lib.root + "/scene-tree.mp4")
        try VideoClips.small("vtest.avi", from: 60, seconds: 8, to: work + "/vtest-b.mp4")
        try VideoClips.concat(work + "/scene.mp4", work + "/vtest-b.mp4", to: lib.root + "/scene-vtest.mp4")
        // A static camera: the same place 40 s later.
        try VideoClips.small("vtest.avi", from: 0, seconds: 12, to: lib.root + "/vtest-0.mp4")
        try VideoClips.small("vtest.avi", from: 45, seconds: 12, to: lib.root + "/vtest-45.mp4")
        try lib.scan()
        let ok = try lib.library.db.scalar("SELECT count(*) FROM files WHERE kind = 'video' AND video_signature IS NOT NULL")
        #expect(ok == 6)  // every clip was compared, none was left out
        let stored = try Self.regrouped(lib)
        #expect(stored.setOf.isEmpty)
        #expect(stored.duplicate.isEmpty)
    }

    @Test func aCopyTrimmedAtEitherEndIsADuplicate() throws {
        let lib = try TestLibrary()
        try VideoClips.small("Megamind.avi", from: 0, seconds: 11, to: lib.root + "/megamind.mp4")
        try VideoClips.ffmpeg([
            "-ss", "2", "-i", "\(VideoClips.data)/Megamind.avi", "-vf", "scale=160:120", "-c:v", "mpeg4", "-an", lib.root + "/megamind-trimmed.mkv",
        ])
        try VideoClips.ffmpeg([
            "-i", "\(VideoClips.data)/Megamind.avi", "-t", "9", "-c:v", "libx264", "-preset", "ultrafast", "-an", lib.root + "/megamind-cut-end.mov",
        ])
        try lib.scan()
        let stored = try Self.regrouped(lib)
        #expect(stored.together("megamind.mp4", "megamind-trimmed.mkv"))
        #expect(stored.together("megamind.mp4", "megamind-cut-end.mov"))
    }

    /// A 16:9 copy of a 4:3 clip, stretched (a wrong player setting, an old converter): the
    /// frames compared on the square grid are the same pictures, so it joins its original on
    /// evidence over its whole length, though its aspect differs beyond `maxAspectRatio`
    /// (before, the aspect alone refused it: forensics-samples-files' 4:3 `movie-hello.mpeg` of
    /// a 16:9 film, bench/RESULTS.md 2026-12-05 11:10). Another film in that other aspect, and
    /// the same street 40 s later in it, stay apart.
    @Test func aStretchedCopyIsACopyAndAnotherFilmOfAnotherAspectIsNot() throws {
        let lib = try TestLibrary()
        try VideoClips.small("vtest.avi", from: 0, seconds: 8, to: lib.root + "/vtest.mp4")
        try VideoClips.ffmpeg(["-i", lib.root + "/vtest.mp4", "-vf", "scale=320:180,setsar=1", "-c:v", "mpeg4", "-an", lib.root + "/vtest-wide.mkv"])
        for (name, src, from) in [("megamind-wide.mp4", "Megamind.avi", 0), ("vtest-later-wide.mp4", "vtest.avi", 40)] {
            try VideoClips.ffmpeg([
                "-ss", "\(from)", "-i", "\(VideoClips.data)/\(src)", "-t", "8", "-vf", "scale=320:180,setsar=1,fps=25,format=yuv420p", "-c:v",
                "libx264", "-preset", "ultrafast", "-an", lib.root + "/" + name,
            ])
        }
        try lib.scan()
        let aspects = try lib.library.db.rows("SELECT width * 1.0 / height FROM files WHERE kind = 'video'").compactMap { $0.double(0) }
        try #require(aspects.count == 4 && aspects.max()! / aspects.min()! > 1.3, "4:3 and 16:9: \(aspects)")
        let stored = try Self.regrouped(lib)
        #expect(stored.together("vtest.mp4", "vtest-wide.mkv"))
        #expect(!stored.together("vtest.mp4", "megamind-wide.mp4") && !stored.together("vtest-wide.mkv", "megamind-wide.mp4"))
        #expect(!stored.together("vtest.mp4", "vtest-later-wide.mp4") && !stored.together("vtest-wide.mkv", "vtest-later-wide.mp4"))
        #expect(stored.duplicate == ["vtest.mp4", "vtest-wide.mkv"])
    }

    /// A 2.5 s clip made a DVD (MPEG-2 in MPEG-PS, whose stream starts at 0.5 s and whose seeks
    /// land on the packet after the time's keyframe): its samples cover the whole length as its
    /// original's do (before, 15 samples from 1.2 s on, where the original gave 24: seeks near
    /// the start landed on the second keyframe, near the end between keyframes, and a flushed
    /// frame without a time stood for its slot's). And compared by their times, a copy sampled
    /// over half its length still finds each of its samples in its original whichever of the
    /// two is asked first (before, the denser one's early frames were compared with the sparser
    /// one's first sample, 1.2 s away: retromars-dvd.mpg, bench/RESULTS.md 2026-12-05 11:10).
    @Test func aShortDVDCopyIsSampledOverItsLengthAndACopyWithFewerSamplesJoins() throws {
        let lib = try TestLibrary()
        try VideoClips.timeLapse(speed: 12, fps: 10, seconds: 2.5, to: lib.root + "/lapse.mp4")
        try VideoClips.ffmpeg(["-i", lib.root + "/lapse.mp4", "-c:v", "mpeg2video", "-q:v", "5", "-an", "-f", "vob", lib.root + "/lapse-dvd.mpg"])
        let original = try Video.probe(path: lib.root + "/lapse.mp4", frames: VideoSignature.sampledFrames, budgetSeconds: 30)
        let dvd = try Video.probe(path: lib.root + "/lapse-dvd.mpg", frames: VideoSignature.sampledFrames, budgetSeconds: 30)
        #expect(dvd.frames.count >= original.frames.count - 2, "\(dvd.frames.count) samples, the original \(original.frames.count)")
        #expect((dvd.frames.first?.seconds ?? 9) <= 0.3 && (dvd.frames.last?.seconds ?? 0) >= 2.1, "\(dvd.frames.map(\.seconds))")
        let a = VideoSignature(durationSeconds: 2.5, aspect: 4.0 / 3.0, sampled: original.frames)
        let b = VideoSignature(durationSeconds: 2.5, aspect: 4.0 / 3.0, sampled: dvd.frames)
        let half = VideoSignature(durationSeconds: 2.5, aspect: 4.0 / 3.0, frames: b.frames.filter { $0.seconds >= 1.2 })
        try #require(half.frames.count >= 8)
        let (full, sparse) = (VideoCopies.Prepared(a), VideoCopies.Prepared(half))
        #expect(VideoCopies.copyScore(sparse, full) != nil && VideoCopies.copyScore(full, sparse) != nil)
        try lib.scan()
        let stored = try Self.regrouped(lib)
        #expect(stored.together("lapse.mp4", "lapse-dvd.mpg"))
    }

    /// A busy street's time-lapse and its messenger copy trimmed 2.5 s at its start: the two
    /// videos' samples fall at different times of a picture that changes between any two of
    /// them, so the sparser-sampled one's samples are each compared with the other's picture at
    /// their time, between its two samples around it (before, the shorter one's samples with
    /// the longer one's nearest: 23 of 32 matched at the best offset, 0.72 < 0.75, as
    /// pd-extendedview's diver trimmed 2 s missed all its copies).
    @Test func aTimeLapseTrimmedAtItsStartIsADuplicate() throws {
        let lib = try TestLibrary()
        try VideoClips.timeLapse(speed: 6, fps: 25, seconds: 12, to: lib.root + "/lapse.mp4")
        try VideoClips.ffmpeg([
            "-ss", "2.5", "-i", lib.root + "/lapse.mp4", "-vf", "scale=160:120", "-c:v", "libx264", "-preset", "ultrafast", "-crf", "30", "-an",
            lib.root + "/lapse-trimmed.mp4",
        ])
        try lib.scan()
        let stored = try Self.regrouped(lib)
        #expect(stored.together("lapse.mp4", "lapse-trimmed.mp4"))
        #expect(stored.keepers == ["lapse.mp4"])
    }

    @Test func anAVIAnMPGAndAnMTSAreAnalyzedAndADamagedVideoGetsAReason() throws {
        let lib = try TestLibrary()
        try FileSystem.writeAtomically(lib.root + "/tree.avi", try FileSystem.readFile("\(VideoClips.data)/tree.avi", limit: 64 << 20))
        try VideoClips.ffmpeg([
            "-i", "\(VideoClips.data)/Megamind.avi", "-t", "6", "-c:v", "mpeg2video", "-an", "-f", "vob", lib.root + "/camcorder.mpg",
        ])
        try VideoClips.ffmpeg([
            "-i", "\(VideoClips.data)/Megamind.avi", "-t", "6", "-c:v", "libx264", "-preset", "ultrafast", "-an", "-f", "mpegts",
            lib.root + "/00001.MTS",
        ])
        let mp4 = lib.dir.at("whole.mp4")
        try VideoClips.small("Megamind.avi", from: 0, seconds: 6, to: mp4)
        let whole = try FileSystem.readFile(mp4, limit: 64 << 20)
        // Cut short: the moov box at the end is gone.
        try FileSystem.writeAtomically(lib.root + "/cut.mp4", Array(whole.prefix(whole.count / 3)))
        // A RIFF/AVI header over noise.
        var noise = SplitMix(seed: 44)
        try FileSystem.writeAtomically(
            lib.root + "/noise.avi",
            Array("RIFF\u{0}\u{0}\u{1}\u{0}AVI LIST".utf8) + (0..<65_536).map { _ in UInt8.random(in: 0...255, using: &noise) })
        try lib.scan()
        var rows: [String: (status: String, duration: Double?, reason: String?, signed: Bool, format: String)] = [:]
        for r in try lib.library.db.rows("SELECT path, status, duration_s, reason_code, video_signature IS NOT NULL, format FROM files") {
            rows[String(r.string(0)!.split(separator: "/").last!)] = (r.string(1)!, r.double(2), r.string(3), r.int(4) == 1, r.string(5) ?? "")
        }
        let tree = try #require(rows["tree.avi"])
        #expect(tree.status == "ok" && tree.signed && tree.format == "avi")
        #expect(abs((tree.duration ?? 0) - 29.6) < 0.2)
        let mpg = try #require(rows["camcorder.mpg"])
        #expect(mpg.status == "ok" && mpg.signed && mpg.format == "mpg")
        #expect(abs((mpg.duration ?? 0) - 6) < 0.3)
        let mts = try #require(rows["00001.MTS"])
        #expect(mts.status == "ok" && mts.signed && mts.format == "mts")
        #expect(abs((mts.duration ?? 0) - 6) < 0.3)
        let cut = try #require(rows["cut.mp4"])
        #expect(cut.status != "ok" && cut.reason != nil && !cut.signed)
        let noisy = try #require(rows["noise.avi"])
        #expect(noisy.status == "unreadable" && noisy.reason == "decode_error" && !noisy.signed)
    }

    /// kphotoalbum's 4.5 s demo clip made a DVD missed every copy (bench/RESULTS.md, 2026-12-05
    /// 08:15): its Motion-JPEG 4:2:2 chroma stays 4:2:2 in MPEG-2, whose fast decoding path
    /// (`AV_CODEC_FLAG2_FAST`) draws such frames flat grey, concealment flagged. Each probed frame
    /// must show the picture, and the copy must join its original.
    @Test func anMPEG2CopyWithFourTwoTwoChromaShowsItsPicturesAndIsADuplicate() throws {
        let lib = try TestLibrary()
        try VideoClips.ffmpeg([
            "-i", "\(VideoClips.data)/Megamind.avi", "-t", "5", "-vf", "scale=160:120", "-c:v", "mjpeg", "-q:v", "4", "-an",
            lib.root + "/MVI_0042.avi",
        ])
        try VideoClips.ffmpeg([
            "-i", lib.root + "/MVI_0042.avi", "-c:v", "mpeg2video", "-pix_fmt", "yuv422p", "-q:v", "5", "-an", "-f", "vob", lib.root + "/dvd.mpg",
        ])
        let probe = try Video.probe(path: lib.root + "/dvd.mpg", frames: VideoSignature.sampledFrames, budgetSeconds: 3)
        let sig = VideoSignature(durationSeconds: probe.durationSeconds ?? 0, aspect: 4.0 / 3.0, sampled: probe.frames)
        #expect(sig.frames.count >= 16)
        #expect(sig.frames.filter(\.flat).isEmpty, "no frame of Megamind's opening is flat")
        try lib.scan()
        let stored = try Self.regrouped(lib)
        #expect(stored.together("MVI_0042.avi", "dvd.mpg"))
    }

    /// A GOP as long as the clip (x264 `-g 600`, one keyframe): sampling by seeks decoded from
    /// that keyframe up to each of 32 times (thousands of frames for 500); now each frame is
    /// decoded about once, in order, and every sample is the frame at its time.
    @Test func aClipWithOneKeyframeIsDecodedOnceNotOncePerSample() throws {
        let dir = TempDir()
        let clip = dir.at("one-gop.mp4")
        try VideoClips.ffmpeg([
            "-i", "\(VideoClips.data)/vtest.avi", "-t", "20", "-vf", "scale=320:240,fps=25,format=yuv420p", "-c:v", "libx264", "-preset",
            "ultrafast", "-g", "600", "-keyint_min", "600", "-sc_threshold", "0", "-an", clip,
        ])
        let total = try VideoClips.frameCount(clip)
        #expect(total == 500)
        let p = try Video.probe(path: clip, frames: 32, budgetSeconds: 30)
        #expect(p.frames.count == 32)
        #expect(p.decodedFrames <= total + 32 * 8, "\(p.decodedFrames) frames decoded for \(total)")
        for (i, f) in p.frames.enumerated() {
            #expect(abs(f.seconds - 20 * (Double(i) + 0.5) / 32) <= 0.05, "sample \(i) at \(f.seconds) s")
        }
    }

    /// A long film with a keyframe every 24 s (`-g 600` at 25 fps), ten minutes of it: a sample
    /// costs at most a few hundred frames, a time deeper than that past its keyframe is left
    /// out rather than stood for by another frame, and what is sampled is the frame at its time
    /// (before, a sample that hit the cap was the frame it stopped at, seconds off).
    @Test func aLongGOPFilmCostsBoundedFramesPerSampleAndEverySampleIsAtItsTime() throws {
        let dir = TempDir()
        let part = dir.at("part.mp4"), film = dir.at("film.mp4")
        try VideoClips.ffmpeg([
            "-i", "\(VideoClips.data)/vtest.avi", "-t", "60", "-vf", "scale=160:120,fps=25,format=yuv420p", "-c:v", "libx264", "-preset",
            "ultrafast", "-g", "600", "-keyint_min", "600", "-sc_threshold", "0", "-an", part,
        ])
        try VideoClips.ffmpeg(["-stream_loop", "9", "-i", part, "-c", "copy", film])
        let p = try Video.probe(path: film, frames: 32, budgetSeconds: 30)
        let duration = try #require(p.durationSeconds)
        #expect(abs(duration - 600) < 1)
        #expect(p.frames.count >= 8)
        #expect(p.decodedFrames <= 32 * 300, "\(p.decodedFrames) frames decoded")
        for f in p.frames {
            let slot = (f.seconds / duration * 32 - 0.5).rounded()
            #expect(abs(f.seconds - duration * (slot + 0.5) / 32) <= 0.2, "a sample at \(f.seconds) s is no slot's time")
        }
    }

    /// A phone's portrait clip is stored landscape with a display matrix turning it (what a
    /// phone writes; here `rotate=90` through ffmpeg's muxer): the poster the scan keeps for its
    /// card is upright as FFmpeg's own player shows the clip (the band on the stored picture's
    /// left lands where `ffmpeg`'s autorotation puts it), and the card is portrait.
    @Test func aRotatedPhoneClipGetsAnUprightPoster() throws {
        let lib = try TestLibrary()
        let work = lib.dir.folder("work")
        try VideoClips.ffmpeg([
            "-f", "lavfi", "-i", "color=c=black:s=320x240:r=25:d=3,drawbox=x=0:y=0:w=80:h=240:color=white:t=fill", "-c:v", "libx264",
            "-preset", "ultrafast", "-pix_fmt", "yuv420p", work + "/plain.mp4",
        ])
        let clip = lib.root + "/VID_20240615_101500.mp4"
        try VideoClips.ffmpeg(["-i", work + "/plain.mp4", "-c", "copy", "-metadata:s:v:0", "rotate=90", clip])
        // FFmpeg's player turns it upright (autorotation): 24×32 grey.
        try VideoClips.ffmpeg(["-i", clip, "-frames:v", "1", "-vf", "scale=24:32", "-f", "rawvideo", "-pix_fmt", "gray", work + "/upright.raw"])
        let upright = try FileSystem.readFile(work + "/upright.raw", limit: 1 << 16)
        try #require(upright.count == 24 * 32)
        let ffTop = upright[0..<(24 * 8)].reduce(0) { $0 + Int($1) } / (24 * 8)
        let ffBottom = upright[(24 * 24)...].reduce(0) { $0 + Int($1) } / (24 * 8)
        try #require(abs(ffTop - ffBottom) > 150, "the band is at the top or the bottom as FFmpeg shows it")
        let p = try Video.probe(path: clip, frames: 8, budgetSeconds: 3, poster: true)
        #expect(p.rotation == 90 || p.rotation == 270)
        let poster = try #require(p.poster)
        #expect(poster.width == 240 && poster.height == 320)
        func mean(rows: Range<Int>) -> Int {
            var s = 0
            for y in rows { for x in 0..<poster.width { s += Int(poster.pixels[(y * poster.width + x) * 3]) } }
            return s / (rows.count * poster.width)
        }
        guard poster.height == 320 else { return }
        let (top, bottom) = (mean(rows: 0..<80), mean(rows: 240..<320))
        #expect((top > bottom) == (ffTop > ffBottom) && abs(top - bottom) > 150, "top \(top), bottom \(bottom)")
        try lib.scan()
        let stored = try #require(try lib.library.db.row("SELECT video_poster, width, height FROM files WHERE kind = 'video'"))
        let jpeg = try JPEG.decode(try #require(stored.blob(0)), scaleNumerator: 8, maxHeaderPixels: 1 << 22, maxOutputPixels: 1 << 22).bitmap
        #expect(jpeg.width == 240 && jpeg.height == 320)
        #expect(stored.int(1) == 240 && stored.int(2) == 320, "the card is portrait too")
    }

    /// Adding one video compares it with the videos whose durations allow a copy, never every
    /// candidate pair of the library again (before, any changed video re-scored them all); the
    /// sets stored before stand, and the result is what a full regroup makes.
    @Test func addingOneVideoComparesItWithItsNeighboursInDurationOnly() throws {
        let lib = try TestLibrary()
        try VideoClips.small("Megamind.avi", from: 0, seconds: 8, to: lib.root + "/megamind.mp4")
        try VideoClips.ffmpeg(["-i", lib.root + "/megamind.mp4", "-vf", "scale=160:120", "-c:v", "mpeg4", "-an", lib.root + "/megamind-small.mkv"])
        try VideoClips.small("vtest.avi", from: 10, seconds: 14, to: lib.root + "/vtest.mp4")
        try VideoClips.ffmpeg(["-i", lib.root + "/vtest.mp4", "-vf", "scale=160:120", "-c:v", "mpeg4", "-an", lib.root + "/vtest-small.mkv"])
        try VideoClips.small("tree.avi", from: 0, seconds: 20, to: lib.root + "/tree.mp4")
        try lib.scan()
        let before = try Self.regrouped(lib)
        #expect(before.together("megamind.mp4", "megamind-small.mkv") && before.together("vtest.mp4", "vtest-small.mkv"))
        #expect(before.setOf["tree.mp4"] == nil)
        try VideoClips.ffmpeg([
            "-i", lib.root + "/tree.mp4", "-vf", "scale=160:120", "-c:v", "libx264", "-preset", "ultrafast", "-crf", "30", "-an",
            lib.root + "/tree-copy.mp4",
        ])
        try lib.scan()
        var grouper = Grouper(library: lib.library)
        let lines = Mutex<[String]>([])
        grouper.trace = { line in lines.withLock { $0.append(line) } }
        try grouper.regroup()
        let scored = lines.withLock { $0.filter { $0.hasPrefix("video-copy\t") } }
        #expect(scored.count == 1, "only tree-copy against tree: \(scored)")
        var after = Stored()
        for r in try lib.library.db.rows("SELECT f.path, s.set_key, s.keeper FROM similar_sets s JOIN files f ON f.id = s.file_id") {
            let name = String(r.string(0)!.split(separator: "/").last!)
            after.setOf[name] = r.int(1)
            if r.int(2) == 1 { after.keepers.insert(name) }
        }
        #expect(after.together("tree.mp4", "tree-copy.mp4"))
        #expect(after.keepers.contains("tree.mp4"))
        #expect(after.setOf["megamind.mp4"] == before.setOf["megamind.mp4"] && after.setOf["vtest.mp4"] == before.setOf["vtest.mp4"])
        let full = try Self.regrouped(lib)
        #expect(full.setOf == after.setOf && full.keepers == after.keepers)
    }

    @Test func aSignatureRoundTripsThroughItsStoredForm() throws {
        var frames: [VideoSignature.Frame] = []
        for i in 0..<3 {
            let thumb: [UInt8] = (0..<256).map { (j: Int) -> UInt8 in UInt8((j + i) % 256) }
            let hash: UInt64 = 0x0123_4567_89AB_CDEF &+ UInt64(i)
            frames.append(VideoSignature.Frame(seconds: Float(i) * 1.5, phash: hash, flat: i == 1, thumb: thumb))
        }
        let sig = VideoSignature(durationSeconds: 4.5, aspect: 4.0 / 3.0, frames: frames)
        let back = try #require(VideoSignature(encoded: sig.encoded()))
        #expect(back.frames == sig.frames)
        #expect(abs(back.durationSeconds - 4.5) < 1e-6 && abs(back.aspect - 4.0 / 3.0) < 1e-6)
        #expect(VideoSignature(encoded: Array(sig.encoded().dropLast())) == nil)
    }
}
