import Foundation
import SnapSortCLI
import SnapSortCore
import SnapSortTestSupport

/// Runs `snapsort args…` in this process through `Dispatcher.run`: the environment is the
/// process's with `env` over it (as `SnapsortBinary.run` gives the binary), standard input is
/// `stdin`, and standard output and error are captured. The end-to-end tests (`CLIEndToEndTests`)
/// run the built binary instead.
enum InProcess {
    static func run(_ args: [String], env: [String: String] = [:], stdin: String? = nil) throws -> SnapsortBinary.Result {
        var variables = ProcessInfo.processInfo.environment
        for (k, v) in env { variables[k] = v }
        let capture = ConsoleCapture(stdin: stdin ?? "")
        let status = Dispatcher.run(args, environment: Environment(variables: variables), console: .memory(capture))
        return SnapsortBinary.Result(status: status, stdout: capture.stdout, stderr: capture.stderr)
    }
}

/// One test's folder for the CLI: photos under `Pictures/`, the library `lib.sqlite3` beside
/// them, and the environment of a user whose home, configuration, data (its Trash) and runtime
/// folders are all in it.
struct CLIFolder {
    let dir = TempDir()
    var db: String { dir.at("lib.sqlite3") }
    var env: [String: String] {
        ["HOME": dir.path, "XDG_CONFIG_HOME": dir.at("config"), "XDG_DATA_HOME": dir.at("share"), "XDG_RUNTIME_DIR": dir.at("run")]
    }

    /// A folder with a small JPEG of each seed at `Pictures/NAME`.
    init(photos: [String: UInt64] = [:]) {
        dir.folder("Pictures")
        for (name, seed) in photos { dir.write("Pictures/" + name, Fixtures.jpeg(seed: seed, width: 96, height: 72)) }
    }

    /// The path of `Pictures/name`.
    func photo(_ name: String) -> String { dir.at("Pictures/" + name) }

    /// `snapsort --db lib.sqlite3 args…`, in-process, in this folder's environment.
    func run(_ args: [String]) throws -> SnapsortBinary.Result { try InProcess.run(["--db", db] + args, env: env) }

    /// The first scan: `scan --quiet --no-models Pictures`.
    func scan() throws -> SnapsortBinary.Result { try run(["scan", "--quiet", "--no-models", dir.at("Pictures")]) }
}
