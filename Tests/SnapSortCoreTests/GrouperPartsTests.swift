import Foundation
import SnapSortSystem
import SnapSortTestSupport
import Synchronization
import Testing

@testable import SnapSortCore

/// A regroup of a library too large to hold is done in parts (`Grouper.regroupInParts`, issue
/// 40 item 3) and gives what the regroup that holds every row gives.
@Suite struct GrouperPartsTests {
    /// Real photos — bursts and frames of real video with capture times, their byte copies,
    /// re-encodes without metadata that only the content search finds — among 40 days of other
    /// scenes, and two clips of one video: regrouped in parts of 3 photos, the sets, keepers,
    /// originals and every group are the full regroup's, and no part read more than its
    /// neighbourhood. Then a file removed and another added (a removal is never sliced) go by
    /// parts again, and an upgrade (other rules) regroups everything in parts.
    @Test func aLibraryRegroupedInPartsIsGroupedAsByOneRegroup() throws {
        let t = try Self.library()
        let parts = Self.grouper(t.library, partSize: 3)
        let rows = try #require(try t.library.db.scalar("SELECT count(*) FROM files"))
        let stats = try parts.regroupAll()
        // A part reads its neighbourhood — its times, pHash neighbours, contents, region — not
        // the library (a regroup of every row reads all 71).
        #expect(stats.rowsRead < Int(rows) * 2 / 3, "the most rows one part read, of \(rows): \(stats)")
        let inParts = try GroupsGrouperTests.snapshot(t.library)
        #expect(inParts.contains { $0.contains("Chat/") && $0.contains(" set=") }, "\(inParts)")
        #expect(inParts.contains { $0.contains("clip-copy.mp4") && $0.contains(" set=") }, "\(inParts)")
        #expect(try Self.wholeRegroup(t) == inParts, "the first regroup")
        #expect(try t.library.agentState(RegroupSlice.stateKey) == "1")
        #expect(try t.library.db.scalar("SELECT count(*) FROM regroup_dirty") == 0)

        try FileManager.default.removeItem(atPath: t.dir.at("Pictures/Backup/IMG_mall-burst-1.jpg"))
        t.dir.write("Pictures/Chat/cockatoo-273-sent.jpg", Fixtures.jpeg(try MetricsFinderPatternTests.photo("cockatoo-273.jpg"), quality: 70))
        try t.scan()
        let changed = try parts.regroup()
        #expect(changed.changed >= 2, "\(changed)")
        #expect(try Self.wholeRegroup(t) == GroupsGrouperTests.snapshot(t.library), "a file removed, one added")

        try t.library.setAgentState(Grouper.pairRulesKey, "other rules", at: Date())
        try parts.regroup()
        #expect(try Self.wholeRegroup(t) == GroupsGrouperTests.snapshot(t.library), "an upgrade")
    }

    /// The candidate lists are capped (`contentNeighbours`, `copyCandidates`), so a photo of a
    /// later part need not list back the photo of an earlier part that listed it; the pair that
    /// earlier part scored is kept (`RegroupRun.pairsOfThisRun`), as one regroup of every row
    /// keeps the pairs either list holds. With lists of one, in parts of two, the groups are the
    /// whole regroup's. (This library does not make a list that is not listed back, so it holds
    /// the parts to the whole regroup under tight caps, not that rule alone.)
    @Test func pairsAPartScoredAreKeptByTheLaterParts() throws {
        let t = try Self.library()
        var rules = GroupRules()
        rules.contentNeighbours = 1
        rules.copyCandidates = 1
        let parts = Self.grouper(t.library, partSize: 2, rules: rules)
        try parts.regroupAll()
        #expect(try Self.wholeRegroup(t, rules: rules) == GroupsGrouperTests.snapshot(t.library))
    }

