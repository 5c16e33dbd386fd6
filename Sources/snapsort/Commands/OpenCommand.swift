import Foundation
import SnapSortCore
import SnapSortSystem
import SnapSortWeb

/// `snapsort open [--print-url]`
enum OpenCommand: Command {
    static let name = "open"
    static let summary = "open the review page of the running agent in the browser"
    static let usage = """
        Usage: snapsort open [--print-url] [--deck ID]

        Opens the review page that the running agent (or 'snapsort serve') serves on this
        machine, with its access token, in the default browser (xdg-open, started through
        'systemd-run --user --scope' where available), and prints the URL.
          --print-url   only print the URL, as one line: http://127.0.0.1:PORT/?token=…
          --deck ID     open a deck directly (e.g. month:2024-05, later, group:screenshot)
        The server writes its address and token to $XDG_RUNTIME_DIR/snapsort/web.json (0600),
        and to a file of its library's own beside it (web-KEY.json), so each library served
        finds its page.
        Exit: 0 ok, 3 the agent is not running (no page is being served).
        """

    static func run(_ args: inout Arguments, _ ctx: Context) throws -> Int32 {
        let printOnly = args.flag("--print-url")
        let deck = try args.option("--deck")
        guard try args.positionals().isEmpty else { throw UsageError("open takes no arguments") }
        // The page of this library (its own file), else whichever web.json names.
        guard let info = WebInfo.read(ctx.env, database: ctx.dbPath) ?? WebInfo.read(ctx.env), WebClient.answers(info) else {
            throw CommandFailure(
                ExitCode.unavailable,
                "the review page is not being served: start the agent ('systemctl --user start snapsort' or 'snapsort agent'), or 'snapsort serve'")
        }
        if let served = info.database, served != ctx.dbPath {
            throw CommandFailure(
                ExitCode.unavailable,
                "the review page being served is for another library (\(served)); 'snapsort --db \(ctx.dbPath) serve' serves this one")
        }
        var url = info.openURL
        if let deck { url += "#deck=" + (deck.addingPercentEncoding(withAllowedCharacters: .urlFragmentAllowed) ?? deck) }
        ctx.out(url)
        if printOnly { return ExitCode.ok }
        ctx.flush()
        guard URLOpener.open(url, env: ctx.env, wait: true) else {
            throw CommandFailure(ExitCode.error, "could not start a browser (xdg-open); open the URL above by hand")
        }
        return ExitCode.ok
    }
}
