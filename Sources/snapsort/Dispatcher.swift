import Foundation
import SnapSortCore
import SnapSortSystem

/// Parses the global options, dispatches to a command and maps its outcome to an exit code
/// (`main.swift`, the entry point, calls it).
enum Dispatcher {
    static let version = "0.1.0"

    static func run(_ argv: [String], commands: [any Command.Type]) -> Int32 {
        SystemProcess.ignoreBrokenPipe()
        var args = Arguments(argv)
        let env = Environment.live
        do {
            if argv.first == "--version" || argv.first == "version" {
                print("snapsort \(version) (analyzer \(Analyzer.version), schema \(Schema.currentVersion), sqlite \(Database.libraryVersion))")
                return ExitCode.ok
            }
            let db = try args.option("--db")
            if db?.isEmpty == true || env["SNAPSORT_DB"]?.isEmpty == true { throw UsageError("--db (or SNAPSORT_DB) needs a path") }
            let quiet = args.flag("--quiet", "-q")
            if args.flag("--version") {
                print("snapsort \(version) (analyzer \(Analyzer.version), schema \(Schema.currentVersion), sqlite \(Database.libraryVersion))")
                return ExitCode.ok
            }
            let verbose = args.flag("--verbose", "-v")
            guard let name = args.rest.first(where: { !$0.hasPrefix("-") }) else {
                if args.flag("--help", "-h") || argv.isEmpty {
                    print(usage(commands))
                    return argv.isEmpty ? ExitCode.usage : ExitCode.ok
                }
                throw UsageError("unknown option \(args.rest.first ?? "")")
            }
            args = Arguments(Array(args.rest.drop { $0 != name }.dropFirst()) + args.rest.prefix { $0 != name })
            if name == "help" {
                let topic = args.rest.first
                if let t = topic, let c = commands.first(where: { $0.name == t }) { print(c.usage) } else { print(usage(commands)) }
                return ExitCode.ok
            }
            guard let command = commands.first(where: { $0.name == name }) else {
                throw UsageError("unknown command '\(name)'; see snapsort --help")
            }
            if args.flag("--help", "-h") {
                print(command.usage)
                return ExitCode.ok
            }
            let underSystemd = env["JOURNAL_STREAM"] != nil || env["INVOCATION_ID"] != nil
            let ctx = Context(
                env: env,
                dbPath: db.map { Context.clean($0.hasPrefix("/") ? $0 : FileSystem.currentDirectory + "/" + $0) }
                    ?? env.defaultDatabasePath,
                databaseNamed: db != nil || env["SNAPSORT_DB"] != nil,
                quiet: quiet, stdoutIsTTY: Terminal.isTerminal(1), stderrIsTTY: Terminal.isTerminal(2),
                logger: .stderr(label: "snapsort", level: verbose ? .debug : (quiet ? .warning : .notice), systemdPrefixes: underSystemd))
            let code: Int32
            do {
                code = try command.run(&args, ctx)
            } catch let e as SystemError where Library.isDamage(e) {
                throw Library.damaged(ctx.dbPath, e.message)
            } catch let e as SystemError {
                throw Library.explained(ctx.dbPath, e) ?? e
            }
            Context.stdout.flush()
            return code
        } catch let e as UsageError {
            Context.stdout.flush()
            FileHandle.standardError.write(Data("snapsort: \(e.description)\n".utf8))
            return ExitCode.usage
        } catch let e as CommandFailure {
            FileHandle.standardError.write(Data("snapsort: \(e.description)\n".utf8))
            return e.code
        } catch let e as LibraryError {
            FileHandle.standardError.write(Data("snapsort: \(e.message)\n".utf8))
            return ExitCode.error
        } catch {
            FileHandle.standardError.write(Data("snapsort: \(error)\n".utf8))
            return ExitCode.error
        }
    }

    static func usage(_ commands: [any Command.Type]) -> String {
        var s = """
            snapsort — find the clutter in your photo library and clear it in short review sessions.

            Usage: snapsort [--db PATH] [--quiet] COMMAND [ARGS]

            Commands:

            """
        for c in commands { s += "  " + c.name.padding(toLength: 12, withPad: " ", startingAt: 0) + c.summary + "\n" }
        s += """

            Global options: --db PATH (or SNAPSORT_DB) selects the library database; --quiet; --verbose; --version.
            Exit codes: 0 ok, 1 error, 2 usage, 3 agent or service unavailable, 4 partial (some items skipped).
            Run 'snapsort COMMAND --help' for a command's options.
            """
        return s
    }
}