    /// A pair is listed from both its photos, and a photo's copies sit in other folders — other
    /// parts: a later part does not align again a pair an earlier part aligned (`PartsLedger`;
    /// at a million rows two thirds of the pairs were aligned twice). In parts of 3, every pair
    /// is aligned once and the groups are the whole regroup's; with a ledger of one pair (full
    /// at once, swept, then aligning again what it cannot hold) the groups are the same.
    @Test func aPartDoesNotAlignAgainWhatAnEarlierPartAligned() throws {
        for capacity in [4_000_000, 1] {
            let t = try Self.library()
            var parts = Self.grouper(t.library, partSize: 3)
            parts.ledgerCapacity = capacity
            let lines = Mutex<[String]>([])
            parts.trace = { line in lines.withLock { $0.append(line) } }
            parts.phaseTrace = parts.trace
            try parts.regroupAll()
            // The pairs step's alignments: between a part's "stored pairs" and "pairs scored"
            // (the clustering after it aligns a few pairs below the line again for its sets).
            var inStep = false
            let stepLines = lines.withLock { $0 }.filter { line in
                if line.hasPrefix("phase\tstored pairs") { inStep = true } else if line.hasPrefix("phase\tpairs scored") { inStep = false }
                return inStep
            }
            let aligned = stepLines.filter { $0.hasPrefix("pair\t") }.map { line -> String in
                let f = line.split(separator: "\t")
                return [String(f[1]), String(f[2])].sorted().joined(separator: " ")
            }
            let twice = Dictionary(grouping: aligned, by: { $0 }).filter { $0.value.count > 1 }.keys.sorted()
            if capacity > 1 {
                #expect(aligned.count > 20, "\(aligned.count) pairs aligned")
                #expect(twice.isEmpty, "aligned twice: \(twice)")
            } else {
                #expect(!twice.isEmpty, "a ledger of one pair holds almost nothing: pairs are aligned again")
            }
            #expect(try Self.wholeRegroup(t) == GroupsGrouperTests.snapshot(t.library), "ledger of \(capacity)")
        }
    }

    /// The parts go by the timeline (capture time, else mtime), not by id — the walk's order, a
    /// folder at a time — so a moment's photos and their copies in other folders share a part.
    @Test func thePartsGoByTheTimeline() throws {
        let t = try Self.library()
        let pass = try PartsPass.read(t.library.db, rules: GroupRules(), everything: true, extra: [], dirty: IDBits())
        pass.addMates(IDBits())
        var places: [Int64: Double] = [:]
        try GroupItem.forEachLive(t.library.db) { item, _ in places[item.id] = item.taken ?? Double(item.mtime) / 1e9 }
        let order = pass.changedPhotos
        #expect(order.count > 40 && order != order.sorted(), "the library's id order is not its timeline's")
        #expect(zip(order, order.dropFirst()).allSatisfy { places[$0]! <= places[$1]! }, "\(order.map { places[$0]! })")
    }

    /// Heavy Photos is ranked once, over the whole library, at the end of a regroup in parts (each
    /// part's ranking read every row's size): the same members and scores as one regroup gives,
    /// also when the run was stopped after a part and the next run went on. Small photos here,
    /// so the rules make the largest fifth Heavy.
    @Test func heavyIsRankedOnceAsOneRegroupRanksIt() throws {
        let t = try Self.library()
        var rules = GroupRules()
        rules.heavyShare = 0.2
        rules.heavyMinimumBytes = 1
        var parts = Self.grouper(t.library, partSize: 4, rules: rules)
        parts.checkpoint = { if try t.library.db.scalar("SELECT count(*) FROM grouped_files") ?? 0 > 0 { throw Grouper.Cancelled() } }
        #expect(throws: Grouper.Cancelled.self) { try parts.regroupAll() }
        parts.checkpoint = {}
        try parts.regroup()
        let heavy = try t.library.db.scalar("SELECT count(*) FROM group_members WHERE group_id = \(GroupID.heavy.sql)") ?? 0
        #expect(heavy >= 5, "\(heavy) heavy photos")
        #expect(try Self.wholeRegroup(t, rules: rules) == GroupsGrouperTests.snapshot(t.library))
    }

