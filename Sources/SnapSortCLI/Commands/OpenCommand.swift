import Foundation
import SnapSortCore
import SnapSortSystem
import SnapSortWeb

/// `snapsort open [--print-url]`
enum OpenCommand: Command {
    static let name = "open"
    static let summary = "open the review page of the running agent in the browser"
    static let usage = """
        Usage: snapsort open [--print-url] [--deck ID] [--start] [--new-key]

        Opens the review page that the running agent (or 'snapsort serve') serves on this
        machine in the default browser (xdg-open, started through 'systemd-run --user --scope'
        where available), and prints its address. The browser is started on a file only you
        can read, $XDG_RUNTIME_DIR/snapsort/open-PORT.html (0600), whose form hands the page its
        access token: the token is in no command line another user could read.
          --print-url   only print the URL with the token, as one line:
                        http://127.0.0.1:PORT/?token=… (to paste into a browser)
          --deck ID     open a deck directly (e.g. month:2024-05, later, group:screenshot)
          --start       when nothing serves the page, start it: the agent's user service
                        when systemd knows it, else 'snapsort serve' in the background (it runs
                        until you log out or stop it); the menu's SnapSort entry does this
          --new-key     give the page a new token first: every browser, bookmark and script
                        that has the old one must be opened again with 'snapsort open'
        The server writes its address and token to $XDG_RUNTIME_DIR/snapsort/web.json (0600),
        and to a file of its library's own beside it (web-KEY.json), so each library served
        finds its page.
        Exit: 0 ok, 3 the agent is not running (no page is being served).
        """

    static func run(_ args: inout Arguments, _ ctx: Context) throws -> Int32 {
        let printOnly = args.flag("--print-url")
        let start = args.flag("--start")
        let newKey = args.flag("--new-key")
        let deck = try args.option("--deck")
        guard try args.positionals().isEmpty else { throw UsageError("open takes no arguments") }
        // The page of this library (its own file), else whichever web.json names.
        func served() -> WebInfo? {
            guard let info = WebInfo.read(ctx.env, database: ctx.dbPath) ?? WebInfo.read(ctx.env), WebClient.answers(info) else { return nil }
            return info
        }
        var found = served()
        if newKey {
            var replaced = false
            if let info = found {
                // Another library's page is refused below, its key untouched.
                if info.database == nil || info.database == ctx.dbPath {
                    // The server makes the key, keeps it and rewrites web.json; read it again.
                    try WebClient.newKey(info)
                    found = served()
                    replaced = true
                }
            } else if FileSystem.exists(ctx.dbPath) {
                // Nothing serves it: the next server opens with a new key. (No library yet:
                // no key either; its first server makes one.)
                try WebServer.replaceKeptKey(dbPath: ctx.dbPath)
                replaced = true
            }
            if replaced && !ctx.quiet { ctx.err("snapsort: the page has a new key; browsers with the old one must be opened again") }
        }
        if found == nil && start { found = try startPage(ctx, until: served) }
        guard let info = found else {
            throw CommandFailure(
                ExitCode.unavailable,
                "the review page is not being served: start the agent ('systemctl --user start snapsort' or 'snapsort agent'), or 'snapsort serve'")
        }
        if let served = info.database, served != ctx.dbPath {
            throw CommandFailure(
                ExitCode.unavailable,
                "the review page being served is for another library (\(served)); 'snapsort --db \(ctx.dbPath) serve' serves this one")
        }
        let fragment = deck.map { "#deck=" + ($0.addingPercentEncoding(withAllowedCharacters: .urlFragmentAllowed) ?? $0) } ?? ""
        if printOnly {
            // Asked for: the URL with the key, on our own output only (never an argument).
            ctx.out(info.openURL + fragment)
            return ExitCode.ok
        }
        ctx.out(info.url + fragment)
        ctx.flush()
        let opener: String
        do { opener = try PageOpener.write(info, deck: deck, env: ctx.env) } catch {
            throw CommandFailure(ExitCode.error, "cannot write the page's opener file: \(error)")
        }
        guard URLOpener.open(opener, env: ctx.env, wait: true) else {
            throw CommandFailure(
                ExitCode.error, "could not start a browser (xdg-open); 'snapsort open --print-url' prints the URL with the key to open by hand")
        }
        return ExitCode.ok
    }

    /// Starts what serves the page (a click on the menu entry right after installing: the
    /// service is not enabled by the package, and the click did nothing visible), then waits up
    /// to 15 s for it to answer. The user service first, when systemd knows it (it also watches
    /// the photos); else `snapsort serve` in a session of its own, outliving this command (the
    /// environment is this command's: posix_spawn passes `environ`, and `Context.env` is it).
    static func startPage(_ ctx: Context, until served: () -> WebInfo?) throws -> WebInfo? {
        if !ctx.quiet { ctx.err("snapsort: starting the review page…") }
        let clock = Clock.live
        func waitForPage(_ seconds: Double) -> WebInfo? {
            let deadline = clock.now().addingTimeInterval(seconds)
            repeat {
                if let info = served() { return info }
                Thread.sleep(forTimeInterval: 0.2)
            } while clock.now() < deadline
            return nil
        }
        let userManager = ctx.env.runtimeDir.map { FileManager.default.fileExists(atPath: $0 + "/systemd/private") } ?? false
        if userManager, ctx.dbPath == ctx.env.defaultDatabasePath, FileManager.default.isExecutableFile(atPath: "/usr/bin/systemctl"),
            Program.run(["/usr/bin/systemctl", "--user", "start", "snapsort.service"], env: ctx.env, wait: true, silent: true),
            let info = waitForPage(15)
        {
            return info
        }
        let exe = (try? FileSystem.realPath("/proc/self/exe")) ?? CommandLine.arguments[0]
        // The library by name only when it was named: the default one is created on first use,
        // and a new account's menu click has none yet (a named path refuses to be created by
        // `serve`, and the page never came up).
        let arguments = ctx.databaseNamed ? ["--db", ctx.dbPath, "serve"] : ["serve"]
        guard (try? ChildProcess.detached(path: exe, arguments: arguments)) != nil else { return nil }
        return waitForPage(15)
    }
}
