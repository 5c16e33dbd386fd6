import Foundation
import SnapSortCore
import SnapSortSystem

/// `/api/…`: a small JSON API over the core's decks, decisions, undo, groups, trash and stats.
extension WebApp {
    // MARK: - Handlers (the route table, `apiRoutes` in WebApp+Routes.swift, names them)

    func apiSummary(_ c: APICall) throws -> HTTPResponse {
        return Self.json(try withLibrary { try summary($0) })
    }

    func apiDecks(_ c: APICall) throws -> HTTPResponse {
        let clock = options.clock
        let tz = options.timeZone
        return Self.json(
            try withLibrary { lib in
                .object([("decks", .array(try Decks.overview(library: lib, clock: clock, timeZone: tz).map(Self.deckJSON)))])
            })
    }

    func apiStartSession(_ c: APICall) throws -> HTTPResponse {
        let body = c.body
        let clock = options.clock
        let tz = options.timeZone
        guard let deck = body["deck"]?.stringValue, let id = DeckID(deck) else { throw WebError.bad("'deck' must be a deck id") }
        let goal = config.withLock { $0.sessionGoal }
        return Self.json(
            try withLibrary { lib in
                // A half-done deck resumes, a rediscovery too (a reload dealt a new one).
                if let s = try DeckSession.open(deckID: id.description, library: lib), s.remaining > 0 {
                    return try sessionJSON(s, lib)
                }
                let built = try Decks.build(id, library: lib, clock: clock, timeZone: tz)
                // A finished deck opened again (a reload, its address) keeps its recap,
                // unless new cards came meanwhile.
                if built.items.isEmpty, let done = try DeckSession.finished(deckID: id.description, library: lib) {
                    return try sessionJSON(done, lib)
                }
                let s = try DeckSession.start(built, library: lib, clock: clock, goal: goal)
                return try sessionJSON(s, lib)
            })
    }

    func apiSession(_ c: APICall) throws -> HTTPResponse {
        guard let sid = Int64(c.parts[1]) else { throw WebError.notFound() }
        return Self.json(
            try withLibrary { lib in
                guard let s = try DeckSession.load(id: sid, library: lib) else { throw WebError.notFound("no such session") }
                return try sessionJSON(s, lib)
            })
    }

    func apiDecide(_ c: APICall) throws -> HTTPResponse {
        let body = c.body
        let clock = options.clock
        let tz = options.timeZone
        guard let fid = try Self.integer(body, "id"), let d = body["decision"]?.stringValue.flatMap(Decision.init(rawValue:)) else {
            throw WebError.bad("'id' and 'decision' (trash, keep, skip, later) are needed")
        }
        let sid = try Self.integer(body, "session").map(Int64.init)
        return Self.json(
            try withLibrary { lib in
                // `seen`: the decision the page showed on the card (null: none). Another window
                // (a second tab, the terminal, 'snapsort decide') may have decided it since:
                // the press is not taken over that decision without a word; the page says what
                // it is now, and a second press replaces it.
                if let seen = body["seen"] {
                    let now = try Review.decision(for: Int64(fid), library: lib)?.decision
                    if now?.rawValue != seen.stringValue {
                        let name = try lib.item(id: Int64(fid))?.name ?? "this photo"
                        let what = now.map { Self.decidedWords($0) } ?? "undecided again"
                        throw WebError(409, "\(name) was \(what) in another window meanwhile: press again to change it")
                    }
                }
                let o = try Review.decide(d, fileID: Int64(fid), library: lib, clock: clock, session: sid, timeZone: tz)
                return .object([
                    ("id", .int(o.fileID)), ("decision", .string(o.decision.rawValue)), ("previous", .opt(o.previous?.rawValue)),
                    ("session", try o.session.map { try sessionJSON($0, lib) } ?? .null), ("chapter", .opt(o.chapter)),
                    ("milestones", .array(o.milestones.map { .string($0) })), ("summary", try summary(lib)),
                ])
            })
    }

