import Foundation
import SnapSortSystem

/// The capture time a Google Takeout keeps beside each photo: `IMG_1.jpg.json` (older exports)
/// or `IMG_1.jpg.supplemental-metadata.json`, with `photoTakenTime.timestamp` (seconds since
/// 1970, as a string). Photos that lost their EXIF on the way (shared albums, messengers,
/// screenshots) arrive with the zip's extraction time as their mtime — every file of a folder
/// the same second — and the JSON is all that says when they were taken.
public enum TakeoutMetadata {
    /// The names a Takeout JSON of the file named `name` may have. Takeout cuts a JSON's name to
    /// 51 characters (46 before ".json"), and an edit (`-edited`) has no JSON of its own: its
    /// original's holds the time.
    public static func names(for name: String) -> [String] {
        var bases = [name]
        if let dot = name.lastIndex(of: "."), name[..<dot].hasSuffix("-edited") {
            bases.append(String(name[..<dot].dropLast("-edited".count)) + String(name[dot...]))
        }
        var out: [String] = []
        for b in bases {
            for stem in [b + ".supplemental-metadata", b] {
                for n in [stem + ".json", String(stem.prefix(46)) + ".json"] where !out.contains(n) { out.append(n) }
            }
        }
        return out
    }

    /// `photoTakenTime.timestamp` from the first JSON beside `path` that has one (read up to
    /// 1 MB); nil when none does. A time before 1990 is no capture time (an unset clock's 1970).
    public static func takenTime(for path: String) -> Double? {
        guard let slash = path.lastIndex(of: "/") else { return nil }
        let dir = path[..<slash]
        for n in names(for: String(path[path.index(after: slash)...])) {
            let p = dir + "/" + n
            guard let st = FileSystem.lstatusIfExists(p), st.isRegular, let bytes = try? FileSystem.readFile(p, limit: 1 << 20),
                let obj = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any],
                let taken = obj["photoTakenTime"] as? [String: Any]
            else { continue }
            let value = (taken["timestamp"] as? String).flatMap(Double.init) ?? (taken["timestamp"] as? NSNumber)?.doubleValue
            if let v = value, v >= 631_152_000, v.isFinite { return v }  // 1990-01-01
        }
        return nil
    }
}
