/// Text made safe inside markup: HTML (the page opener's file), and the XML-like markup that
/// StatusNotifierItem hosts read (GMarkup/Pango, Qt's rich text).
public enum Markup {
    /// `text` with `&`, `<`, `>` and both quotes as entities, so it reads literally in an element or
    /// an attribute (`&#39;` for the apostrophe: HTML 4 has no `&apos;`).
    public static func escaped(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for c in text.unicodeScalars {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }
}