    func apiUndo(_ c: APICall) throws -> HTTPResponse {
        let body = c.body
        let clock = options.clock
        return Self.json(
            try withLibrary { lib in
                // The last action was a commit: undo does not take it back; the page says so.
                let committed = try Review.committedSinceLastUndoStep(library: lib)
                // Right after a commit an undo puts nothing back: the page says so, and a
                // second press (`past_commit`) takes back the decision before the commit.
                let depth = try Review.undoDepth(library: lib)
                if committed > 0, depth > 0, body["past_commit"]?.boolValue != true {
                    throw WebError(
                        409,
                        "the last commit moved \(committed) to the Trash (Trash → Put back); press Undo again to take back the decision before it"
                    )
                }
                guard let o = try Review.undo(library: lib, clock: clock) else {
                    throw WebError(
                        409,
                        committed > 0 ? "nothing to undo: the last commit moved \(committed) to the Trash (Trash → Put back)" : "nothing to undo")
                }
                return .object([
                    ("id", .int(o.fileID)), ("undone", .opt(o.undone?.rawValue)), ("restored", .opt(o.restored?.rawValue)),
                    ("count", .int(o.count)), ("name", .opt(o.path.map { ($0 as NSString).lastPathComponent })),
                    (
                        "kind",
                        .string(
                            o.notSimilarPhotos > 0
                                ? "not_similar"
                                : o.unmarkedPhotos > 0
                                    ? "unmark" : o.restoredFrom != nil ? "restore" : o.keeperChoice ? "keeper" : "decision")
                    ),
                    ("restored_from", .opt(o.restoredFrom?.rawValue)),
                    ("committed_since", .int(committed)),
                    ("session", try o.session.map { try sessionJSON($0, lib) } ?? .null), ("summary", try summary(lib)),
                ])
            })
    }

    func apiItem(_ c: APICall) throws -> HTTPResponse {
        guard let fid = Int64(c.parts[1]) else { throw WebError.notFound() }
        return Self.json(
            try withLibrary { lib in
                guard let item = try lib.item(id: fid), item.status != .gone else { throw WebError.notFound("no such item") }
                return Self.card(
                    item, decision: try Review.decision(for: fid, library: lib), findings: try lib.findings(of: fid), home: options.env.home,
                    role: try lib.setRole(of: fid))
            })
    }

    func apiGroups(_ c: APICall) throws -> HTTPResponse {
        return Self.json(
            try withLibrary { lib in
                .object([
                    (
                        "groups",
                        .array(
                            // The overview `snapsort groups` prints too; the page's keys are its own.
                            try GroupsOverview.load(library: lib).groups.map { entry in
                                let g = entry.summary
                                var fields: [(String, JSON)] = [
                                    ("id", .string(g.id.rawValue)), ("title", .string(g.id.title)), ("items", .int(g.items)),
                                    ("sets", .int(g.sets)), ("bytes", .int(g.bytes)), ("reclaimable_bytes", .int(g.reclaimableBytes)),
                                ]
                                // Why a model group stays empty (the models are off, the helper or a
                                // model file is missing), as `snapsort groups` says it.
                                if let why = entry.unavailable { fields.append(("unavailable", .string(why))) }
                                return .object(fields)
                            })
                    )
                ])
            })
    }

    func apiSimilar(_ c: APICall) throws -> HTTPResponse {
        return Self.json(try withLibrary { try similarJSON($0) })
    }

    func apiChooseKeeper(_ c: APICall) throws -> HTTPResponse {
        let body = c.body
        let clock = options.clock
        guard let fid = try Self.integer(body, "id") else { throw WebError.bad("'id' is needed") }
        return Self.json(
            try withLibrary { lib in
                let chosen = try SimilarReview.chooseKeeper(fileID: Int64(fid), library: lib, clock: clock)
                var j = try similarJSON(lib)
                if case .object(var o) = j { o.append(("unstaged", .bool(chosen.unstaged))); j = .object(o) }
                return j
            })
    }

