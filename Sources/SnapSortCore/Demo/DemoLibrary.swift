import Foundation
import SnapSortSystem

/// Where SnapSort's shipped data (demo sources, web assets, models) lives: `SNAPSORT_DATA_DIR`,
/// else `<prefix>/share/snapsort` next to the installed binary, else the source tree's `share/`.
public enum DataDirectory {
    public static func find(_ env: Environment, executable: String = CommandLine.arguments.first ?? "") -> String? {
        var candidates: [String] = []
        if let d = env["SNAPSORT_DATA_DIR"] { candidates.append(d) }
        let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? executable
        let bin = (exe as NSString).deletingLastPathComponent
        candidates.append((bin as NSString).appendingPathComponent("../share/snapsort"))
        // Development: the repository's share/ folder, found from this source file.
        let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../../share").standardized.path
        candidates.append(source)
        return candidates.first { FileManager.default.fileExists(atPath: $0 + "/demo/fruits.jpg") }
            .map { URL(fileURLWithPath: $0).standardized.path }
    }
}

/// `snapsort demo`: a small library of real photos and the clutter SnapSort finds, made with
/// the program's own encoders. Never written inside the user's photo folders.
public enum DemoLibrary {
    /// The default folder: `$XDG_DATA_HOME/snapsort/demo-library`. Not `…/snapsort/demo`: with
    /// `make install PREFIX=~/.local` that is where the demo's sources are installed.
    public static func defaultPath(_ env: Environment) -> String { env.dataHome + "/snapsort/demo-library" }

    public struct Written: Sendable {
        public var folder: String
        public var files: [String]
    }

    /// Writes the demo library into `folder` (created; existing files are never overwritten).
    public static func write(to folder: String, sources: String) throws -> Written {
        try FileSystem.makeDirectories(folder + "/Camera")
        try FileSystem.makeDirectories(folder + "/Screenshots")
        try FileSystem.makeDirectories(folder + "/Documents")
        try FileSystem.makeDirectories(folder + "/WhatsApp Images")
        var written: [String] = []
        let limit = 64 * 1024 * 1024
        func put(_ rel: String, _ bytes: [UInt8]) throws {
            let path = folder + "/" + rel
            if FileSystem.exists(path) { return }
            try FileSystem.writeAtomically(path, bytes)
            written.append(path)
        }
        func load(_ name: String) throws -> Bitmap {
            let data = try FileSystem.readFile(sources + "/" + name, limit: limit)
            return try JPEG.decode(data, scaleNumerator: 8, maxHeaderPixels: 100_000_000, maxOutputPixels: 100_000_000).bitmap
        }
        let day = "2024:06:15"
        func exif(_ time: String, model: String = "Pixel 7") -> [UInt8] {
            Exif.build(dateTimeOriginal: "\(day) \(time)", offsetTimeOriginal: "+02:00", make: "Google", model: model)
        }
        // Camera photos with EXIF.
        let photos = [
            ("fruits.jpg", "PXL_20240615_101500123.jpg", "10:15:00"), ("building.jpg", "PXL_20240615_113000456.jpg", "11:30:00"),
            ("messi5.jpg", "PXL_20240615_140000789.jpg", "14:00:00"), ("leuvenA.jpg", "PXL_20240615_160000111.jpg", "16:00:00"),
        ]
        for (src, dst, t) in photos {
            try put("Camera/" + dst, try JPEG.encode(try load(src), quality: 92, exif: exif(t)))
        }
        // A burst of the orange: three frames a second apart, one of them shaken.
        let orange = try load("orange.jpg")
        try put("Camera/PXL_20240615_120000001.jpg", try JPEG.encode(orange, quality: 92, exif: exif("12:00:00")))
        try put("Camera/PXL_20240615_120001002.jpg", try JPEG.encode(Filters.shift(orange, dx: 6, dy: 3), quality: 92, exif: exif("12:00:01")))
        try put("Camera/PXL_20240615_120002003.jpg", try JPEG.encode(Filters.boxBlur(orange, radius: 5), quality: 92, exif: exif("12:00:02")))
        // A blurred frame, a dark pocket shot, an exact and a re-encoded duplicate.
        let fruits = try load("fruits.jpg")
        try put("Camera/PXL_20240615_101502999.jpg", try JPEG.encode(Filters.boxBlur(fruits, radius: 7), quality: 90, exif: exif("10:15:02")))
        try put("Camera/PXL_20240615_180000000.jpg", try JPEG.encode(Filters.darken(fruits, factor: 0.04), quality: 90, exif: exif("18:00:00")))
        let building = try FileSystem.readFile(sources + "/building.jpg", limit: limit)
        try put("Camera/IMG_copy_building.jpg", building)
        try put("Camera/IMG_copy_building (1).jpg", building)
        try put("WhatsApp Images/IMG-20240615-WA0001.jpg", try JPEG.encode(try load("building.jpg"), quality: 70))
        // A receipt, a screenshot, a short video.
        try put("Documents/receipt.jpg", try FileSystem.readFile(sources + "/receipt.jpg", limit: limit))
        try put("Screenshots/Screenshot From 2024-06-15 09-41-07.png", try PNG.encode(Filters.screenshot(width: 1280, height: 800)))
        try put("Camera/PXL_20240615_190000000.mp4", try FileSystem.readFile(sources + "/clip.mp4", limit: limit))
        // The demo tells one day: the files without a capture time of their own (the copies,
        // the receipt, the screenshot) carry its evening as their file time, not today's.
        for path in written { try FileSystem.setTimes(path, secondsSince1970: 1_718_474_400) }  // 2024-06-15 20:00 +02:00
        return Written(folder: folder, files: written)
    }
}

