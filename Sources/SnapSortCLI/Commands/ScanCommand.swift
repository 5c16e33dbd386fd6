import Foundation
import SnapSortCore
import SnapSortSystem

/// `snapsort scan [DIR…]`
enum ScanCommand: Command {
    static let name = "scan"
    static let summary = "scan folders and analyze new or changed photos"
    static let usage = """
        Usage: snapsort scan [--jsonl] [--quiet] [--workers N] [--no-models] [--no-groups] [DIR…]

        Reconciles the library with the disk under each DIR (default: the configured roots, else
        XDG_PICTURES_DIR, else ~/Pictures) and analyzes what is new or changed. Unchanged files
        cost one stat. A missing or unmounted DIR is offline: its rows and decisions are kept.
          --jsonl       print progress events as JSON lines on stdout
          --quiet       no progress bar
          --workers N   analysis threads (default: all cores)
          --no-models   the fast metrics only: no local models (faces, classes; the helper snapsort-vision)
          --no-groups   analyze only: no OCR or QR decoding and no regrouping now; the next scan
                        (or the agent) does both (bench/throughput.py compares the two)
        Exit: 0 ok (unreadable files are recorded, not errors), 1 error, 4 some folders could not be read.
        """

    static func run(_ args: inout Arguments, _ ctx: Context) throws -> Int32 {
        let jsonl = args.flag("--jsonl")
        let noModels = args.flag("--no-models")
        let noGroups = args.flag("--no-groups")
        let workers = try args.option("--workers").map { v -> Int in
            guard let n = Int(v), n >= 1, n <= 256 else { throw UsageError("--workers takes a number from 1 to 256") }
            return n
        }
        let dirs = try args.positionals().map(ctx.absolute)
        let (config, problems) = Configuration.load(ctx.env)
        for p in problems { ctx.logger.warning(p.description) }
        let roots = config.effectiveRoots(arguments: dirs, env: ctx.env)
        let rules = ExcludeRules(excludedPaths: config.excludes)
        // The folders are walked while the library opens (its integrity check reads every page)
        // and its rows are read: a rescan of 100 000 unchanged files is both, on two cores.
        let prewalked = PrewalkedRoots(roots, rules: rules, clock: .live, logger: ctx.logger)
        let library = try ctx.openLibrary(create: true, checkIntegrity: true)
        // A folder named on the command line that is not there and never was in the library is
        // a typo, not an offline disk (whose rows would be kept).
        for d in dirs where try FileSystem.lstatusIfExists(d) == nil && !library.knows(d) {
            throw CommandFailure(ExitCode.error, "\(d): no such file or folder (and never scanned, so not an offline disk)")
        }
        // The same for a configured root, said and skipped (the other roots are scanned); the
        // pictures folder of a new user who has none is no typo: they are told where to go.
        var missing: Set<String> = []
        if dirs.isEmpty {
            for r in roots where try FileSystem.lstatusIfExists(r) == nil && !library.knows(r) {
                missing.insert(r)
                if config.roots.isEmpty {
                    ctx.err(
                        "snapsort: no photos folder yet (\(field(r)) is not there): point SnapSort at your photos with 'snapsort roots add DIR' (or 'snapsort scan DIR'), or try it on a demo library: 'snapsort demo --scan'"
                    )
                } else {
                    ctx.err(
                        "snapsort: note: the root \(field(r)) in snapsort.conf is not there and was never scanned: a typo? ('snapsort roots remove \(r)')"
                    )
                }
            }
        }
        let scanned = roots.filter { !missing.contains($0) }
        let update = LibraryUpdate(library: library, steps: .init(groups: !noGroups, models: !noModels), logger: ctx.logger)
        let scanLock = try ScanLock.take(library) {
            if !ctx.quiet {
                ctx.err("snapsort: another scan of this library is running (the agent, or a second 'snapsort scan'); waiting for it to end…")
            }
        }
        defer { scanLock.unlock() }
        let scanner = update.makeScanner(rules: rules, workers: workers ?? ProcessInfo.processInfo.activeProcessorCount)
        // Not on a terminal that cannot erase a line (TERM=dumb: an editor's shell buffer).
        let bar = ProgressBar(enabled: !ctx.quiet && !jsonl && ctx.stderrIsTTY && ctx.env.variables["TERM"] != "dumb", console: ctx.console)
        // A full disk stops the scan, but the batches it committed stay: said, with how many.
        let before = try library.itemCounts()
        func diskFull(_ e: SystemError) -> CommandFailure? {
            guard e.code.sqliteValue.map({ $0 & 0xff == 13 }) == true else { return nil }
            bar.finish()
            let after = (try? library.itemCounts()) ?? before
            return CommandFailure(
                ExitCode.error,
                "the disk holding the library at \(library.path) is full; the scan stopped and kept what it had recorded (\(counted(max(0, after.total - before.total), "new item")), \(max(0, after.analyzed - before.analyzed)) more analyzed: \(after.analyzed) of \(after.total) items analyzed): free some space and run 'snapsort scan' again to go on"
            )
        }
        let summary: ScanSummary
        do {
            summary = try scanner.scan(scanned, prewalked: prewalked) { p in
                if jsonl {
                    ctx.out(
                        JSON.object([
                            ("event", .string("progress")), ("phase", .string(p.phase.rawValue)), ("done", .int(p.done)), ("total", .int(p.total)),
                            ("files_per_second", .double((p.filesPerSecond * 10).rounded() / 10)), ("eta_s", .opt(p.etaSeconds.map { $0.rounded() })),
                        ]).serialized())
                    // Each event as it happens, also into a pipe (a bar, a front end reading it).
                    ctx.flush()
                } else {
                    bar.update(p)
                }
            }
        } catch let e as SystemError {
            throw diskFull(e) ?? e
        }
        bar.finish()
        do {
            if !summary.cancelled { _ = try update.afterScan() }
        } catch let e as SystemError {
            throw diskFull(e) ?? e
        }
        if !noModels && !summary.cancelled {
            try VisionTier.run(update, ctx, jsonl: jsonl, workers: workers ?? ProcessInfo.processInfo.activeProcessorCount, bar: bar)
        }
        let ending = Ending(summary: summary, jsonl: jsonl, dirs: dirs, configured: !config.roots.isEmpty, missing: missing, scanned: scanned)
        return try report(ending, library: library, ctx)
    }