    /// A regroup in parts stopped after its first part keeps what that part stored; the next
    /// regroup finds the files not regrouped yet (they have no grouped fingerprint), does not
    /// slice, and ends with the groups one regroup of everything gives.
    @Test func aRegroupInPartsStoppedGoesOnWhereItStopped() throws {
        let t = try Self.library()
        var parts = Self.grouper(t.library, partSize: 4)
        var stored = 0
        parts.checkpoint = {
            let n = try t.library.db.scalar("SELECT count(*) FROM grouped_files") ?? 0
            if n > 0 { stored = Int(n); throw Grouper.Cancelled() }
        }
        #expect(throws: Grouper.Cancelled.self) { try parts.regroupAll() }
        #expect(stored == 4, "one part stored before the stop: \(stored)")
        #expect(try t.library.agentState(RegroupSlice.stateKey) == "0", "not sliceable until a run ends")
        #expect(try LibraryUpdate(library: t.library).regroupPending(), "the next regroupIfPending goes on")
        parts.checkpoint = {}
        let rest = try parts.regroup()
        #expect(rest.changed > 0)
        #expect(try t.library.db.scalar("SELECT count(*) FROM grouped_files") == t.library.db.scalar("SELECT count(*) FROM files"))
        #expect(try Self.wholeRegroup(t) == GroupsGrouperTests.snapshot(t.library))
    }

    /// A "not similar" mark made while a regroup in parts is unfinished (here stopped after its
    /// first set; under way in the agent alike) does not run the rest of that run — up to half an
    /// hour at a million rows, inside a page's request: the marked set leaves the groups at once,
    /// its photos are marked for the run, and the run, going on, regroups them with the rest —
    /// the groups one regroup of everything, with the mark, gives.
    @Test func aNotSimilarMarkLeavesItsPhotosToAnUnfinishedRunInParts() throws {
        let t = try Self.library()
        var parts = Self.grouper(t.library, partSize: 4)
        let bigSet = "SELECT set_key FROM similar_sets GROUP BY set_key HAVING count(*) >= 3 LIMIT 1"
        parts.checkpoint = { if try t.library.db.scalar(bigSet) != nil { throw Grouper.Cancelled() } }
        #expect(throws: Grouper.Cancelled.self) { try parts.regroupAll() }
        let members = try Self.firstSet(t.library)
        let grouped = try t.library.db.scalar("SELECT count(*) FROM grouped_files")
        #expect(try grouped ?? 0 < t.library.db.scalar("SELECT count(*) FROM files") ?? 0)

        // The models pass regrouping the sets whose faces changed (it has no checkpoint: it
        // would have run the rest of the run, unstoppable) leaves them to the run as well.
        let others = try t.library.db.rows(
            "SELECT file_id FROM grouped_files WHERE file_id NOT IN (\(members.map(String.init).joined(separator: ",")))"
        ).compactMap { $0.int(0) }
        try #require(!others.isEmpty)
        try ModelsStep(library: t.library, helper: VisionHelper(executable: nil), logger: .silent, clock: .live).regroup(Set(others.prefix(1)))
        #expect(try t.library.db.scalar("SELECT count(*) FROM grouped_files") == grouped, "the rest of the run is not run by the models pass")
        #expect(try Self.count(t.library, "regroup_dirty", Array(others.prefix(1))) == others.prefix(1).count)

        // A keeper split out of a set of three or more: the set stays, with a keeper of its own.
        let big = try #require(try t.library.db.scalar(bigSet))
        let keeper = try #require(try t.library.db.scalar("SELECT file_id FROM similar_sets WHERE set_key = ? AND keeper = 1", big))
        let rest = try t.library.db.rows("SELECT file_id FROM similar_sets WHERE set_key = ? AND file_id != ?", big, keeper).compactMap { $0.int(0) }
        try t.library.markNotSimilar(keeper, from: rest, at: Date())
        #expect(try Self.count(t.library, "similar_sets", [keeper]) == 0)
        #expect(try t.library.db.scalar("SELECT count(*) FROM similar_sets WHERE set_key = ? AND keeper = 1", big) == 1)

        try t.library.markNotSimilar(groupMembers: members, at: Date())
        #expect(try t.library.db.scalar("SELECT count(*) FROM grouped_files") == grouped, "the rest of the run is not run by the mark")
        #expect(try Self.count(t.library, "similar_sets", members) == 0, "the set left the groups at once")
        #expect(try Self.count(t.library, "regroup_dirty", members) == members.count)
        #expect(try LibraryUpdate(library: t.library).regroupPending())

        parts.checkpoint = {}
        try parts.regroup()
        #expect(try t.library.db.scalar("SELECT count(*) FROM regroup_dirty") == 0)
        #expect(try t.library.db.scalar("SELECT count(*) FROM grouped_files") == t.library.db.scalar("SELECT count(*) FROM files"))
        #expect(try Self.sharedSets(t.library, members) == 0)
        #expect(try Self.wholeRegroup(t) == GroupsGrouperTests.snapshot(t.library))
    }

