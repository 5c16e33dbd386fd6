import Foundation
import SnapSortSystem

/// Opens the review page with its key in no process's arguments, the way Jupyter does: a small
/// HTML file only the user can read (`open-PORT.html` beside `web.json`, 0600 in the 0700
/// runtime folder) holds a form that posts the key to the page (`POST /open`), and the browser
/// is started on that file. `xdg-open 'http://…/?token=…'` showed the key to every local user
/// in `/proc/PID/cmdline`, the opener's and the browser's.
public enum PageOpener {
    /// The opener file of the page on `port`: `$XDG_RUNTIME_DIR/snapsort/open-PORT.html`.
    public static func path(_ env: Environment, port: Int) -> String {
        LibraryFiles.opener(env, port: port)
    }

    /// Writes the opener file of the page in `info` (on `deck` when given) and returns its
    /// `file://` URL, the one thing handed to the browser.
    public static func write(_ info: WebInfo, deck: String?, env: Environment) throws -> String {
        let p = path(env, port: info.port)
        try FileSystem.makeDirectories((p as NSString).deletingLastPathComponent, mode: 0o700)
        // A temp file made with O_EXCL and 0600, renamed over the old one: never readable by
        // another user, never half-written.
        try FileSystem.writeAtomically(p, Array(html(info, deck: deck).utf8), mode: 0o600)
        return fileURL(p)
    }

    /// `file:///…` with the path percent-encoded.
    public static func fileURL(_ path: String) -> String {
        "file://" + (path.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? path)
    }

    /// The form, posted as soon as the file is shown (a button when scripts are off).
    static func html(_ info: WebInfo, deck: String?) -> String {
        let base =
            info.url.hasPrefix("http")
            ? String(info.url.split(separator: "?", maxSplits: 1)[0].split(separator: "#", maxSplits: 1)[0]) : "http://127.0.0.1:\(info.port)/"
        let action = (base.hasSuffix("/") ? base : base + "/") + "open"
        let deckField = deck.map { "<input type=\"hidden\" name=\"deck\" value=\"\(escape($0))\">" } ?? ""
        return """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><meta name="referrer" content="no-referrer"><title>SnapSort</title></head>
            <body>
            <form id="snapsort-open" method="post" action="\(escape(action))">
            <input type="hidden" name="key" value="\(escape(info.token))">\(deckField)
            <p>Opening the SnapSort review page… <button type="submit">Open it</button></p>
            </form>
            <script>document.getElementById("snapsort-open").submit();</script>
            </body></html>

            """
    }

    static func escape(_ s: String) -> String { Markup.escaped(s) }
}