    func apiTrashRest(_ c: APICall) throws -> HTTPResponse {
        let body = c.body
        let clock = options.clock
        let tz = options.timeZone
        return Self.json(
            try withLibrary { lib in
                let outcomes: [DecisionOutcome]
                if body["all"]?.boolValue == true {
                    outcomes = try SimilarReview.trashRestOfAll(library: lib, clock: clock, timeZone: tz)
                } else if let set = body["set"]?.stringValue {
                    outcomes = try SimilarReview.trashRest(setID: set, library: lib, clock: clock, timeZone: tz)
                } else {
                    throw WebError.bad("'set' or 'all' is needed")
                }
                var j = try similarJSON(lib)
                if case .object(var o) = j {
                    o.append(("staged", .int(outcomes.count)))
                    // "Staged 4 · left 1 keeper": what it did and left (`BulkStaging.summary`).
                    o.append(("message", .string(try SimilarReview.summary(of: outcomes, library: lib))))
                    j = .object(o)
                }
                return j
            })
    }

    func apiNotSimilar(_ c: APICall) throws -> HTTPResponse {
        let body = c.body
        let clock = options.clock
        guard let set = body["set"]?.stringValue else { throw WebError.bad("'set' is needed") }
        return Self.json(
            try withLibrary { lib in
                _ = try SimilarReview.markNotSimilar(setID: set, library: lib, clock: clock)
                return try similarJSON(lib)
            })
    }

    func apiTrash(_ c: APICall) throws -> HTTPResponse {
        return Self.json(try withLibrary { try trashJSON($0) })
    }

    func apiRestore(_ c: APICall) throws -> HTTPResponse {
        let body = c.body
        let clock = options.clock
        let ids = try Self.integers(body, "ids"), ledger = try Self.integers(body, "ledger")
        guard !ids.isEmpty || !ledger.isEmpty || body["all"]?.boolValue == true else { throw WebError.bad("'ids', 'ledger' or 'all' is needed") }
        return Self.json(
            try withLibrary { lib in
                var outcomes: [TrashOutcome] = []
                if body["all"]?.boolValue == true {
                    outcomes = try Trash.restoreAll(library: lib, clock: clock)
                } else {
                    outcomes += try Trash.unstage(fileIDs: ids, library: lib, clock: clock)
                    outcomes += try Trash.restore(ledgerIDs: ledger, library: lib, clock: clock)
                }
                return try withOutcomes(trashJSON(lib), outcomes, key: "restored")
            })
    }

    func apiCommit(_ c: APICall) throws -> HTTPResponse {
        let body = c.body
        let clock = options.clock
        guard body["confirm"]?.boolValue == true else { throw WebError.bad("a commit needs {\"confirm\": true}") }
        // `ids`: the staged items the dialog showed; one staged since (another window, the
        // terminal) waits for the next commit rather than going unseen.
        let only = body["ids"] == nil ? nil : Set(try Self.integers(body, "ids"))
        let tenv = options.trashEnvironment ?? TrashEnvironment(environment: options.env)
        return Self.json(
            try withLibrary { lib in
                let report = try Trash.commit(library: lib, clock: clock, env: tenv, logger: options.logger, only: only)
                var j = try withOutcomes(trashJSON(lib), report.outcomes, key: "outcomes")
                if case .object(var o) = j {
                    o.append(("left_staged", .int(only == nil ? 0 : try Trash.staged(library: lib).filter { !only!.contains($0.fileID) }.count)))
                    o.append(("committed", .int(report.succeeded.filter { !$0.isSidecar }.count)))
                    o.append(("committed_bytes", .int(report.bytes)))
                    o.append(("milestones", .array(report.milestones.map { .string($0) })))
                    j = .object(o)
                }
                return j
            })
    }

    func apiStats(_ c: APICall) throws -> HTTPResponse {
        let clock = options.clock
        let tz = options.timeZone
        let goal = config.withLock { $0.sessionGoal }
        return Self.json(
            try withLibrary { lib in
                // A Trash emptied since is counted as cleared, and a photo put back counted as
                // restored, before the numbers are read (not while a commit or a restore holds
                // the trash lock: the next look notices).
                noticeRestores(lib, waitForTrashLock: false)
                return try Stats.report(library: lib, clock: clock, timeZone: tz, goal: goal).json
            })
    }

    func apiSettings(_ c: APICall) throws -> HTTPResponse {
        return Self.json(settingsJSON())
    }

    func apiSaveSettings(_ c: APICall) throws -> HTTPResponse {
        return Self.json(try saveSettings(c.body))
    }

    func apiVersion(_ c: APICall) throws -> HTTPResponse {
        return Self.json(try withLibrary { try versionJSON($0) })
    }