    /// …and a mark made on the page's own connection while the agent's run in parts is under way
    /// (an upgrade regrouping everything) waits for that run: `regroupIfPending` regroups the
    /// marked photos when the run ends, and leaves nothing pending.
    @Test func aMarkMadeWhileARunInPartsIsUnderWayIsRegroupedWhenTheRunEnds() throws {
        let t = try Self.library()
        let path = t.library.path
        let marked = Mutex<[Int64]?>(nil)
        let runs = Mutex(0)
        let update = LibraryUpdate(library: t.library, steps: .init(groups: true, models: false)) { library, _, checkpoint in
            runs.withLock { $0 += 1 }
            var parts = Self.grouper(library, partSize: 4)
            parts.checkpoint = {
                try checkpoint()
                guard marked.withLock({ $0 == nil }), try library.db.scalar("SELECT count(*) FROM similar_sets") ?? 0 > 0 else { return }
                let page = try Library(path: path)
                let members = try Self.firstSet(page)
                try page.markNotSimilar(groupMembers: members, at: Date())
                #expect(try Self.count(page, "similar_sets", members) == 0)
                marked.withLock { $0 = members }
            }
            try parts.regroup()
        }
        try t.library.setAgentState(Grouper.pairRulesKey, "other rules", at: Date())
        #expect(try update.regroupIfPending())
        let members = try #require(marked.withLock { $0 })
        #expect(runs.withLock { $0 } == 2, "the run, then the marked photos")
        #expect(try t.library.db.scalar("SELECT count(*) FROM regroup_dirty") == 0)
        #expect(try !update.regroupPending())
        #expect(try Self.sharedSets(t.library, members) == 0)
        #expect(try Self.wholeRegroup(t) == GroupsGrouperTests.snapshot(t.library))
    }

    /// A grouper that regroups `library` in parts of `partSize` photos, whatever its size.
    static func grouper(_ library: Library, partSize: Int, rules: GroupRules = GroupRules()) -> Grouper {
        var parts = Grouper(library: library)
        parts.rules = rules
        parts.partsAbove = 0
        parts.partSize = partSize
        return parts
    }

    /// The members of the stored set with the smallest key.
    static func firstSet(_ library: Library) throws -> [Int64] {
        let key = try #require(try library.db.scalar("SELECT min(set_key) FROM similar_sets"))
        return try library.db.rows("SELECT file_id FROM similar_sets WHERE set_key = ? ORDER BY file_id", key).compactMap { $0.int(0) }
    }

    /// How many rows of `table` (its `file_id`) name one of `ids`.
    static func count(_ library: Library, _ table: String, _ ids: [Int64]) throws -> Int {
        Int(try library.db.scalar("SELECT count(*) FROM \(table) WHERE file_id IN (\(ids.map(String.init).joined(separator: ",")))") ?? 0)
    }

    /// How many pairs of `ids` share a Similar Shots set.
    static func sharedSets(_ library: Library, _ ids: [Int64]) throws -> Int {
        let list = ids.map(String.init).joined(separator: ",")
        return Int(
            try library.db.scalar(
                "SELECT count(*) FROM similar_sets a JOIN similar_sets b ON a.set_key = b.set_key AND a.file_id < b.file_id WHERE a.file_id IN (\(list)) AND b.file_id IN (\(list))"
            ) ?? 0)
    }

