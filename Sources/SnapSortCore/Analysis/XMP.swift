import Foundation
import SnapSortSystem

/// The rating of an XMP packet: the `Rating` property of the XMP basic schema
/// (`http://ns.adobe.com/xap/1.0/`, XMP Specification Part 2, §8.4: −1 rejected, 0 unrated,
/// 1…5 stars). darktable, digiKam, RawTherapee and Lightroom keep it in a sidecar
/// (`IMG_1234.jpg.xmp`, `IMG_1234.xmp`); digiKam and others also write it into the JPEG's own XMP
/// segment.
///
/// The packet is RDF/XML; the property comes as an attribute of `rdf:Description`
/// (`xmp:Rating="5"`) or as an element (`<xmp:Rating>5</xmp:Rating>`), under whatever prefix
/// the packet binds to the namespace (`xmp` by convention). This reads exactly that, without an
/// XML parser: the packets are small, and anything it cannot read is no rating.
public enum XMP {
    public static let namespace = "http://ns.adobe.com/xap/1.0/"

    /// The rating in `packet` (−1 … 5), nil when there is none or it is not a number in range.
    public static func rating(_ packet: [UInt8]) -> Int? {
        let prefix = prefixBound(in: packet) ?? "xmp"
        let name = Array((prefix + ":Rating").utf8)
        var from = 0
        while let at = packet[from...].firstRange(of: name)?.lowerBound {
            from = at + name.count
            // The name must stand alone: not the tail of a longer one (`MicrosoftPhoto:Rating`
            // under a prefix ending in "xmp", `xmp:RatingPercent`).
            if at > 0, isNameByte(packet[at - 1]) || packet[at - 1] == UInt8(ascii: ":") { continue }
            var i = skipSpace(packet, from)
            guard i < packet.count else { return nil }
            if packet[i] == UInt8(ascii: "=") {
                // An attribute: ="5" or ='5'.
                i = skipSpace(packet, i + 1)
                guard i < packet.count, packet[i] == UInt8(ascii: "\"") || packet[i] == UInt8(ascii: "'") else { continue }
                let quote = packet[i]
                guard let end = packet[(i + 1)...].firstIndex(of: quote) else { return nil }
                return value(packet[(i + 1)..<end])
            }
            if packet[i] == UInt8(ascii: ">") {
                // An element: >5</xmp:Rating>.
                guard let end = packet[(i + 1)...].firstIndex(of: UInt8(ascii: "<")) else { return nil }
                return value(packet[(i + 1)..<end])
            }
        }
        return nil
    }

    /// The payload of a JPEG's XMP segment (APP1 starting "http://ns.adobe.com/xap/1.0/\0").
    public static func jpegPacket(_ b: [UInt8]) -> [UInt8]? {
        let signature = Array((namespace + "\0").utf8)
        return JPEGHandler.app1Segment(b, startingWith: signature).map { Array($0.dropFirst(signature.count)) }
    }

    /// The prefix `packet` binds to the XMP basic namespace (`xmlns:PREFIX="…/xap/1.0/"`).
    static func prefixBound(in packet: [UInt8]) -> String? {
        let ns = Array(namespace.utf8)
        var from = 0
        while let at = packet[from...].firstRange(of: ns)?.lowerBound {
            from = at + ns.count
            // Back over the opening quote, '=', and the attribute name `xmlns:PREFIX`.
            var i = at - 1
            guard i >= 0, packet[i] == UInt8(ascii: "\"") || packet[i] == UInt8(ascii: "'") else { continue }
            i -= 1
            while i >= 0, packet[i] == UInt8(ascii: " ") { i -= 1 }
            guard i >= 0, packet[i] == UInt8(ascii: "=") else { continue }
            i -= 1
            while i >= 0, packet[i] == UInt8(ascii: " ") { i -= 1 }
            let end = i + 1
            while i >= 0, isNameByte(packet[i]) { i -= 1 }
            guard i >= 5, packet[i] == UInt8(ascii: ":"), packet[(i - 5)..<i].elementsEqual("xmlns".utf8) else { continue }
            let prefix = String(decoding: packet[(i + 1)..<end], as: UTF8.self)
            if !prefix.isEmpty { return prefix }
        }
        return nil
    }

    /// A rating's text: an integer or a real ("5", " 4.0 "), rounded, −1 … 5.
    static func value(_ text: ArraySlice<UInt8>) -> Int? {
        let s = String(decoding: text, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard let d = Double(s), d.isFinite else { return nil }
        let v = Int(d.rounded())
        return (-1...5).contains(v) ? v : nil
    }

    static func isNameByte(_ c: UInt8) -> Bool {
        (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == UInt8(ascii: "_") || c == UInt8(ascii: "-")
            || c == UInt8(ascii: ".") || c >= 0x80
    }

    static func skipSpace(_ b: [UInt8], _ from: Int) -> Int {
        var i = from
        while i < b.count, b[i] == 0x20 || b[i] == 0x09 || b[i] == 0x0A || b[i] == 0x0D { i += 1 }
        return i
    }

}

/// An XMP sidecar next to a file: `NAME.EXT.xmp` (darktable, digiKam) or `NAME.xmp` (Lightroom,
/// RawTherapee, digiKam's other setting), either case of the extension; the first that is a
/// regular file.
public struct XMPSidecar: Sendable, Equatable {
    public var path: String
    public var modified: Int64

    /// The names a sidecar of the file named `name` may have, in the order they are looked for.
    public static func names(for name: String) -> [String] {
        var out = [name + ".xmp", name + ".XMP"]
        if let dot = name.lastIndex(of: "."), dot != name.startIndex {
            let stem = name[..<dot]
            out += [stem + ".xmp", stem + ".XMP"]
        }
        return out
    }

    /// The sidecar of the file at `path`, found with a `lstat` per candidate name; nil if none.
    public static func find(for path: String) -> XMPSidecar? {
        guard let slash = path.lastIndex(of: "/") else { return nil }
        let dir = path[..<slash]
        for n in names(for: String(path[path.index(after: slash)...])) {
            let p = dir + "/" + n
            if let st = FileSystem.lstatusIfExists(p), st.isRegular { return XMPSidecar(path: p, modified: st.mtimeNanoseconds) }
        }
        return nil
    }

    /// Whether `name` is an XMP sidecar's name (the scan and the agent watch them for their photos).
    public static func isSidecarName(_ name: String) -> Bool {
        name.count > 4 && name.lowercased().hasSuffix(".xmp")
    }

    /// The rating the sidecar holds (read up to 4 MB), nil when none or unreadable.
    public func rating() -> Int? {
        guard let bytes = try? FileSystem.readFile(path, limit: 4 << 20) else { return nil }
        return XMP.rating(bytes)
    }
}