    func apiChapters(_ c: APICall) throws -> HTTPResponse {
        return Self.json(try withLibrary { try chaptersJSON($0) })
    }

    func apiLater(_ c: APICall) throws -> HTTPResponse {
        return Self.json(try withLibrary { try laterJSON($0) })
    }

    func apiKept(_ c: APICall) throws -> HTTPResponse {
        let offset =
            try c.request.query["offset"].map { q -> Int in
                guard let n = Int(q), (0...10_000_000).contains(n) else { throw WebError.bad("'offset' must be a whole number") }
                return n
            } ?? 0
        return Self.json(try withLibrary { try keptJSON($0, offset: offset, limit: 200) })
    }

    func apiOldScreenshots(_ c: APICall) throws -> HTTPResponse {
        let body = c.body
        let days =
            try Self.integer(body, "days") ?? c.request.query["days"].map { q in
                guard let d = Int(q) else { throw WebError.bad("'days' must be a whole number") }
                return d
            } ?? 30
        guard (0...36_500).contains(days) else { throw WebError.bad("'days' must be from 0 to 36500") }
        let apply = c.request.method == "POST"
        // The keepers and last copies too, when the person says so (issue 43).
        let all = c.body["include_keepers"]?.boolValue == true || c.request.query["include_keepers"] == "1"
        return Self.json(try withLibrary { try oldScreenshots(days: days, apply: apply, includeKeepers: all, $0) })
    }

    static func body(_ r: HTTPRequest) throws -> JSON {
        guard !r.body.isEmpty else { return .object([]) }
        guard let j = JSON.parse(String(decoding: r.body, as: UTF8.self)), case .object = j else {
            throw WebError.bad("the body must be a JSON object")
        }
        return j
    }

    // MARK: - Shapes

    static func deckJSON(_ d: DeckSummary) -> JSON {
        var kind = String(d.id.description.split(separator: ":").first ?? "")
        if kind == "rediscover" { kind = "rediscovery" }
        return .object([
            ("id", .string(d.id.description)), ("kind", .string(kind)), ("title", .string(d.title)), ("waiting", .int(d.waiting)),
            ("reviewed", .int(d.progress.reviewed)), ("total", .int(d.progress.total)), ("bytes_to_gain", .int(d.progress.bytesToGain)),
        ])
    }

    /// A card: the item, its decision, and what the scan read on it (a ticket's code, the
    /// first words of a receipt or letter), which is often what decides it.
    static func card(
        _ item: Item, decision: DecisionRecord?, findings: FileFindings? = nil, home: String? = nil, role: SetRole? = nil
    ) -> JSON {
        let base = "/media/\(item.id)/"
        let text = (findings?.words ?? 0) > 0 ? findings?.text.map(Self.snippet) : nil
        return .object([
            ("id", .int(item.id)), ("kind", .string(item.kind.rawValue)), ("format", .opt(item.format)), ("name", .string(item.name)),
            // Where it is (the copies of a picture differ only there), and why a file that
            // cannot be shown cannot be read.
            ("folder", .string(Self.folder(of: item.path, home: home))), ("status", .string(item.status.rawValue)),
            ("reason", .opt(item.status == .ok ? nil : item.reason?.text)),
            ("bytes", .int(item.bytes)), ("width", .opt(item.width)), ("height", .opt(item.height)),
            ("taken_at", .opt(item.takenAt)), ("taken_ts", .opt(item.takenTimestamp)), ("duration", .opt(item.durationSeconds)),
            ("decision", .opt(decision?.decision.rawValue)),
            ("seen_before", .bool(decision?.decision == .later || (decision?.laterCount ?? 0) > 0)),
            ("deferrals", .int(decision?.laterCount ?? 0)), ("suggest_keep", .bool(decision?.suggestsKeep ?? false)),
            ("thumb", .string(base + "thumb")), ("display", .string(base + "display")), ("original", .string(base + "original")),
            ("qr", .opt(findings?.qrPayload.flatMap { $0.isEmpty ? nil : $0 })), ("text", .opt(text)),
            // Its place in its set, in any deck: a copy (of what, when that stays) or the keeper.
            ("copy_of", .opt(role?.copyOf)), ("keeper", .bool(role?.isKeeper ?? false)), ("set_role", .opt(role?.text)),
        ])
    }

