import Foundation
import Glibc
import SnapSortCLI
import SnapSortCore
import SnapSortSystem
import SnapSortTestSupport
import Testing

/// The CLI contract: names, flags, output and the report format, through `Dispatcher.run` in
/// this process (`CLIEndToEndTests` runs the binary).
@Suite struct CLITests {
    @Test func scanAndReportWithDbBeforeOrAfterTheCommand() throws {
        let dir = TempDir()
        dir.write("Pictures/IMG_20240501_101010.jpg", Fixtures.jpeg(seed: 1))
        dir.write("Pictures/broken.jpg", [])
        let db = dir.at("db/lib.sqlite3")
        let scan = try InProcess.run(["--db", db, "scan", "--quiet", dir.at("Pictures")])
        #expect(scan.status == 0, "\(scan.stderr)")
        let report = try InProcess.run(["report", "--jsonl", "--db", db])
        #expect(report.status == 0)
        let lines = report.stdout.split(separator: "\n")
        #expect(lines.count == 2)
        for line in lines {
            let o = try #require(JSON.parse(String(line)))
            for key in [
                "path", "kind", "format", "bytes", "taken_at", "width", "height", "status", "reason", "metrics", "groups", "similar_group", "keeper",
                "duplicate_of",
            ] {
                #expect(o[key] != nil, "missing \(key)")
            }
            #expect(o["path"]?.stringValue?.hasPrefix("/") == true)
        }
        let env = try InProcess.run(["report", "--jsonl"], env: ["SNAPSORT_DB": db])
        #expect(env.stdout == report.stdout)
    }

    /// A file name with control characters (an ESC that recolours the terminal, a newline that
    /// splits a record) is printed escaped, in every listing: the trash list is what a user
    /// checks before a commit. JSON escapes them its own way.
    @Test func controlCharactersInANameNeverReachTheTerminal() throws {
        let dir = TempDir()
        let bytes = Fixtures.jpeg(seed: 43, width: 64, height: 48)
        dir.write("Pictures/esc \u{1B}[31mred.jpg", bytes)
        dir.write("Pictures/new\nline.jpg", bytes)
        dir.write("Pictures/evil\u{202E}gpj.jpg", bytes)
        let db = dir.at("lib.sqlite")
        #expect(try InProcess.run(["--db", db, "scan", "--quiet", "--no-models", dir.at("Pictures")]).status == 0)
        let trash = try InProcess.run(["--db", db, "decide", "trash", dir.at("Pictures/esc \u{1B}[31mred.jpg")])
        let groups = try InProcess.run(["--db", db, "groups", "duplicate"])
        let list = try InProcess.run(["--db", db, "trash", "list"])
        for out in [trash.stdout, groups.stdout, list.stdout] {
            #expect(!out.unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\u{202E}" }, "\(out)")
        }
        #expect(list.stdout.contains("esc \\x1b[31mred.jpg"), "\(list.stdout)")
        #expect(groups.stdout.contains("new\\nline.jpg") && groups.stdout.contains("evil\\u{202E}gpj.jpg"), "\(groups.stdout)")
        // `info` and `undo` name the file on one line too (review 7, F3).
        let info = try InProcess.run(["--db", db, "info", dir.at("Pictures/new\nline.jpg")])
        #expect(info.stdout.split(separator: "\n").first?.hasSuffix("Pictures/new\\nline.jpg") == true, "\(info.stdout)")
        _ = try InProcess.run(["--db", db, "decide", "keep", dir.at("Pictures/new\nline.jpg")])
        let undo = try InProcess.run(["--db", db, "undo"])
        #expect(undo.stdout.contains("new\\nline.jpg") && !undo.stdout.dropLast().contains("\n"), "\(undo.stdout)")
        let report = try InProcess.run(["--db", db, "report", "--jsonl"])
        #expect(report.stdout.contains("esc \\u001b[31mred.jpg") && report.stdout.contains("evil\\u202egpj.jpg"), "\(report.stdout)")
        for line in report.stdout.split(separator: "\n") { #expect(JSON.parse(String(line)) != nil) }
    }

    /// `info` says what the local models found, so a photo's place in People, Pets or Docs can
    /// be checked: the faces, those People counts and those taken for a dog's, the classifier's
    /// scores (a real scan with the helper; the spaniels' face is a dog's, the portrait's People's).
    @Test func infoSaysWhatTheModelsFound() throws {
        let dir = TempDir()
        let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../Fixtures/vision").standardized.path
        for name in ["spaniels.jpg", "astronaut.jpg"] {
            dir.write("Pictures/" + name, try FileSystem.readFile(fixtures + "/" + name, limit: 1 << 22))
        }
        let db = dir.at("lib.sqlite")
        let helper = (SnapsortBinary.path as NSString).deletingLastPathComponent + "/snapsort-vision"
        #expect(try InProcess.run(["--db", db, "scan", "--quiet", dir.at("Pictures")], env: ["SNAPSORT_VISION": helper]).status == 0)
        let dog = try InProcess.run(["--db", db, "info", dir.at("Pictures/spaniels.jpg")]).stdout
        let line = dog.split(separator: "\n").first { $0.hasPrefix("  models:") }.map(String.init) ?? ""
        #expect(line.contains("a dog's or a cat's") && !line.contains("for People") && line.contains("pets 0."), "\(dog)")
        let person = try InProcess.run(["--db", db, "info", dir.at("Pictures/astronaut.jpg")]).stdout
        #expect(person.contains("1 face (1 for People, eyes 0."), "\(person)")
        let json = try #require(JSON.parse(try InProcess.run(["--db", db, "info", "--json", dir.at("Pictures/spaniels.jpg")]).stdout))
        #expect(json["models"]?["people_faces"]?.intValue == 0 && json["models"]?["animal_faces"]?.intValue == 1, "\(json)")
    }

    /// Issue 32, item 2: every copy of a picture staged is a last copy, and `trash list` names
    /// the set the commit leaves nothing of; with one copy left in the library none is.
    @Test func stagingEveryCopyOfAPictureSaysTheyAreItsLastCopies() throws {
        let dir = TempDir()
        let bytes = Fixtures.jpeg(seed: 61, width: 320, height: 240, dateTimeOriginal: "2024:06:01 09:00:00")
        let copies = ["Pictures/a.jpg", "Pictures/Backup/a.jpg", "Pictures/Old/a.jpg"].map { dir.write($0, bytes) }
        dir.write("Pictures/lone.jpg", Fixtures.jpeg(seed: 62, width: 320, height: 240, dateTimeOriginal: "2021:01:01 09:00:00"))
        let db = dir.at("lib.sqlite3")
        #expect(try InProcess.run(["--db", db, "scan", "--quiet", "--no-models", dir.at("Pictures")]).status == 0)
        let groups = try InProcess.run(["--db", db, "groups", "duplicate"]).stdout
        #expect(groups.contains("Backup/a.jpg"), "\(groups)")
        func list() throws -> [String: JSON] {
            let out = try InProcess.run(["--db", db, "trash", "list", "--json"]).stdout
            let staged = try #require(JSON.parse(out)?["staged"]?.arrayValue, "\(out)")
            return Dictionary(uniqueKeysWithValues: staged.map { ($0["path"]?.stringValue ?? "", $0) })
        }
        #expect(try InProcess.run(["--db", db, "decide", "trash"] + copies + [dir.at("Pictures/lone.jpg")]).status == 0)
        let all = try list()
        for path in copies {
            let item = try #require(all[path])
            #expect(item["last_copy"]?.boolValue == true && item["last_copy_set"]?.stringValue?.hasPrefix("s") == true, "\(item)")
            // Every key the list had stays.
            for key in ["path", "bytes", "changed_since_review", "missing", "unreachable", "sidecars"] { #expect(item[key] != nil, "\(key)") }
        }
        // A lone photo is the only copy of its pixels, but it leaves no set.
        #expect(all[dir.at("Pictures/lone.jpg")]?["last_copy"]?.boolValue == true)
        #expect(all[dir.at("Pictures/lone.jpg")]?["last_copy_set"] == .null)
        let set = try #require(all[copies[0]]?["last_copy_set"]?.stringValue)
        let text = try InProcess.run(["--db", db, "trash", "list"]).stdout
        // Copies share a name: each is shown with its folder.
        let line = try #require(
            text.split(separator: "\n").first { $0.hasPrefix("3 of them are the last copies of the duplicate set of a.jpg (1 Jun 2024) (") },
            "\(text)")
        // Named by its keeper's file name and date; the id (`last_copy_set`) is for programs (issue 43).
        #expect(!line.contains(set), "\(line)")
        #expect(line.contains("Pictures/a.jpg") && line.contains("Backup/a.jpg") && line.contains("Old/a.jpg"), "\(line)")
        #expect(line.hasSuffix("nothing of it stays in the library."), "\(line)")
        // The commit's question, asked on a terminal (script(1) gives it one): answered no, nothing moves.
        if FileSystem.exists("/usr/bin/script") {
            let q = try SnapsortBinary.run(
                ["-qec", "'\(SnapsortBinary.path)' --db '\(db)' trash commit", "/dev/null"], stdin: "n\n", launcher: "/usr/bin/script")
            #expect(
                q.stdout.contains("3 of them are the last copies of the duplicate set of a.jpg (1 Jun 2024) (") && q.stdout.contains("Move 4 files"),
                "\(q)")
            #expect(copies.allSatisfy(FileSystem.exists))
        }
        // One copy kept: the others are no last copies, and nothing is named.
        #expect(try InProcess.run(["--db", db, "decide", "keep", copies[1]]).status == 0)
        let some = try list()
        #expect(some[copies[0]]?["last_copy"]?.boolValue == false && some[copies[2]]?["last_copy"]?.boolValue == false, "\(some)")
        #expect(!(try InProcess.run(["--db", db, "trash", "list"]).stdout.contains("last cop")))
    }

