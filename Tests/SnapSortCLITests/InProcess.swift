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