    /// The folder of `path`, with `~` for the home folder.
    static func folder(of path: String, home: String?) -> String {
        let dir = (path as NSString).deletingLastPathComponent
        if let home, !home.isEmpty, home != "/", dir == home || dir.hasPrefix(home + "/") { return "~" + dir.dropFirst(home.count) }
        return dir
    }

    /// The start of a page's text on one line: whitespace runs as one space, at most 200
    /// characters (the card shows two lines of it; `snapsort info` shows it all).
    /// A decision in words, after "was".
    static func decidedWords(_ d: Decision) -> String {
        switch d {
        case .trash: "staged for the Trash"
        case .keep: "kept"
        case .skip: "skipped"
        case .later: "put off for later"
        }
    }

    static func snippet(_ text: String) -> String {
        let flat = text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        return flat.count > 200 ? String(flat.prefix(200)) + "…" : flat
    }

    /// A session with its remaining cards (the current one first).
    func sessionJSON(_ s: DeckSession, _ lib: Library) throws -> JSON {
        var cards: [JSON] = []
        for id in s.itemIDs.dropFirst(s.position) {
            guard let item = try lib.item(id: id), item.status != .gone else { continue }
            cards.append(
                Self.card(
                    item, decision: try Review.decision(for: id, library: lib), findings: try lib.findings(of: id), home: options.env.home,
                    role: try lib.setRole(of: id)))
        }
        return .object([
            ("id", .int(s.id)), ("deck", .string(s.deckID)), ("title", .string(s.title)), ("position", .int(s.position)),
            ("total", .int(s.itemIDs.count)), ("goal", .int(s.goal)), ("decisions", .int(s.decisions)), ("bytes", .int(s.bytes)),
            ("goal_met", .bool(s.goalMet)), ("finished", .bool(s.isFinished)), ("current", .opt(s.current)),
            // Today's decisions, every deck and the terminal's: the goal is one a day.
            ("done_today", .int(try Stats.doneToday(library: lib, clock: options.clock))),
            ("cards", .array(cards)), ("recap", try recapJSON(s, lib)),
        ])
    }

    /// What a session did, for the recap of a finished deck: its items' verdicts as they
    /// stand (a card decided again elsewhere counts as it is now) and the bytes it staged.
    func recapJSON(_ s: DeckSession, _ lib: Library) throws -> JSON {
        let by = try lib.verdicts(ofSession: s.id)
        return .object([
            ("kept", .int(by[.keep] ?? 0)), ("trashed", .int(by[.trash] ?? 0)), ("skipped", .int(by[.skip] ?? 0)),
            ("later", .int(by[.later] ?? 0)), ("bytes", .int(s.bytes)),
        ])
    }

    func summary(_ lib: Library) throws -> JSON {
        let goal = config.withLock { $0.sessionGoal }
        let snap = try Stats.statusSnapshot(library: lib, clock: options.clock, goal: goal)
        var j = snap.json
        if case .object(var o) = j {
            o.append(("undo_depth", .int(try Review.undoDepth(library: lib))))
            // The models' pass, as the status file's `models` (issue 41): the page says how far it is.
            let m = try lib.modelsProgress()
            o.append(("models", m.map { .object([("done", .int($0.done)), ("total", .int($0.total))]) } ?? .null))
            j = .object(o)
        }
        return j
    }

    func similarJSON(_ lib: Library) throws -> JSON {
        var sets: [JSON] = []
        let eyes = try KeeperScore.worstEyes(library: lib)
        for set in try lib.similarGroups() {
            var members: [JSON] = []
            // What decided the keeper, in words, and what each other frame lacks beside it.
            let why = try KeeperScore.reasons(set, library: lib, eyes: eyes)
            for m in set.members {
                let d = try Review.decision(for: m.fileID, library: lib)
                members.append(
                    .object([
                        ("id", .int(m.fileID)), ("name", .string((m.path as NSString).lastPathComponent)), ("bytes", .int(m.bytes)),
                        ("folder", .string(Self.folder(of: m.path, home: options.env.home))),
                        ("keeper", .bool(m.isKeeper)), ("chosen_by_user", .bool(m.chosenByUser)), ("duplicate_of", .opt(m.duplicateOf)),
                        ("decision", .opt(d?.decision.rawValue)), ("thumb", .string("/media/\(m.fileID)/thumb")),
                        ("display", .string("/media/\(m.fileID)/display")), ("original", .string("/media/\(m.fileID)/original")),
                        ("why", .array((why[m.fileID] ?? []).map { .string($0) })),
                    ]))
            }
            sets.append(.object([("id", .string(set.id)), ("reclaimable_bytes", .int(set.reclaimableBytes)), ("members", .array(members))]))
        }
        return .object([("sets", .array(sets))])
    }