    /// What a scan says when it ends, and its exit code.
    struct Ending {
        let summary: ScanSummary
        let jsonl: Bool
        let dirs: [String]
        /// Whether snapsort.conf names roots.
        let configured: Bool
        let missing: Set<String>
        let scanned: [String]
    }

    /// The scan's last words: the `done` event or the summary line, the files that are no media,
    /// the folders that could not be read; the exit code.
    static func report(_ e: Ending, library: Library, _ ctx: Context) throws -> Int32 {
        let (summary, jsonl, dirs, missing, scanned) = (e.summary, e.jsonl, e.dirs, e.missing, e.scanned)
        if jsonl {
            ctx.out(
                JSON.object([
                    ("event", .string("done")), ("seen", .int(summary.seen)), ("unchanged", .int(summary.unchanged)),
                    ("added", .int(summary.added)), ("changed", .int(summary.changed)), ("reanalyzed", .int(summary.reanalyzed)),
                    ("moved", .int(summary.moved)), ("touched", .int(summary.touched)), ("gone", .int(summary.gone)),
                    ("analyzed", .int(summary.analyzed)),
                    ("problems", .int(summary.problems)), ("offline_roots", .array(summary.offlineRoots.map { .string($0) })),
                    ("unreadable_folders", .int(summary.unreadableFolders.count)),
                    ("not_media", .array(summary.notMedia.map { .string($0) })),
                ]).serialized())
        } else if !ctx.quiet {
            var line =
                "\(counted(summary.seen, "file")): \(summary.added) new, \(summary.changed) changed, \(summary.moved) moved, \(summary.gone) gone, \(summary.unchanged) unchanged"
            if summary.touched > 0 { line += ", \(summary.touched) touched (same bytes, not decoded again)" }
            if summary.reanalyzed > 0 { line += ", \(summary.reanalyzed) re-analyzed" }
            if summary.problems > 0 { line += "; \(summary.problems) unreadable or damaged (see 'snapsort report')" }
            ctx.err(line)
            for r in summary.offlineRoots { ctx.err("offline (kept as is): \(r)") }
            if summary.seen == 0, dirs.isEmpty, !e.configured, missing.isEmpty, try library.itemCounts().total == 0 {
                ctx.err(
                    "snapsort: no photos in \(scanned.map(field).joined(separator: ", ")) yet: 'snapsort roots add DIR' points SnapSort at your photos; 'snapsort demo --scan' shows it on a demo library"
                )
            }
        }
        for f in summary.notMedia.prefix(20) { ctx.err("snapsort: \(field(f)): not a photo or video by its name; not added") }
        if summary.notMedia.count > 20 { ctx.err("snapsort: … and \(summary.notMedia.count - 20) more files that are no photo or video") }
        if !summary.unreadableFolders.isEmpty {
            let n = summary.unreadableFolders.count
            ctx.err("snapsort: \(n) folder\(n == 1 ? "" : "s") could not be read; \(n == 1 ? "its" : "their") items were kept:")
            for f in summary.unreadableFolders.prefix(20) { ctx.err("  \(f)") }
            if n > 20 { ctx.err("  … and \(n - 20) more") }
            return ExitCode.partial
        }
        return summary.cancelled ? ExitCode.partial : ExitCode.ok
    }
}

/// A one-line progress bar on a terminal: done/total, files per second, ETA.
final class ProgressBar {
    let enabled: Bool
    let console: Console
    var drawn = false
    init(enabled: Bool, console: Console) {
        self.enabled = enabled
        self.console = console
    }

    func update(_ p: ScanProgress, label: String? = nil) {
        guard enabled, p.phase == .analyzing, p.total > 0 else { return }
        let eta = p.etaSeconds.map { String(format: "%d:%02d", Int($0) / 60, Int($0) % 60) } ?? "--:--"
        // The terminal's width now (a tmux split, a resized window): a line that wraps is drawn
        // again below itself at every update. The rate and the ETA go first, then the bar shrinks.
        let columns = Terminal(output: 2).size().columns
        console.error(
            "\r" + (label.map { $0 + " " } ?? "")
                + ProgressLine.render(
                    done: p.done, total: p.total, filesPerSecond: p.filesPerSecond, eta: eta, columns: columns - (label.map { $0.count + 1 } ?? 0))
                + "\u{1B}[K")
        drawn = true
    }

    func finish() {
        if drawn { console.error("\r\u{1B}[K") }
    }
}