    /// The scan's progress line fits the terminal: the rate and the ETA give way first, then
    /// the bar shrinks; a very narrow one shows the count alone.
    @Test func theProgressLineFitsTheTerminal() {
        for columns in [120, 80, 50, 30, 12, 3] {
            let line = ProgressLine.render(done: 156, total: 190, filesPerSecond: 26, eta: "0:01", columns: columns)
            #expect(line.count < columns, "\(columns): \(line)")
            #expect(line.contains("156/190") || columns < 8, "\(columns): \(line)")
        }
        #expect(ProgressLine.render(done: 156, total: 190, filesPerSecond: 26, eta: "0:01", columns: 80).contains("ETA 0:01"))
        #expect(!ProgressLine.render(done: 156, total: 190, filesPerSecond: 26, eta: "0:01", columns: 30).contains("ETA"))
    }

    /// `decks` prints each deck id whole, however long (a camera's name): it is typed back.
    @Test func decksPrintsLongIdsWhole() throws {
        let dir = TempDir()
        dir.write(
            "Pictures/a.jpg",
            Fixtures.jpeg(seed: 51, width: 64, height: 48, dateTimeOriginal: "2024:05:01 10:00:00", make: "Canon", model: "Canon EOS R6 Mark II"))
        let db = dir.at("lib.sqlite3")
        #expect(try InProcess.run(["--db", db, "scan", "--quiet", "--no-models", dir.at("Pictures")]).status == 0)
        let decks = try InProcess.run(["--db", db, "decks"]).stdout
        let line = try #require(decks.split(separator: "\n").first { $0.hasPrefix("filter:camera=") }, "\(decks)")
        #expect(line.hasPrefix("filter:camera=Canon EOS R6 Mark II  "), "\(line)")
    }

    /// `roots add` never writes anew a configuration it could not read whole: a Latin-1 byte in
    /// a comment cost every other line.
    @Test func rootsAddLeavesAFileThatIsNotUTF8Alone() throws {
        let dir = TempDir()
        let photos = dir.folder("photos")
        let conf = dir.at("config/snapsort/snapsort.conf")
        let original = Array("# Photos de l'".utf8) + [0xE9] + Array("t\u{E9}\nroot = \(dir.at("lib"))\nsession_goal = 50\n".utf8)
        dir.write("config/snapsort/snapsort.conf", original)
        let env = ["XDG_CONFIG_HOME": dir.at("config"), "HOME": dir.path]
        let add = try InProcess.run(["roots", "add", photos], env: env)
        #expect(add.status == 1 && add.stderr.contains("line 1") && add.stderr.contains("nothing was changed"), "\(add.stderr)")
        #expect(try FileSystem.readFile(conf, limit: 4096) == original)
        // The other lines still count, and the byte is reported.
        let config = try InProcess.run(["config"], env: env)
        #expect(config.stdout.contains("session_goal = 50") && config.stderr.contains("not UTF-8"), "\(config.stdout)\n\(config.stderr)")
    }