    /// The library of `incrementalRegroupsOfRealPhotosEqualFullRegroups`, a folder kept with its
    /// times and a chat dump (weak clocks and a crowd), a scene a day for 40 days after it, and
    /// a clip with its re-encoded copy; scanned.
    static func library() throws -> TestLibrary {
        let t = try TestLibrary()
        func photo(_ name: String) throws -> Bitmap { try MetricsFinderPatternTests.photo(name) }
        try GroupsGrouperTests.writeRealPhotos(t)
        // A camera folder copied with its times (`cp -p`) and no EXIF: weak clocks a second
        // apart; and a chat dump written at once (a crowd within a second: no clock).
        for (i, name) in ["coin-burst-0", "coin-burst-1", "chelsea"].enumerated() {
            let path = t.dir.at("Pictures/Kept/kept_\(name).jpg")
            t.dir.write("Pictures/Kept/kept_\(name).jpg", Fixtures.jpeg(try photo("\(name).jpg"), quality: 88))
            try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: 1_729_332_000 + Double(i))], ofItemAtPath: path)
        }
        for name in ["mall-burst-0", "mall-burst-1", "cockatoo-100", "megamind-089", "coffee", "astronaut"] {
            t.dir.write("Pictures/Dump/dump_\(name).jpg", Fixtures.jpeg(try photo("\(name).jpg"), quality: 70))
        }
        for d in 0..<40 {
            t.dir.write(
                "Pictures/Month/IMG_\(d).jpg",
                Fixtures.jpeg(
                    Fixtures.scene(width: 320, height: 240, seed: UInt64(700 + d)), quality: 85,
                    dateTimeOriginal: String(format: "2024:11:%02d 09:00:00", 1 + d)))
        }
        try FileManager.default.createDirectory(atPath: t.dir.at("Pictures/Clips"), withIntermediateDirectories: true)
        try VideoClips.small("vtest.avi", from: 0, seconds: 2, to: t.dir.at("Pictures/Clips/clip.mp4"))
        try VideoClips.ffmpeg([
            "-i", t.dir.at("Pictures/Clips/clip.mp4"), "-vf", "scale=160:120", "-c:v", "libx264", "-preset", "ultrafast", "-crf", "32", "-an",
            t.dir.at("Pictures/Clips/clip-copy.mp4"),
        ])
        try t.scan()
        return t
    }

    /// The groups one regroup of every row (`regroupAll`, the library under `partsAbove`) gives
    /// on a copy of the library.
    static func wholeRegroup(_ t: TestLibrary, rules: GroupRules = GroupRules()) throws -> [String] {
        let copy = t.dir.at("whole-\(UUID().uuidString).sqlite3")
        try t.library.db.execute("VACUUM INTO '\(copy)'")
        let whole = try Library(path: copy)
        var grouper = Grouper(library: whole)
        grouper.rules = rules
        try grouper.regroupAll()
        return try GroupsGrouperTests.snapshot(whole)
    }

    /// A photo's pHash ball read from SQLite (`RegroupSlice.phashBall`, the rows a sliced
    /// regroup reads around an added photo) is every live row within the radius, whatever the
    /// hash asked: the chunk keys bound as one JSON array find what a scan of every row finds.
    @Test func thePHashBallIsEveryRowWithinTheRadius() throws {
        let t = try TestLibrary()
        for i in 0..<400 {
            try t.library.db.run(
                "INSERT INTO files(path, device, inode, size, mtime_ns, kind, status, phash, first_seen_at) VALUES(?, 1, ?, 1, 0, 'photo', 'ok', ?, '2024-01-01')",
                "/p/\(i).jpg", Int64(i), Int64(bitPattern: UInt64(i) &* 0x9E37_79B9_7F4A_7C15))
        }
        var all: [(Int64, UInt64)] = []
        try t.library.db.forEach("SELECT id, phash FROM files") { all.append(($0.int(0)!, UInt64(bitPattern: $0.int(1)!))) }
        let slice = RegroupSlice(db: t.library.db, rules: GroupRules(), dirty: [], dirtySeq: 0)
        var rng = SplitMix(seed: 5)
        var found = 0
        for k in 0..<60 {
            // Hashes near stored ones (flipped 0–14 bits) and random ones.
            var h = k % 2 == 0 ? all[Int(rng.next() % UInt64(all.count))].1 : rng.next()
            for _ in 0..<Int(rng.next() % 15) { h ^= 1 << (rng.next() % 64) }
            let ball = try slice.phashBall(h, radius: 14)
            let expected = all.filter { ($0.1 ^ h).nonzeroBitCount <= 14 }.map(\.0).sorted()
            #expect(ball == expected, "hash \(h)")
            found += ball.count
        }
        #expect(found >= 30, "balls that hold rows: the case under test")
    }
}