    /// What happened to trashed files outside SnapSort (a file manager's Restore, the Trash
    /// emptied), noticed where every front end notices it (`LibraryUpdate.noticeRestores`,
    /// issue 42) before a view that shows it; a failure leaves the view as it was, logged.
    func noticeRestores(_ lib: Library, waitForTrashLock: Bool) {
        do {
            try LibraryUpdate(library: lib, clock: options.clock, logger: options.logger).noticeRestores(waitForTrashLock: waitForTrashLock)
        } catch {
            options.logger.warning("restores from the Trash not noticed", ["error": "\(error)"])
        }
    }

    func trashJSON(_ lib: Library) throws -> JSON {
        // Restores outside SnapSort, and a killed commit's file in flight, settled before listing.
        noticeRestores(lib, waitForTrashLock: true)
        // The overview `snapsort trash list` prints too; the page's keys are its own.
        let overview = try TrashOverview.load(library: lib)
        let home = options.env.home
        var items: [JSON] = []
        for entry in overview.staged {
            let s = entry.item
            items.append(
                .object([
                    ("id", .int(s.fileID)), ("name", .string((s.path as NSString).lastPathComponent)), ("bytes", .int(s.bytes)),
                    ("folder", .string(Self.folder(of: s.path, home: home))),
                    ("kind", .string((try lib.item(id: s.fileID)?.kind ?? .photo).rawValue)), ("decided_at", .double(s.decidedAt)),
                    ("changed_since_review", .bool(s.changedSinceReview)), ("missing", .bool(s.missing)), ("unreachable", .opt(s.unreachable)),
                    ("last_copy", .bool(s.lastCopy)), ("last_copy_set", .opt(s.lastCopySet)),
                    ("thumb", .string("/media/\(s.fileID)/thumb")),
                    // What goes with it at the commit (an .xmp, a Live Photo's clip), named first.
                    (
                        "sidecars",
                        .array(
                            entry.sidecars.map {
                                .object([("name", .string(($0.path as NSString).lastPathComponent)), ("bytes", .int($0.bytes))])
                            })
                    ),
                ]))
        }
        let inTrash = overview.inTrash.filter { !$0.isSidecar }
        let lastSets = overview.lastCopySets
        let plan = overview.commitPlan
        return .object([
            ("count", .int(overview.staged.count)), ("bytes", .int(overview.stagedBytes)), ("items", .array(items)),
            // The sets the commit leaves nothing of, and the words the commit's dialog adds (`LastCopies`).
            (
                "last_copies",
                .object([
                    ("count", .int(lastSets.reduce(0) { $0 + $1.paths.count })),
                    (
                        "sets",
                        .array(
                            lastSets.map {
                                .object([
                                    ("id", .string($0.id)), ("kind", .string($0.isDuplicateSet ? "duplicate" : "similar")),
                                    ("names", .array($0.names.map { .string($0) })),
                                ])
                            })
                    ),
                    ("message", .opt(overview.lastCopiesWarning)),
                ])
            ),
            (
                "in_system_trash",
                .array(
                    inTrash.map { t in
                        .object([
                            ("ledger", .int(t.ledgerID)), ("id", .opt(t.fileID)), ("name", .string((t.originalPath as NSString).lastPathComponent)),
                            ("folder", .string(Self.folder(of: t.originalPath, home: home))),
                            ("bytes", .int(t.bytes)), ("trashed_at", .double(t.trashedAt)),
                        ])
                    })
            ),
            ("in_trash_bytes", .int(overview.inTrashBytes)),
            // The commit's question, as `snapsort trash commit` asks it (`CommitPlan`): the dialog
            // shows these words and counts, and commits `ids`.
            (
                "commit",
                .object([
                    ("question", .string(plan.question)), ("confirm", .string(plan.confirmLabel)),
                    ("staying", .opt(plan.stayingSentence)), ("last_copies", .opt(plan.lastCopiesWarning)), ("text", .string(plan.text)),
                    ("moving", .int(plan.moving.count)), ("staying_count", .int(plan.staying.count)),
                    ("sidecars", .int(plan.sidecars.count)), ("bytes", .int(plan.bytes)),
                    ("last_copy_count", .int(plan.lastCopyCount)), ("ids", .array(plan.fileIDs.map { .int($0) })),
                ])
            ),
        ])
    }