    /// A configured root that is not there and was never scanned is a typo to point out, not
    /// only an offline disk; the other roots are scanned.
    @Test func aConfiguredRootThatIsNotThereIsSaid() throws {
        let dir = TempDir()
        dir.write("Pictures/a.jpg", Fixtures.jpeg(seed: 5, width: 64, height: 48))
        dir.write("config/snapsort/snapsort.conf", Array("root = \(dir.at("Pictures"))\nroot = \(dir.at("Pictrues"))\n".utf8))
        let env = ["XDG_CONFIG_HOME": dir.at("config"), "HOME": dir.path]
        let config = try InProcess.run(["config"], env: env)
        #expect(config.stderr.contains("the root \(dir.at("Pictrues")) is not there"), "\(config.stderr)")
        let db = dir.at("lib.sqlite3")
        let scan = try InProcess.run(["--db", db, "scan", "--no-models"], env: env)
        #expect(
            scan.status == 0 && scan.stderr.contains("\(dir.at("Pictrues")) in snapsort.conf is not there and was never scanned"), "\(scan.stderr)")
        #expect(try InProcess.run(["--db", db, "report", "--jsonl"]).stdout.split(separator: "\n").count == 1)
    }

    /// Roots inside one another, or one folder twice, are scanned once (each file one row).
    @Test func nestedAndRepeatedRootsAreScannedOnce() throws {
        let dir = TempDir()
        dir.write("Pictures/a.jpg", Fixtures.jpeg(seed: 3, width: 64, height: 48))
        dir.write("Pictures/sub/b.jpg", Fixtures.jpeg(seed: 4, width: 64, height: 48))
        let db = dir.at("lib.sqlite3")
        let scan = try InProcess.run(
            ["--db", db, "scan", "--quiet", "--no-models", dir.at("Pictures/sub"), dir.at("Pictures"), dir.at("Pictures") + "/"])
        #expect(scan.status == 0, "\(scan.stderr)")
        let report = try InProcess.run(["--db", db, "report", "--jsonl"])
        #expect(report.stdout.split(separator: "\n").count == 2, "\(report.stdout)")
    }

    /// A damaged library (a bad page) is named as such with where its backups are, by the
    /// quick commands when they read the page and by `scan`'s integrity check at its start;
    /// nothing crashes and nothing is written.
    @Test func aDamagedLibraryIsNamedWithItsBackups() throws {
        let dir = TempDir()
        dir.write("Pictures/a.jpg", Fixtures.jpeg(seed: 91, width: 96, height: 72))
        let db = dir.at("lib.sqlite3")
        #expect(try InProcess.run(["--db", db, "scan", "--quiet", "--no-models", dir.at("Pictures")]).status == 0)
        try DatabaseDamage.breakTable(db, "files")
        let before = try FileSystem.readFile(db, limit: 1 << 26)
        for args in [["report", "--jsonl"], ["decide", "keep", dir.at("Pictures/a.jpg")], ["scan", "--quiet", "--no-models", dir.at("Pictures")]] {
            let r = try InProcess.run(["--db", db] + args)
            #expect(r.status == 1, "\(args): \(r.status) \(r.stderr)")
            #expect(r.stderr.contains("is damaged") && r.stderr.contains(".backup-"), "\(args): \(r.stderr)")
            // With the CLI alone no agent made a backup: said, with how to start over (review 7, L7).
            #expect(r.stderr.contains("There is no backup beside it"), "\(args): \(r.stderr)")
        }
        // A backup there is named, with the command that puts one back (issue 40).
        dir.write("lib.sqlite3.backup-20261130-101500", Array(before.prefix(4096)))
        let named = try InProcess.run(["--db", db, "report", "--jsonl"])
        #expect(named.stderr.contains("Backups beside it: \(dir.at("lib.sqlite3.backup-20261130-101500"))"), "\(named.stderr)")
        #expect(named.stderr.contains("'snapsort backup restore'"), "\(named.stderr)")
        #expect(try FileSystem.readFile(db, limit: 1 << 26) == before)
    }

    /// `trash list` keeps one line per file whatever its name; a restore that is refused (a
    /// file in the way) exits 4 as the usage says, and says why; `resume` says when nothing
    /// was paused.
    /// The list's total counts what goes with the staged photos (an .xmp here; a RAW or a clip
    /// weigh more): it said the photos' bytes alone (review 8).
    @Test func theTrashListTotalCountsWhatGoesWithThePhotos() throws {
        let f = CLIFolder(photos: ["a.jpg": 98])
        let photo = Fixtures.jpeg(seed: 98, width: 96, height: 72)
        let xmp = Array(String(repeating: "<x:xmpmeta/>", count: 400).utf8)
        f.dir.write("Pictures/a.jpg.xmp", xmp)
        #expect(try f.scan().status == 0)
        #expect(try f.run(["decide", "trash", f.photo("a.jpg")]).status == 0)
        let list = try f.run(["trash", "list"]).stdout
        let total = Double(photo.count + xmp.count) / 1000
        #expect(list.contains("1 staged, \(String(format: total < 10 ? "%.1f kB" : "%.0f kB", total)) with the file that goes with them"), "\(list)")
        let json = try #require(JSON.parse(try f.run(["trash", "list", "--json"]).stdout))
        #expect(json["staged_bytes"]?.intValue == photo.count && json["sidecar_bytes"]?.intValue == xmp.count)
    }

    /// A misspelt group is a usage error as a misspelt filter is (exit 2; it was 1) (review 8).
    @Test func anUnknownDeckIsAUsageErrorWhateverItsKind() throws {
        let f = CLIFolder()
        _ = try f.scan()
        let group = try f.run(["decks", "--show", "group:blury"])
        let filter = try f.run(["decks", "--show", "filter:favorites"])
        #expect(group.status == 2 && filter.status == 2 && group.stderr.contains("unknown group 'blury'"), "\(group.stderr) \(filter.stderr)")
        #expect(try f.run(["decks", "--show", "group:blurry"]).status == 0)
    }

    /// stats says a goal it cannot read, as config and review do (review 8).
    @Test func statsSaysAGoalItCannotRead() throws {
        let f = CLIFolder()
        f.dir.write("config/snapsort/snapsort.conf", Array("session_goal = lots\n".utf8))
        _ = try f.scan()
        let r = try f.run(["stats"])
        #expect(r.status == 0 && r.stderr.contains("session_goal") && r.stdout.contains("reviewed · goal 25"), "\(r.stdout) \(r.stderr)")
    }

    @Test func anUndoRightAfterACommitSaysSoAndTakesNothingBack() throws {
        let f = CLIFolder(photos: ["a.jpg": 96, "b.jpg": 97])
        #expect(try f.scan().status == 0)
        #expect(try f.run(["decide", "keep", f.photo("a.jpg")]).status == 0)
        #expect(try f.run(["decide", "trash", f.photo("b.jpg")]).status == 0)
        #expect(try f.run(["trash", "commit", "--yes"]).status == 0)
        // The keep of a, an older and unrelated decision, was taken back silently (review 8).
        let undo = try f.run(["undo"])
        #expect(undo.status == 1 && undo.stderr.contains("nothing undone: the last commit moved 1 file") && undo.stderr.contains("--past-commit"))
        let lib = try Library(path: f.db)
        let a = try #require(try lib.item(path: f.photo("a.jpg")))
        #expect(try Review.decision(for: a.id, library: lib)?.decision == .keep)
        let past = try f.run(["undo", "--past-commit"])
        #expect(past.status == 0 && past.stdout.contains("undid keep"), "\(past.stdout) \(past.stderr)")
        #expect(try Review.decision(for: a.id, library: lib) == nil)
    }

    /// `trash restore` is an undo step, and `undo` says what it took back: the photo put back
    /// from the Trash is staged again, still in its folder (the next commit asks first).
    @Test func aRestoreIsTakenBackByUndo() throws {
        let f = CLIFolder(photos: ["a.jpg": 93, "b.jpg": 94])
        let run = f.run
        let a = f.photo("a.jpg"), b = f.photo("b.jpg")
        #expect(try f.scan().status == 0)
        #expect(try run(["decide", "trash", a]).status == 0)
        #expect(try run(["trash", "commit", "--yes"]).status == 0)
        #expect(try run(["decide", "trash", b]).status == 0)
        #expect(try run(["trash", "restore", a, b]).status == 0)
        let listed = JSON.parse(try run(["trash", "list", "--json"]).stdout)
        #expect(FileSystem.exists(a) && listed?["staged_count"]?.intValue == 0)
        let undo = try run(["undo"])
        #expect(
            undo.status == 0 && undo.stdout.contains("undid the restore of") && undo.stdout.contains("and 1 more of the same restore"),
            "\(undo.stdout)\(undo.stderr)")
        let list = JSON.parse(try run(["trash", "list", "--json"]).stdout)
        #expect(Set(list?["staged"]?.arrayValue?.compactMap { $0["path"]?.stringValue } ?? []) == [a, b], "\(list?.serialized() ?? "")")
        #expect(FileSystem.exists(a) && FileSystem.exists(b))
        // Then b's staging, then nothing (a's was sealed by its commit).
        #expect(try run(["undo"]).stdout.contains("undid trash on"))
        #expect(try run(["undo"]).status == 1)
    }

    /// A deck of what was reviewed already (Favourites and kept) is to look back on: it
    /// said "1 waiting, 1/1 reviewed".
    @Test func aDeckOfKeptPhotosIsToLookBackOn() throws {
        let f = CLIFolder(photos: ["a.jpg": 91])
        #expect(try f.scan().status == 0)
        #expect(try f.run(["decide", "keep", f.photo("a.jpg")]).status == 0)
        let decks = try f.run(["decks"]).stdout.split(separator: "\n")
        let favourites = try #require(decks.first { $0.hasPrefix("filter:favourites") }, "\(decks)")
        #expect(favourites.hasSuffix("1 to look back on, all reviewed"), "\(favourites)")
    }

    @Test func trashListAndRestoreAndResumeSayWhatHappened() throws {
        let f = CLIFolder(photos: ["new\nline.jpg": 95])
        let photo = f.photo("new\nline.jpg")
        #expect(try f.scan().status == 0)
        #expect(try f.run(["decide", "trash", photo]).status == 0)
        let list = try f.run(["trash", "list"])
        #expect(list.stdout.split(separator: "\n").contains { $0.hasSuffix("Pictures/new\\nline.jpg") }, "\(list.stdout)")
        #expect(try f.run(["trash", "commit", "--yes"]).status == 0)
        // The commit is not undone by undo, which says so (here nothing else is left).
        let undo = try f.run(["undo"])
        #expect(undo.status == 1 && undo.stderr.contains("the last commit moved 1 file to the Trash"), "\(undo.stderr)")
        // What is in the Trash is listed by name (escaped), so it can be put back by name.
        let after = try f.run(["trash", "list"]).stdout.split(separator: "\n")
        let heading = try #require(after.firstIndex { $0.hasPrefix("In the Trash") }, "\(after)")
        #expect(after.dropFirst(heading + 1).first?.hasSuffix("Pictures/new\\nline.jpg") == true, "\(after)")
        f.dir.write("Pictures/new\nline.jpg", [1, 2, 3])
        let refused = try f.run(["trash", "restore", photo])
        #expect(refused.status == 4 && refused.stdout.contains("not overwritten"), "\(refused.status) \(refused.stdout)")
        let resume = try f.run(["resume"])
        #expect(resume.status == 0 && resume.stderr.contains("was not paused"), "\(resume.stderr)")
    }

    /// `info` on what is never an item says what it is (a link said "Too many levels of symbolic
    /// links", a FIFO "empty (0 bytes)"); `roots add /` is refused.
    @Test func infoOnALinkOrAFIFOAndRootsAddSlash() throws {
        let dir = TempDir()
        let photo = dir.write("Pictures/a.jpg", Fixtures.jpeg(seed: 77, width: 64, height: 48))
        #expect(symlink(photo, dir.at("Pictures/link.jpg")) == 0)
        #expect(mkfifo(dir.at("Pictures/pipe.jpg"), 0o600) == 0)
        let db = dir.at("lib.sqlite3")
        #expect(try InProcess.run(["--db", db, "scan", "--quiet", "--no-models", dir.at("Pictures")]).status == 0)
        let link = try InProcess.run(["--db", db, "info", dir.at("Pictures/link.jpg")])
        #expect(link.status == 1 && link.stderr.contains("is a symbolic link (to \(photo))"), "\(link.stderr)")
        let fifo = try InProcess.run(["--db", db, "info", dir.at("Pictures/pipe.jpg")])
        #expect(fifo.status == 1 && fifo.stderr.contains("is not a regular file"), "\(fifo.stderr)")
        let slash = try InProcess.run(["roots", "add", "/"], env: ["XDG_CONFIG_HOME": dir.at("config"), "HOME": dir.path])
        #expect(slash.status == 1 && !FileSystem.exists(dir.at("config/snapsort/snapsort.conf")), "\(slash.stderr)")
        // A folder whose name holds a line break: refused (the name escaped), the file untouched.
        let odd = dir.folder("new\nline")
        let newline = try InProcess.run(["roots", "add", odd], env: ["XDG_CONFIG_HOME": dir.at("config"), "HOME": dir.path])
        #expect(newline.status == 1 && newline.stderr.contains("new\\nline: a name with a line break"), "\(newline.stderr)")
        #expect(!FileSystem.exists(dir.at("config/snapsort/snapsort.conf")))
    }

    /// `info` on a staged file that changed since it was reviewed says what the commit will do
    /// with it (leave it), as `trash list` does.
    @Test func infoSaysAStagedFileChangedSinceReview() throws {
        let dir = TempDir()
        let a = dir.write("Pictures/a.jpg", Fixtures.jpeg(seed: 61, width: 64, height: 48))
        let db = dir.at("lib.sqlite3")
        #expect(try InProcess.run(["--db", db, "scan", "--quiet", "--no-models", dir.at("Pictures")]).status == 0)
        #expect(try InProcess.run(["--db", db, "decide", "trash", a]).status == 0)
        #expect(try InProcess.run(["--db", db, "info", a]).stdout.contains("decision:  trash (staged: 'snapsort trash commit'"))
        dir.write("Pictures/a.jpg", Fixtures.jpeg(seed: 62, width: 64, height: 48))
        let info = try InProcess.run(["--db", db, "info", a])
        #expect(info.stdout.contains("changed since it was reviewed: a commit leaves it in place"), "\(info.stdout)")
        let json = JSON.parse(try InProcess.run(["--db", db, "info", "--json", a]).stdout)
        #expect(json?["changed_since_review"]?.boolValue == true, "\(String(describing: json))")
    }

    /// `forget DIR` drops the folder's rows and says which decisions went with them; its files
    /// stay where they are.
    @Test func forgetSaysWhichDecisionsGo() throws {
        let dir = TempDir()
        let a = dir.write("Pictures/Old/a.jpg", Fixtures.jpeg(seed: 97, width: 64, height: 48))
        let b = dir.write("Pictures/Old/b.jpg", Fixtures.jpeg(seed: 98, width: 64, height: 48))
        dir.write("Pictures/Keep/c.jpg", Fixtures.jpeg(seed: 99, width: 64, height: 48))
        let db = dir.at("lib.sqlite3")
        #expect(try InProcess.run(["--db", db, "scan", "--quiet", "--no-models", dir.at("Pictures")]).status == 0)
        #expect(try InProcess.run(["--db", db, "decide", "trash", a]).status == 0)
        #expect(try InProcess.run(["--db", db, "decide", "keep", b]).status == 0)
        let r = try InProcess.run(["--db", db, "forget", dir.at("Pictures/Old")])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("forgot 2 items") && r.stderr.contains("1 kept") && r.stderr.contains("1 staged for the Trash"), "\(r.stderr)")
        #expect(FileSystem.exists(a) && FileSystem.exists(b))
        let report = try InProcess.run(["--db", db, "report", "--jsonl"])
        #expect(report.stdout.split(separator: "\n").count == 1)
    }

    /// A photo the scan may not read (its permissions) is tried again by every scan: nothing is
    /// written while it still fails, and once its permissions allow, it is analyzed and leaves
    /// Unreadable (it had been offered there for the Trash).
    /// A library read while it was read-only leaves SQLite's `-shm` read-only: made writable
    /// again, it still cannot be written, and the message names the `-shm` (it blamed the file
    /// and its folder, both writable). Review 7, F6.
    @Test func aReadOnlyWorkingFileLeftBesideTheLibraryIsNamed() throws {
        let dir = TempDir()
        let photo = dir.write("Pictures/a.jpg", Fixtures.jpeg(seed: 83, width: 96, height: 72))
        let db = dir.at("lib.sqlite3")
        #expect(try InProcess.run(["--db", db, "scan", "--quiet", "--no-models", dir.at("Pictures")]).status == 0)
        chmod(db, 0o444)
        #expect(try SnapsortBinary.runUnprivileged(["--db", db, "groups"]).status == 0)
        chmod(db, 0o644)
        guard FileSystem.exists(db + "-shm"), access(db + "-shm", W_OK) == 0 || geteuid() == 0 else { return }
        chmod(db + "-shm", 0o444)
        let decide = try SnapsortBinary.runUnprivileged(["--db", db, "decide", "keep", photo])
        #expect(
            decide.status == 1
                && decide.stderr.contains("its lib.sqlite3-shm (SQLite's working file, left read-only by an earlier opening) is not writable"),
            "\(decide.stderr)")
    }

    /// A new user's first scan: without ~/Pictures, and with an empty one, the scan says where
    /// to go (the note blamed a snapsort.conf that did not exist and proposed a 'roots remove'
    /// that failed). Review 7, F2.
    @Test func aFirstScanWithoutPhotosPointsToRootsAndTheDemo() throws {
        let dir = TempDir()
        let env = ["HOME": dir.path, "XDG_CONFIG_HOME": dir.at("config"), "XDG_STATE_HOME": dir.at("state"), "XDG_DATA_HOME": dir.at("share")]
        let none = try InProcess.run(["scan", "--no-models"], env: env)
        #expect(none.status == 0 && none.stderr.contains("no photos folder yet") && none.stderr.contains("'snapsort demo --scan'"), "\(none.stderr)")
        #expect(!none.stderr.contains("snapsort.conf") && !none.stderr.contains("roots remove"), "\(none.stderr)")
        dir.folder("Pictures")
        let empty = try InProcess.run(["scan", "--no-models"], env: env)
        #expect(empty.status == 0 && empty.stderr.contains("no photos in") && empty.stderr.contains("'snapsort demo --scan'"), "\(empty.stderr)")
        // A file under a folder that cannot be searched is "permission denied", not "no such
        // file" (review 7, L3).
        let locked = dir.folder("Locked")
        dir.write("Locked/x.jpg", Fixtures.jpeg(seed: 2, width: 32, height: 32))
        chmod(locked, 0o600)
        defer { chmod(locked, 0o755) }
        let denied = try SnapsortBinary.runUnprivileged(["info", dir.at("Locked/x.jpg")], env: env)
        #expect(denied.status == 1 && denied.stderr.contains("permission denied"), "\(denied.stderr)")
        // A report of a folder that never was (a typo) says so, as scan does (review 7, L2).
        let typo = try InProcess.run(["report", "--jsonl", dir.at("Pictres")], env: env)
        #expect(typo.status == 1 && typo.stderr.contains("no such file or folder"), "\(typo.stderr)")
    }

    @Test func aPhotoDeniedToTheScanIsReadOnceItsPermissionsAllow() throws {
        let dir = TempDir()
        dir.write("Pictures/a.jpg", Fixtures.jpeg(seed: 81, width: 96, height: 72))
        dir.write("Pictures/b.jpg", Fixtures.jpeg(seed: 82, width: 96, height: 72))
        let db = dir.at("lib.sqlite3")
        let locked = dir.at("Pictures/b.jpg")
        chmod(locked, 0)
        let scan = { try SnapsortBinary.runUnprivileged(["--db", db, "scan", "--quiet", dir.at("Pictures")]) }
        let first = try scan()
        #expect(first.status == 0, "\(first.stderr)")
        let lib = try Library(path: db)
        func row() throws -> Row? { try lib.db.rows("SELECT status, reason_code, analyzed_at FROM files WHERE path = ?", locked).first }
        #expect(try row()?.string(0) == "unreadable")
        #expect(try row()?.string(1) == "permission")
        // No clutter: a good photo its permissions hide is not offered for the Trash (review 8, F6);
        // `info` says why it is not read.
        #expect(try !InProcess.run(["--db", db, "groups", "unreadable"]).stdout.contains("b.jpg"))
        let info = try InProcess.run(["--db", db, "info", locked])
        #expect(info.stdout.contains("permission denied") && info.stdout.contains("once they allow"), "\(info.stdout)")
        // Still denied: read again, nothing written, nothing regrouped.
        try lib.db.run("UPDATE files SET analyzed_at = '2000-01-01T00:00:00Z' WHERE path = ?", locked)
        try lib.db.run("DELETE FROM grouped_files")
        #expect(try scan().status == 0)
        #expect(try row()?.string(2) == "2000-01-01T00:00:00Z")
        #expect(try lib.db.scalar("SELECT count(*) FROM grouped_files") == 0)
        // Allowed: analyzed in its row, regrouped, out of Unreadable.
        chmod(locked, 0o644)
        let fixed = try scan()
        #expect(fixed.status == 0, "\(fixed.stderr)")
        #expect(try row()?.string(0) == "ok")
        #expect(try row()?.string(1) == nil)
        #expect(try lib.db.scalar("SELECT count(*) FROM files") == 2)
        // Regrouped: the file that changed (a regroup of a few changes reads them from
        // `regroup_dirty`; the other file's row, emptied by hand above, is no change of its own).
        #expect(try lib.db.scalar("SELECT count(*) FROM grouped_files WHERE file_id = (SELECT id FROM files WHERE path = ?)", locked) == 1)
        #expect(try !InProcess.run(["--db", db, "groups", "unreadable"]).stdout.contains("b.jpg"))
    }

    /// Typos are errors, said as one line: a folder to scan that is not there and never was
    /// (an offline disk that was scanned keeps its rows, see LibraryScannerTests), `info` on a
    /// folder; a folder the scan cannot list is named.
    @Test func typosAndUnreadableFoldersAreNamed() throws {
        let dir = TempDir()
        dir.write("Pictures/a.jpg", Fixtures.jpeg(seed: 85, width: 96, height: 72))
        dir.write("Pictures/locked/b.jpg", Fixtures.jpeg(seed: 86, width: 96, height: 72))
        let db = dir.at("lib.sqlite3")
        let typo = try InProcess.run(["--db", db, "scan", "--quiet", dir.at("Pictrues")])
        #expect(typo.status == 1)
        #expect(typo.stderr.contains("Pictrues: no such file or folder"), "\(typo.stderr)")
        #expect(try InProcess.run(["--db", db, "scan", "--quiet", dir.at("Pictures")]).status == 0)
        let info = try InProcess.run(["--db", db, "info", dir.at("Pictures")])
        #expect(info.status == 1)
        #expect(info.stderr.contains("is a folder"), "\(info.stderr)")
        // A known root that went away is offline, not a typo.
        let moved = dir.at("Elsewhere")
        #expect(rename(dir.at("Pictures"), moved) == 0)
        let offline = try InProcess.run(["--db", db, "scan", dir.at("Pictures")])
        #expect(offline.status == 0, "\(offline.stderr)")
        #expect(offline.stderr.contains("offline (kept as is)"))
        #expect(rename(moved, dir.at("Pictures")) == 0)
        chmod(dir.at("Pictures/locked"), 0)
        defer { chmod(dir.at("Pictures/locked"), 0o755) }
        let locked = try SnapsortBinary.runUnprivileged(["--db", db, "scan", dir.at("Pictures")])
        #expect(locked.status == 4)
        #expect(locked.stderr.contains("1 folder could not be read; its items were kept:\n  " + dir.at("Pictures/locked")), "\(locked.stderr)")
        // Listed but not entered (r-- without x): its files cannot be read either, and it says so.
        chmod(dir.at("Pictures/locked"), 0o644)
        let listable = try SnapsortBinary.runUnprivileged(["--db", db, "scan", dir.at("Pictures")])
        #expect(listable.status == 4)
        #expect(listable.stderr.contains("1 folder could not be read; its items were kept:\n  " + dir.at("Pictures/locked")), "\(listable.stderr)")
        #expect(try InProcess.run(["--db", db, "report", "--jsonl"]).stdout.split(separator: "\n").count == 2)
    }

    /// `pause DURATION`: a day or more says the date it ends; an absurd one is a usage error.
    @Test func pauseSaysWhenItEnds() throws {
        let dir = TempDir()
        let db = dir.at("lib.sqlite3")
        dir.folder("Pictures")
        #expect(try InProcess.run(["--db", db, "scan", "--quiet", dir.at("Pictures")]).status == 0)
        let days = try InProcess.run(["--db", db, "pause", "3d"])
        #expect(days.status == 0)
        let date = Date().addingTimeInterval(3 * 86400)
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.dateFormat = "yyyy-MM-dd"
        #expect(days.stderr.contains("analysis paused until \(f.string(from: date)) "), "\(days.stderr)")
        let absurd = try InProcess.run(["--db", db, "pause", "99999999999d"])
        #expect(absurd.status == 2)
        #expect(absurd.stderr.contains("at most 366d"))
        #expect(try InProcess.run(["--db", db, "resume"]).status == 0)
    }

    /// `roots`: add, list and remove through snapsort.conf; a nested root is pointed out; removing
    /// what is not a root is an error said like every other.
    @Test func rootsAreAddedListedAndRemoved() throws {
        let dir = TempDir()
        let env = ["XDG_CONFIG_HOME": dir.at("config"), "HOME": dir.path]
        dir.folder("Photos/Phone")
        let add = try InProcess.run(["roots", "add", dir.at("Photos")], env: env)
        #expect(add.status == 0, "\(add.stderr)")
        // A folder inside a root is covered by it: said, and not added (the review issue: it
        // was said and added all the same).
        let nested = try InProcess.run(["roots", "add", dir.at("Photos/Phone")], env: env)
        #expect(
            nested.status == 0 && nested.stderr.contains("is inside the root \(dir.at("Photos")), which already covers it: not added"),
            "\(nested.stderr)")
        #expect(try InProcess.run(["roots", "list"], env: env).stdout == dir.at("Photos") + "\n")
        let missing = try InProcess.run(["roots", "remove", dir.at("Elsewhere")], env: env)
        #expect(missing.status == 1 && missing.stderr == "snapsort: \(dir.at("Elsewhere")) is not a configured root\n")
        // A folder holding a root is added, and the root inside it is pointed out.
        dir.folder("All/Phone")
        #expect(try InProcess.run(["roots", "add", dir.at("All/Phone")], env: env).status == 0)
        let outer = try InProcess.run(["roots", "add", dir.at("All")], env: env)
        #expect(outer.status == 0 && outer.stderr.contains("note: the root \(dir.at("All/Phone")) is inside \(dir.at("All"))"), "\(outer.stderr)")
        #expect(try InProcess.run(["roots", "remove", dir.at("All/Phone")], env: env).status == 0)
        #expect(try InProcess.run(["roots", "remove", dir.at("All")], env: env).status == 0)
        #expect(try InProcess.run(["roots", "add", dir.at("nope")], env: env).status == 1)
    }

    /// The first root added keeps the pictures folder that was watched by default (adding a
    /// card's folder stopped watching ~/Pictures without a word, review 8), and says so.
    @Test func theFirstRootAddedKeepsThePicturesFolder() throws {
        let dir = TempDir()
        let env = ["XDG_CONFIG_HOME": dir.at("config"), "HOME": dir.path]
        dir.folder("Pictures")
        dir.folder("usb/DCIM")
        let add = try InProcess.run(["roots", "add", dir.at("usb/DCIM")], env: env)
        #expect(add.status == 0 && add.stderr.contains("\(dir.at("Pictures")) stays watched"), "\(add.stderr)")
        #expect(try InProcess.run(["roots", "list"], env: env).stdout == dir.at("Pictures") + "\n" + dir.at("usb/DCIM") + "\n")
        // Roots configured already: nothing is added behind the user's back.
        dir.folder("more")
        let again = try InProcess.run(["roots", "add", dir.at("more")], env: env)
        #expect(again.status == 0 && !again.stderr.contains("stays watched"))
    }

    /// A name with a newline or tab stays one record in tab-separated output (escaped, as
    /// `report --jsonl` escapes it in JSON).
    @Test func tabSeparatedLinesEscapeControlCharactersInNames() throws {
        let dir = TempDir()
        dir.write("Pictures/new\nline\tand\\.jpg", Fixtures.jpeg(seed: 88, width: 96, height: 72))
        let db = dir.at("lib.sqlite3")
        #expect(try InProcess.run(["--db", db, "scan", "--quiet", "--no-models", dir.at("Pictures")]).status == 0)
        let r = try InProcess.run(["--db", db, "decide", "trash", dir.at("Pictures/new\nline\tand\\.jpg")])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout == "trash\t" + dir.at("Pictures") + "/new\\nline\\tand\\\\.jpg\n")
    }

    @Test func anUnchangedRescanIsNotRegroupedButAnInterruptedOneIs() throws {
        let dir = TempDir()
        dir.write("Pictures/a.jpg", Fixtures.jpeg(seed: 71, width: 96, height: 72))
        dir.write("Pictures/b.jpg", Fixtures.jpeg(seed: 72, width: 96, height: 72))
        let db = dir.at("lib.sqlite3")
        let scan = { try InProcess.run(["--db", db, "scan", "--quiet", dir.at("Pictures")]) }
        #expect(try scan().status == 0)
        let lib = try Library(path: db)
        #expect(try lib.db.scalar("SELECT count(*) FROM grouped_files") == 2)
        #expect(try lib.agentState(LibraryScanner.regroupPendingKey) == nil)
        // Nothing changed: the rescan does not regroup (the emptied table stays empty).
        try lib.db.run("DELETE FROM grouped_files")
        #expect(try scan().status == 0)
        #expect(try lib.db.scalar("SELECT count(*) FROM grouped_files") == 0)
        // A scan that changed rows and died before regrouping leaves the mark, and its rows in
        // `regroup_dirty` (kept by triggers as each row is written): the next one regroups them —
        // the changed row only (b's row, emptied by hand above, is no change of b's).
        try lib.db.run("UPDATE files SET analyzed_at = '2001-01-01T00:00:00Z' WHERE path = ?", dir.at("Pictures/a.jpg"))
        try lib.setAgentState(LibraryScanner.regroupPendingKey, "1", at: Date())
        #expect(try scan().status == 0)
        #expect(
            try lib.db.scalar("SELECT count(*) FROM grouped_files WHERE file_id = (SELECT id FROM files WHERE path = ?)", dir.at("Pictures/a.jpg"))
                == 1)
        #expect(try lib.db.scalar("SELECT count(*) FROM regroup_dirty") == 0)
        #expect(try lib.agentState(LibraryScanner.regroupPendingKey) == nil)
        // Groups made under an older version's rules: the first rescan after the upgrade
        // regroups, once.
        let current = try #require(try lib.agentState(Grouper.fileRulesKey))
        try lib.setAgentState(Grouper.fileRulesKey, "files1", at: Date())
        try lib.db.run("DELETE FROM grouped_files")
        #expect(try scan().status == 0)
        #expect(try lib.db.scalar("SELECT count(*) FROM grouped_files") == 2)
        #expect(try lib.agentState(Grouper.fileRulesKey) == current)
        try lib.db.run("DELETE FROM grouped_files")
        #expect(try scan().status == 0)
        #expect(try lib.db.scalar("SELECT count(*) FROM grouped_files") == 0)
    }

    /// `scan --no-groups` analyzes only: no QR decoding, no groups, the regroup left pending; the
    /// next scan decodes the code and groups (what bench/throughput.py's engine-only run skips).
    @Test func aScanWithoutGroupsLeavesThemToTheNextScan() throws {
        let dir = TempDir()
        let ticket = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../Fixtures/qr/ticket.png").standardized.path
        dir.write("Pictures/ticket.png", try FileSystem.readFile(ticket, limit: 1 << 20))
        dir.write("Pictures/a.jpg", Fixtures.jpeg(seed: 71, width: 96, height: 72))
        let db = dir.at("lib.sqlite3")
        let first = try InProcess.run(["--db", db, "scan", "--quiet", "--no-models", "--no-groups", dir.at("Pictures")])
        #expect(first.status == 0, "\(first.stderr)")
        let lib = try Library(path: db)
        #expect(try lib.db.scalar("SELECT count(*) FROM files WHERE status = 'ok'") == 2)
        #expect(try lib.db.scalar("SELECT count(*) FROM grouped_files") == 0)
        #expect(try lib.db.scalar("SELECT count(*) FROM file_findings") == 0)
        #expect(try lib.agentState(LibraryScanner.regroupPendingKey) != nil)
        let second = try InProcess.run(["--db", db, "scan", "--quiet", "--no-models", dir.at("Pictures")])
        #expect(second.status == 0, "\(second.stderr)")
        #expect(try lib.db.scalar("SELECT count(*) FROM grouped_files") == 2)
        #expect(try lib.db.scalar("SELECT count(*) FROM group_members WHERE group_id = 'qr'") == 1)
        #expect(try lib.agentState(LibraryScanner.regroupPendingKey) == nil)
    }

    /// `info` shows what the scan read on a page and where a code points; a photo that passed
    /// no gate shows neither.
    @Test func infoShowsAPagesTextAndACodesPayload() throws {
        let dir = TempDir()
        let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../Fixtures").standardized.path
        dir.write("Pictures/ticket.png", try FileSystem.readFile(fixtures + "/qr/ticket.png", limit: 1 << 20))
        dir.write("Pictures/letter.png", try FileSystem.readFile(fixtures + "/ocr/page.png", limit: 1 << 22))
        dir.write("Pictures/a.jpg", Fixtures.jpeg(seed: 71, width: 96, height: 72))
        let db = dir.at("lib.sqlite3")
        let scan = try InProcess.run(["--db", db, "scan", "--quiet", "--no-models", dir.at("Pictures")])
        #expect(scan.status == 0, "\(scan.stderr)")
        func info(_ name: String) throws -> JSON {
            let r = try InProcess.run(["--db", db, "info", "--json", dir.at("Pictures/" + name)])
            #expect(r.status == 0, "\(r.stderr)")
            return try #require(JSON.parse(r.stdout))
        }
        let letter = try info("letter.png")
        #expect((letter["text_words"]?.intValue ?? 0) >= 60)
        #expect(letter["text"]?.stringValue?.contains("students") == true)
        #expect(letter["qr"] == nil)
        let ticket = try info("ticket.png")
        #expect(ticket["qr"]?.stringValue == "https://example.com/t/SNAPSORT-42")
        let plain = try info("a.jpg")
        #expect(plain["text"] == nil && plain["qr"] == nil)
        #expect(plain["decision"] == .null)
        #expect(try InProcess.run(["--db", db, "decide", "trash", dir.at("Pictures/a.jpg")]).status == 0)
        #expect(try info("a.jpg")["decision"]?.stringValue == "trash")
        let human = try InProcess.run(["--db", db, "info", dir.at("Pictures/letter.png")])
        #expect(human.stdout.contains("  text:      ") && human.stdout.contains("students"), "\(human.stdout)")
        #expect(try InProcess.run(["--db", db, "info", dir.at("Pictures/a.jpg")]).stdout.contains("  decision:  trash (staged"))
        // A file outside the library is read on the spot, and nothing is stored.
        let outside = dir.write("elsewhere/ticket.png", try FileSystem.readFile(fixtures + "/qr/ticket.png", limit: 1 << 20))
        let r = try InProcess.run(["--db", db, "info", "--json", outside])
        let o = try #require(JSON.parse(r.stdout))
        #expect(o["in_library"]?.boolValue == false)
        #expect(o["qr"]?.stringValue == "https://example.com/t/SNAPSORT-42", "\(r.stdout)")
        #expect(try InProcess.run(["--db", db, "info", outside]).stdout.contains("(not in the library: read now, nothing stored)"))
        #expect(try Library(path: db).db.scalar("SELECT count(*) FROM files") == 3)
    }

    @Test func infoOnAFileOutsideTheLibrary() throws {
        let dir = TempDir()
        let f = dir.write("x/IMG_1.jpg", Fixtures.jpeg(seed: 2, dateTimeOriginal: "2020:02:02 02:02:02", make: "Fuji", model: "X"))
        let r = try InProcess.run(["--db", dir.at("lib.sqlite3"), "info", "--json", f])
        #expect(r.status == 0)
        let o = try #require(JSON.parse(r.stdout))
        #expect(o["in_library"]?.boolValue == false)
        #expect(o["taken_at"]?.stringValue == "2020-02-02T02:02:02")
        #expect(o["width"]?.intValue == 640)
        #expect(!FileSystem.exists(dir.at("lib.sqlite3")))  // info does not create a library
    }

    /// A named library (--db, SNAPSORT_DB) that is not there is an error for the commands that
    /// read one (a typo must not look like an empty library), and is created only by a scan.
    @Test func aMistypedDatabaseIsAnErrorNotANewEmptyLibrary() throws {
        let dir = TempDir()
        let db = dir.at("missing/dir/lib.sqlite3")
        for args in [["status"], ["groups"], ["report", "--jsonl"], ["decks"], ["stats"], ["trash", "list"]] {
            let r = try InProcess.run(["--db", db] + args)
            #expect(r.status == 1, "\(args)")
            #expect(r.stderr.contains("no library at \(db)"), "\(args): \(r.stderr)")
            let e = try InProcess.run(args, env: ["SNAPSORT_DB": db])
            #expect(e.status == 1, "\(args)")
        }
        #expect(!FileSystem.exists(dir.at("missing")))
        #expect(try InProcess.run(["--db", "", "status"]).status == 2)
        dir.write("Pictures/a.jpg", Fixtures.jpeg(seed: 87, width: 96, height: 72))
        #expect(try InProcess.run(["--db", db, "scan", "--quiet", dir.at("Pictures")]).status == 0)
        #expect(try InProcess.run(["--db", db, "status"]).status == 0)
        #expect(try InProcess.run(["--db", db, "--version"]).stdout.hasPrefix("snapsort "))
    }

    @Test func demoWritesALibraryOutsideThePhotoFoldersAndScansIt() throws {
        let dir = TempDir()
        let r = try InProcess.run(
            ["--db", dir.at("lib.sqlite3"), "demo", "--scan", "--no-models", "--quiet"],
            env: ["XDG_DATA_HOME": dir.at("data"), "HOME": dir.path])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.hasPrefix(dir.at("data/snapsort/demo-library")))
        let report = try InProcess.run(["--db", dir.at("lib.sqlite3"), "report", "--jsonl"])
        let lines = report.stdout.split(separator: "\n")
        #expect(lines.count >= 14)
        #expect(lines.contains { $0.contains("Screenshot From") })
        // The demo's promises hold without the local models: its receipt (photographed
        // sideways) is in Docs & Receipts.
        let receipt = try #require(lines.first { $0.contains("receipt.jpg") }.flatMap { JSON.parse(String($0)) })
        #expect(receipt["groups"]?.arrayValue?.contains(.string("document")) == true, "\(receipt.serialized())")
        // One day's story: no demo file lands in this month's deck for lack of a capture time.
        let decks = try InProcess.run(["--db", dir.at("lib.sqlite3"), "decks"])
        let f = DateFormatter()
        f.dateFormat = "yyyy-MM"
        #expect(!decks.stdout.contains("month:" + f.string(from: Date())), "\(decks.stdout)")
        #expect(decks.stdout.contains("month:2024-06"), "\(decks.stdout)")
        // Each line starts with a whole deck id, one that 'review --deck' takes (a long camera
        // filter was cut at a fixed column).
        for line in decks.stdout.split(separator: "\n") {
            let id = String(line.components(separatedBy: "  ").first ?? "")
            #expect(DeckID(id) != nil, "\(line)")
        }
        // Its video too: the container's date is the day in its name.
        #expect(!decks.stdout.contains("month:2024-10"), "\(decks.stdout)")
        // Not quiet: it says what to do next, on stderr (stdout stays the folder).
        let again = try InProcess.run(
            ["--db", dir.at("lib.sqlite3"), "demo", "--scan", "--no-models"],
            env: ["XDG_DATA_HOME": dir.at("data"), "HOME": dir.path])
        #expect(again.status == 0 && again.stderr.contains("next: 'snapsort groups'"), "\(again.stderr)")
        #expect(again.stdout.split(separator: "\n").first.map(String.init) == dir.at("data/snapsort/demo-library"))
    }
}