/// The small image operations the demo library (and tests) use to derive variants.
public enum Filters {
    /// A separable box blur.
    public static func boxBlur(_ b: Bitmap, radius: Int) -> Bitmap {
        var out = b
        let w = b.width, h = b.height, c = b.channels
        var tmp = b.pixels
        for y in 0..<h {
            for x in 0..<w {
                for k in 0..<c {
                    var s = 0, n = 0
                    for dx in -radius...radius { let xx = min(w - 1, max(0, x + dx)); s += Int(b.pixels[(y * w + xx) * c + k]); n += 1 }
                    tmp[(y * w + x) * c + k] = UInt8(s / n)
                }
            }
        }
        for y in 0..<h {
            for x in 0..<w {
                for k in 0..<c {
                    var s = 0, n = 0
                    for dy in -radius...radius { let yy = min(h - 1, max(0, y + dy)); s += Int(tmp[(yy * w + x) * c + k]); n += 1 }
                    out.pixels[(y * w + x) * c + k] = UInt8(s / n)
                }
            }
        }
        return out
    }

    /// Scales every channel by `factor` (a pocket shot at 0.04).
    public static func darken(_ b: Bitmap, factor: Double) -> Bitmap {
        var out = b
        for i in 0..<out.pixels.count { out.pixels[i] = UInt8(min(255, Double(b.pixels[i]) * factor)) }
        return out
    }

    /// Shifts the frame by (dx, dy), repeating the edge.
    public static func shift(_ b: Bitmap, dx: Int, dy: Int) -> Bitmap {
        var out = b
        let w = b.width, h = b.height, c = b.channels
        for y in 0..<h {
            for x in 0..<w {
                let sx = min(w - 1, max(0, x - dx)), sy = min(h - 1, max(0, y - dy))
                for k in 0..<c { out.pixels[(y * w + x) * c + k] = b.pixels[(sy * w + sx) * c + k] }
            }
        }
        return out
    }

    /// A flat, window-like synthetic screen (title bar, panels, text-like rows).
    public static func screenshot(width: Int, height: Int) -> Bitmap {
        var b = Bitmap(width: width, height: height, channels: 3, fill: 246)
        func rect(_ x0: Int, _ y0: Int, _ x1: Int, _ y1: Int, _ rgb: (UInt8, UInt8, UInt8)) {
            for y in max(0, y0)..<min(height, y1) {
                for x in max(0, x0)..<min(width, x1) {
                    let i = (y * width + x) * 3
                    b.pixels[i] = rgb.0; b.pixels[i + 1] = rgb.1; b.pixels[i + 2] = rgb.2
                }
            }
        }
        rect(0, 0, width, 36, (48, 48, 52))
        rect(0, 36, 220, height, (232, 232, 236))
        for row in 0..<18 {
            let y = 70 + row * 36
            rect(250, y, 250 + 200 + (row * 97) % 600, y + 12, (60, 60, 70))
            rect(20, y, 180, y + 10, (120, 120, 130))
        }
        rect(width - 160, height - 70, width - 30, height - 30, (53, 132, 228))
        return b
    }
}