    func withOutcomes(_ j: JSON, _ outcomes: [TrashOutcome], key: String) -> JSON {
        guard case .object(var o) = j else { return j }
        o.append(
            (
                key,
                .array(
                    outcomes.map { x in
                        let (result, reason): (String, String?) =
                            switch x.result {
                            case .trashed: ("trashed", nil)
                            case .restored: ("restored", nil)
                            case .unstaged: ("unstaged", nil)
                            case .skipped(let why): ("skipped", why)
                            }
                        return .object([
                            ("name", .string((x.path as NSString).lastPathComponent)),
                            ("folder", .string(Self.folder(of: x.path, home: options.env.home))),
                            ("bytes", .int(x.bytes)),
                            ("result", .string(result)), ("reason", .opt(reason)), ("sidecar", .bool(x.isSidecar)),
                        ])
                    })
            ))
        return .object(o)
    }

    /// Screenshots older than `days` (by capture time, else file time): a preview, or staged
    /// for the Trash in one action (each its own undo step).
    /// `body[key]` as a whole number; nil when it is absent or null. Anything else (a fraction,
    /// `1e300`, a string) is the client's mistake: 400, never a guess or a trap.
    static func integer(_ body: JSON, _ key: String) throws -> Int? {
        guard let v = body[key] else { return nil }
        if case .null = v { return nil }
        guard let i = v.intValue else { throw WebError.bad("'\(key)' must be a whole number") }
        return i
    }

    /// `body[key]` as a list of whole numbers (absent: none); 400 for anything else.
    static func integers(_ body: JSON, _ key: String) throws -> [Int64] {
        guard let v = body[key] else { return [] }
        if case .null = v { return [] }
        guard let list = v.arrayValue else { throw WebError.bad("'\(key)' must be a list of whole numbers") }
        return try list.map { e in
            guard let i = e.intValue else { throw WebError.bad("'\(key)' must be a list of whole numbers") }
            return Int64(i)
        }
    }

    /// Screenshots older than `days`: what staging them would do (GET), or done (POST), as
    /// one undo step. Each set's keeper and last copy stay unless `include_keepers` says so
    /// (`BulkStaging`, issue 43): `left` names them by their set, `message` says it in words.
    func oldScreenshots(days: Int, apply: Bool, includeKeepers: Bool, _ lib: Library) throws -> JSON {
        let (clock, tz) = (options.clock, options.timeZone)
        let (candidates, plan) = try BulkStaging.oldScreenshots(
            days: days, apply: apply, includeKeepers: includeKeepers, library: lib, clock: clock, timeZone: tz)
        return .object([
            ("days", .int(days)), ("count", .int(plan.staging.count)), ("bytes", .int(plan.bytes)),
            ("staged", .bool(apply)), ("candidates", .int(candidates)),
            ("keepers_left", .int(plan.keepersLeft)), ("last_copies_left", .int(plan.lastCopiesLeft)),
            (
                "left",
                .array(
                    plan.left.map {
                        .object([
                            ("id", .int($0.fileID)), ("name", .string(($0.path as NSString).lastPathComponent)), ("bytes", .int($0.bytes)),
                            ("why", .string($0.why == .keeper ? "keeper" : "last_copy")), ("set", .string($0.setName)),
                        ])
                    })
            ),
            ("left_sentence", .opt(plan.leftSentence)), ("message", .string(plan.summary)), ("summary", try summary(lib)),
        ])
    }
}
