import Foundation
import SnapSortSystem

/// Files that travel with a photo: `IMG_1234.xmp`, `IMG_1234.jpg.xmp`, `IMG_1234.aae`, and a
/// Live Photo's `IMG_1234.mov` next to its `.heic`/`.jpg`.
public enum Sidecars {
    /// A Live Photo's motion clip is about 3 s long and starts with its still, give or take.
    static let livePhotoSeconds: Double = 5
    /// What travels with item `id` at `path`: the files named after it (`find`) and the RAW of a
    /// RAW+JPEG pair (`Library.sidecars`: same folder, stem and capture time), which is not
    /// reviewed on its own — the pair is one item.
    public static func all(of id: Int64, path: String, library: Library) throws -> [String] {
        var out = find(for: path)
        for raw in try library.sidecars(of: id) {
            // The RAW, and what is named after it (darktable's `DSC_0101.NEF.xmp`: its edits and rating).
            for p in [raw.path] + find(for: raw.path) where p != path && !out.contains(p) { out.append(p) }
        }
        return out.sorted()
    }

    public static func find(for path: String) -> [String] {
        guard let slash = path.lastIndex(of: "/") else { return [] }
        let dir = String(path[..<slash])
        let name = String(path[path.index(after: slash)...])
        let dot = name.lastIndex(of: ".")
        let stem = dot.map { String(name[..<$0]) } ?? name
        let ext = dot.map { name[name.index(after: $0)...].lowercased() } ?? ""
        guard let entries = try? FileSystem.listDirectory(dir) else { return [] }
        var out: [String] = []
        for e in entries where e.name != name {
            let lower = e.name.lowercased()
            let s = stem.lowercased()
            var match = lower == s + ".xmp" || lower == name.lowercased() + ".xmp" || lower == s + ".aae"
            if ["heic", "heif", "jpg", "jpeg"].contains(ext) && lower == s + ".mov" { match = true }
            if match, e.kind == .regular || e.kind == .unknown { out.append(dir + "/" + e.name) }
        }
        return out.sorted()
    }
}
