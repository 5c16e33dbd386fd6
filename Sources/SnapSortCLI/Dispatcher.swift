import Foundation
import SnapSortCore
import SnapSortSystem

/// Parses the global options, dispatches to a command and maps its outcome to an exit code.
/// `run` is the CLI in-process (the environment and the console are parameters; the tests call
/// it); `main` is the process's (`Sources/snapsort/main.swift` hands its code to `exit`).
public enum Dispatcher {
    static let version = "0.1.0"

    /// The process's entry: process-wide setup, then `run` over the arguments as the kernel
    /// passed them, the live environment and console. Returns the exit status.
    public static func main() -> Int32 {
        Memory.keepLargeBlocksInTheHeap()
        // A closed pipe is an error return (`snapsort status | head`), not a SIGPIPE death.
        SystemProcess.ignoreBrokenPipe()
        // Before anything reads the time zone: a TZ in a form Foundation misreads (`:Europe/Paris`,
        // `CET-1CEST,M3.5.0,M10.5.0/3`) is turned into its zone's name, not read as UTC.
        if let problem = SystemTimeZone.normalizeEnvironment() { Console.live.error("snapsort: \(problem)\n") }
        // The arguments as the kernel passed them: a file name that is not UTF-8 stays the name of its
        // file (`PathName`); `CommandLine.arguments` would replace its bytes with U+FFFD.
        let arguments = (1..<Int(CommandLine.argc)).map { PathName.decode(cString: CommandLine.unsafeArgv[$0]!) }
        return run(arguments)
    }

    /// Ends the process with `code` (the executable's second line).
    public static func exit(_ code: Int32) -> Never { SystemProcess.exit(code) }

    /// Runs one command line in this process: `environment` gives the database path and the XDG
    /// folders, `console` receives standard output and error. Returns the exit status; nothing
    /// in a command ends the process (but the live console's reader going away, see `Console`).
    public static func run(_ argv: [String], environment: Environment = .live, console: Console = .live) -> Int32 {
        run(argv, environment: environment, console: console, commands: allCommands)
    }

    static func run(_ argv: [String], environment: Environment, console: Console, commands: [any Command.Type]) -> Int32 {
        let code = dispatch(argv, environment: environment, console: console, commands: commands)
        _ = console.flush()
        return code
    }

    private static func dispatch(_ argv: [String], environment env: Environment, console: Console, commands: [any Command.Type]) -> Int32 {
        var args = Arguments(argv)
        func print(_ s: String) { _ = console.line(s) }
        func fail(_ message: String) {
            _ = console.flush()
            console.error("snapsort: \(message)\n")
        }
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
                env: env, console: console,
                dbPath: db.map { Context.clean($0.hasPrefix("/") ? $0 : FileSystem.currentDirectory + "/" + $0) }
                    ?? env.defaultDatabasePath,
                databaseNamed: db != nil || env["SNAPSORT_DB"] != nil,
                quiet: quiet, stdoutIsTTY: console.isTerminal(1), stderrIsTTY: console.isTerminal(2),
                logger: console.logger(label: "snapsort", level: verbose ? .debug : (quiet ? .warning : .notice), systemdPrefixes: underSystemd))
            let code: Int32
            do {
                code = try command.run(&args, ctx)
            } catch let e as SystemError where Library.isDamage(e) {
                throw Library.damaged(ctx.dbPath, e.message)
            } catch let e as SystemError {
                throw Library.explained(ctx.dbPath, e) ?? e
            }
            return code
        } catch let e as UsageError {
            fail(e.description)
            return ExitCode.usage
        } catch let e as CommandFailure {
            fail(e.description)
            return e.code
        } catch let e as LibraryError {
            fail(e.message)
            return ExitCode.error
        } catch {
            fail("\(error)")
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
