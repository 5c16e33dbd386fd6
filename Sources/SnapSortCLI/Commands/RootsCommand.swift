import Foundation
import SnapSortCore
import SnapSortSystem

/// `snapsort roots list|add DIR|remove DIR`
enum RootsCommand: Command {
    static let name = "roots"
    static let summary = "list, add or remove the folders SnapSort watches"
    static let usage = """
        Usage: snapsort roots list
               snapsort roots add DIR
               snapsort roots remove DIR

        Edits the 'root = DIR' lines of snapsort.conf (every other line is kept as written;
        the file is replaced atomically). Without configured roots SnapSort uses the pictures
        folder; the first 'add' writes it as a root too, so it stays watched. A running agent
        picks the change up at once. 'remove' stops watching DIR but
        keeps its rows; 'snapsort forget DIR' drops them.
        """

    static func run(_ args: inout Arguments, _ ctx: Context) throws -> Int32 {
        let rest = try args.positionals()
        guard let action = rest.first else { throw UsageError("roots needs list, add DIR or remove DIR") }
        let file = Configuration.path(ctx.env)
        // A file that cannot be read, or is not UTF-8, is never written anew: every other line
        // would be lost.
        var text = ""
        if FileSystem.lstatusIfExists(file) != nil {
            let bytes: [UInt8]
            do { bytes = try FileSystem.readFile(file, limit: 1 << 20) } catch {
                throw CommandFailure(ExitCode.error, "cannot read \(file): \(error)")
            }
            let (decoded, problem) = Configuration.decode(bytes)
            if let problem, action != "list" {
                throw CommandFailure(ExitCode.error, "\(problem.description); nothing was changed (roots \(action) would rewrite it)")
            }
            text = decoded
        }
        switch action {
        case "list":
            guard rest.count == 1 else { throw UsageError("roots list takes no arguments") }
            let (config, _) = Configuration.load(ctx.env)
            if config.roots.isEmpty {
                for r in config.effectiveRoots(arguments: [], env: ctx.env) { ctx.out(r) }
                if !ctx.quiet { ctx.err("(no roots configured: the pictures folder is used)") }
            } else {
                for r in config.roots { ctx.out(r) }
            }
            return ExitCode.ok
        case "add", "remove":
            guard rest.count == 2 else { throw UsageError("roots \(action) takes one DIR") }
            let dir = ctx.absolute(rest[1])
            let updated: String?
            var keptDefaults: [String] = []
            if action == "add" {
                guard FileSystem.lstatusIfExists(dir).map({ $0.isDirectory || $0.isSymlink }) == true else {
                    throw CommandFailure(ExitCode.error, "\(field(dir)) is not a folder")
                }
                guard Configuration.quotedPath(dir) != nil else {
                    throw CommandFailure(
                        ExitCode.error,
                        "\(field(dir)): a name with a line break or another control character cannot be written to snapsort.conf; rename the folder, or scan it by name ('snapsort scan DIR')"
                    )
                }
                // The first root written replaces the default (the pictures folder): it is written
                // too, so adding a USB card's folder does not stop watching ~/Pictures unseen.
                let (current, _) = Configuration.load(ctx.env)
                var base = text
                if current.roots.isEmpty {
                    for d in ctx.env.defaultRoots where d != dir && FileSystem.lstatusIfExists(d)?.isDirectory == true {
                        if let with = Configuration.addingRoot(d, to: base, home: ctx.env.home) {
                            base = with
                            keptDefaults.append(d)
                        }
                    }
                }
                updated = Configuration.addingRoot(dir, to: base, home: ctx.env.home)
            } else {
                updated = Configuration.removingRoot(dir, from: text, home: ctx.env.home)
            }
            guard let updated else {
                if action == "remove" { throw CommandFailure(ExitCode.error, "\(dir) is not a configured root") }
                if !ctx.quiet { ctx.err("\(dir) is already a root") }
                return ExitCode.ok
            }
            if action == "add" && dir == "/" {
                throw CommandFailure(ExitCode.error, "refusing to watch / (the whole system, /proc and /sys included); name your photo folders")
            }
            if action == "add" {
                // Folders inside one another are one tree, watched once: a folder inside a root
                // is not added (it said "already covers it" and was added all the same).
                let (config, _) = Configuration.load(ctx.env)
                if let r = config.roots.first(where: { dir.hasPrefix($0 + "/") }) {
                    if !ctx.quiet { ctx.err("\(field(dir)) is inside the root \(field(r)), which already covers it: not added") }
                    return ExitCode.ok
                }
                for r in config.roots where r.hasPrefix(dir + "/") && !ctx.quiet { ctx.err("note: the root \(r) is inside \(dir)") }
            }
            let folder = String(file[..<file.lastIndex(of: "/")!])
            try FileSystem.makeDirectories(folder, mode: 0o755)
            try FileSystem.writeAtomically(file, Array(updated.utf8))
            if !ctx.quiet {
                ctx.err(action == "add" ? "added root \(field(dir))" : "removed root \(field(dir)) (its rows are kept; 'snapsort forget' drops them)")
                for d in keptDefaults {
                    ctx.err(
                        "\(field(d)) stays watched: it was the default, and is now a root of its own too ('snapsort roots remove \(field(d))' stops it)"
                    )
                }
            }
            return ExitCode.ok
        default:
            throw UsageError("unknown roots action '\(action)'; use list, add or remove")
        }
    }
}
