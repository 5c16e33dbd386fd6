import Foundation
import SnapSortCore
import SnapSortSystem
import SnapSortWeb

/// `snapsort serve [--port N]`
enum ServeCommand: Command {
    static let name = "serve"
    static let summary = "serve the review page in the foreground (without watching folders)"
    static let usage = """
        Usage: snapsort serve [--port N] [--print-url]

        Serves the review page on 127.0.0.1 and ::1 only (port: --port, 1024 to 65535 or 0 for
        any free one, else web_port from
        snapsort.conf, default 8765; the next free one when taken) until SIGINT or SIGTERM.
        The agent serves the same page while it runs; this command is for using the page
        without the agent. The address and access token are written 0600 to
        $XDG_RUNTIME_DIR/snapsort/web.json; 'snapsort open' opens the page.
          --print-url   print http://127.0.0.1:PORT/?token=… once listening
        Exit: 0 stopped cleanly, 1 error (no free port, or the page of this library is
        already served: by the agent or another serve).
        """

    static func run(_ args: inout Arguments, _ ctx: Context) throws -> Int32 {
        let port = try args.option("--port").map { v -> Int in
            // As web_port: no privileged port (a root shell would bind one other users' browsers
            // trust); 0 takes any free one.
            guard let p = Int(v), p == 0 || (1024...65535).contains(p) else {
                throw UsageError("--port takes a port from 1024 to 65535, or 0 for any free one")
            }
            return p
        }
        let printURL = args.flag("--print-url")
        guard try args.positionals().isEmpty else { throw UsageError("serve takes no arguments") }
        let (config, problems) = Configuration.load(ctx.env)
        for p in problems { ctx.err("snapsort serve: \(p)") }
        // One page per library: a second server would only take web.json from the first.
        if let running = WebInfo.read(ctx.env, database: ctx.dbPath), WebClient.answers(running) {
            throw CommandFailure(
                ExitCode.error, "this library's review page is already served at \(running.url) (pid \(running.pid)); 'snapsort open' opens it")
        }
        // A library named by --db must exist (a typo is no new empty library); the default one
        // is created on first use, as by every other command.
        _ = try ctx.openLibrary()
        // Signals first: threads started later (the server's) inherit the blocked mask.
        let signals = try SignalFD([SIGINT, SIGTERM])
        var options = WebServer.Options(dbPath: ctx.dbPath, config: config, env: ctx.env)
        if let port { options.port = port }
        options.logger = ctx.logger
        let server: WebServer
        do {
            server = try WebServer.start(options)
        } catch {
            throw CommandFailure(ExitCode.error, "cannot serve the review page: \(error)")
        }
        if printURL { ctx.out(server.info.openURL) }
        ctx.flush()
        if !ctx.quiet { ctx.err("snapsort serve: \(server.url) (snapsort open to open it; Ctrl-C to stop)") }
        while true {
            _ = try Poll.readable([signals.fd], timeoutMs: -1)
            if !signals.read().isEmpty { break }
        }
        server.stop()
        return ExitCode.ok
    }
}
