import Foundation
import SnapSortSystem
import Testing

@testable import SnapSortCore

/// SnapSort's own icon and its tray states (issue 43, item 1): the files the theme installs
/// (share/icons/hicolor) are `TrayIcon`'s drawing, and the states look different at every size.
@Suite struct TrayIconTests {
    static let theme = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../share/icons/hicolor").standardized.path

    /// Every state's scalable SVG and its PNG at 16, 22, 24, 32 and 48 px, as drawn.
    /// SNAPSORT_WRITE_ICONS=1 writes them (after a change to the drawing).
    @Test func theThemeHoldsTheDrawingAtEverySize() throws {
        let write = ProcessInfo.processInfo.environment["SNAPSORT_WRITE_ICONS"] == "1"
        for state in TrayIcon.State.allCases {
            let svg = Self.theme + "/scalable/apps/\(TrayIcon.name(state)).svg"
            if write {
                try FileSystem.makeDirectories((svg as NSString).deletingLastPathComponent, mode: 0o755)
                try FileSystem.writeAtomically(svg, Array(TrayIcon.svg(state).utf8), mode: 0o644)
            }
            #expect((try? String(contentsOfFile: svg, encoding: .utf8)) == TrayIcon.svg(state), "\(svg)")
            for size in TrayIcon.sizes {
                let png = Self.theme + "/\(size)x\(size)/apps/\(TrayIcon.name(state)).png"
                let drawn = Bitmap(width: size, height: size, channels: 4, pixels: TrayIcon.rgba(state, size: size))
                if write {
                    try FileSystem.makeDirectories((png as NSString).deletingLastPathComponent, mode: 0o755)
                    try FileSystem.writeAtomically(png, try PNG.encode(drawn), mode: 0o644)
                }
                let stored = try PNG.decode(FileSystem.readFile(png, limit: 1 << 20), channels: 4, maxPixels: 1 << 20)
                #expect(stored == drawn, "\(png)")
            }
        }
    }

    /// Every two states differ in many pixels at every size (not a pixel or two of a badge a
    /// person cannot see), and each has its own name.
    @Test func everyStateLooksItsOwn() {
        let states = TrayIcon.State.allCases
        #expect(Set(states.map(TrayIcon.name)).count == states.count)
        for size in TrayIcon.sizes {
            let drawn = states.map { TrayIcon.rgba($0, size: size) }
            for i in drawn.indices {
                for j in drawn.indices where j > i {
                    var differ = 0
                    for p in stride(from: 0, to: drawn[i].count, by: 4) {
                        let d = (0..<4).map { abs(Int(drawn[i][p + $0]) - Int(drawn[j][p + $0])) }.max()!
                        if d >= 64 { differ += 1 }
                    }
                    #expect(differ >= size * size / 40, "\(states[i]) and \(states[j]) at \(size) px differ in \(differ) pixels")
                }
            }
            // The camera fills the square: opaque in the middle, transparent in a corner.
            let middle = (size / 2 * size + size / 2) * 4 + 3
            #expect(drawn.allSatisfy { $0[middle] == 255 && $0[size * (size - 1) * 4 + 3] == 0 })
        }
    }
}
