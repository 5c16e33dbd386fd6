import Foundation
import SnapSortSystem
import SnapSortTestSupport
import Synchronization
import Testing

@testable import SnapSortCore

/// The QR gate (`Metrics.finderPatterns`) and the zbar inspection behind it, on a real photo with
/// a real QR code pasted in (Tests/Fixtures/qr, Tests/Fixtures/vision).
@Suite struct MetricsFinderPatternTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../Fixtures").standardized.path

    static func photo(_ name: String) throws -> Bitmap {
        try JPEG.decode(
            try FileSystem.readFile("\(fixtures)/vision/\(name)", limit: 1 << 24), scaleNumerator: 8,
            maxHeaderPixels: 1 << 24, maxOutputPixels: 1 << 24
        ).bitmap
    }

    /// `photo` with the fixture QR code pasted at (cx, cy), `side` px wide, turned by `degrees`
    /// (nearest neighbour, as a phone photographing a ticket at an angle would see it, minus blur).
    static func withCode(_ photo: Bitmap, side: Int, degrees: Double, cx: Int, cy: Int) throws -> Bitmap {
        let qr = try PNG.decode(try FileSystem.readFile("\(fixtures)/qr/ticket.png", limit: 1 << 20), channels: 3, maxPixels: 1 << 20)
        var out = photo
        let a = degrees * Double.pi / 180
        let scale = Double(qr.width) / Double(side)
        let reach = Int(Double(side) * 0.75)
        for y in max(0, cy - reach)..<min(out.height, cy + reach) {
            for x in max(0, cx - reach)..<min(out.width, cx + reach) {
                let dx = Double(x - cx), dy = Double(y - cy)
                // Into the code's frame: rotate back, then scale to its pixels.
                let u = (cos(a) * dx + sin(a) * dy) * scale + Double(qr.width) / 2
                let v = (-sin(a) * dx + cos(a) * dy) * scale + Double(qr.height) / 2
                let qx = Int(u.rounded(.down)), qy = Int(v.rounded(.down))
                guard qx >= 0, qy >= 0, qx < qr.width, qy < qr.height else { continue }
                for k in 0..<3 { out.pixels[(y * out.width + x) * 3 + k] = qr.pixels[(qy * qr.width + qx) * 3 + k] }
            }
        }
        return out
    }

    static func finderPatterns(_ b: Bitmap) -> Int {
        MetricsComputer.measure(b, orientation: 1, decodeScale: 8).0.finderPatterns
    }

    @Test(arguments: [0.0, 12.0, -20.0, 35.0])
    func aCodeInAPhotoShowsItsThreeFinderPatterns(_ degrees: Double) throws {
        let b = try Self.withCode(try Self.photo("astronaut.jpg"), side: 150, degrees: degrees, cx: 330, cy: 360)
        #expect(Self.finderPatterns(b) == 3)
        #expect(GroupRules().isQRCandidate(GroupsRulesTests.item("/p/x.jpg"), MetricsComputer.measure(b, orientation: 1, decodeScale: 8).0))
    }

    /// Real photos (a portrait, a cat, a forest) have many 1:1:3:1:1 runs along their rows but no
    /// concentric squares in a code's layout: the gate keeps zbar away from them. A cup seen from
    /// above is concentric rings, so a pair of its centres passes (the gate lets a pair through
    /// for codes that lose a finder to blur), but never a code's corner triangle.
    @Test(arguments: [("astronaut.jpg", 1), ("chelsea.jpg", 1), ("forest-path.jpg", 1), ("coffee.jpg", 2)])
    func photosWithoutACodeStayBelowTheGate(_ name: String, _ most: Int) throws {
        let m = MetricsComputer.measure(try Self.photo(name), orientation: 1, decodeScale: 8).0
        #expect(m.finderPatterns <= most, "\(name): \(m.finderPatterns)")
        #expect(GroupRules().isQRCandidate(GroupsRulesTests.item("/p/x.jpg"), m) == (most >= 2))
    }

    @Test func syntheticScenesStayBelowTheGate() {
        for seed in UInt64(1)...6 {
            #expect(Self.finderPatterns(Fixtures.scene(width: 800, height: 600, seed: seed)) < 2, "seed \(seed)")
        }
    }

    /// The live inspector finds and decodes the code through zbar, from the file on disk.
    @Test func theLiveInspectorDecodesTheCodeFromTheFile() throws {
        let dir = TempDir()
        let b = try Self.withCode(try Self.photo("astronaut.jpg"), side: 150, degrees: 15, cx: 300, cy: 330)
        let path = dir.path + "/IMG_0001.jpg"
        try FileSystem.writeAtomically(path, Fixtures.jpeg(b, quality: 92))
        var item = GroupsRulesTests.item(path, width: b.width, height: b.height)
        item.orientation = 1
        #expect(FileInspector.live.decodeQR(InspectedFile(item, enoughWords: 12)) == "https://example.com/t/SNAPSORT-42")
        item.path = dir.path + "/missing.jpg"
        #expect(FileInspector.live.decodeQR(InspectedFile(item, enoughWords: 12)) == nil)
    }

    /// zbar reads half the inspection size first; a code too small for that (here ~2 px per
    /// module) is read at the full size next. A large code never needs the full size.
    @Test(arguments: [(64, false), (300, true)])
    func aSmallCodeIsReadAtTheFullInspectionSize(_ side: Int, _ readsAtHalf: Bool) throws {
        let dir = TempDir()
        let b = try Self.withCode(try Self.photo("astronaut.jpg"), side: side, degrees: 0, cx: 256, cy: 256)
        let path = dir.path + "/IMG_0001.jpg"
        try FileSystem.writeAtomically(path, Fixtures.jpeg(b, quality: 95))
        let file = InspectedFile(GroupsRulesTests.item(path, width: b.width, height: b.height), enoughWords: 12)
        let decoded = try #require(file.bitmap)
        #expect((try QR.decode(decoded.halved()) != nil) == readsAtHalf)
        #expect(FileInspector.live.decodeQR(file) == "https://example.com/t/SNAPSORT-42")
    }

    /// With an inspector, the scanner's workers decode the code right after the analysis and store
    /// the payload with the row; the grouper then finds it and decodes nothing itself.
    @Test func theScannerWorkersInspectAndTheGrouperReusesTheirFindings() throws {
        let t = try TestLibrary()
        let b = try Self.withCode(try Self.photo("astronaut.jpg"), side: 150, degrees: -10, cx: 300, cy: 330)
        t.dir.write("Pictures/IMG_0001.jpg", Fixtures.jpeg(b, quality: 92, dateTimeOriginal: "2024:10:19 10:00:00"))
        t.dir.write("Pictures/IMG_0002.jpg", Fixtures.jpeg(try Self.photo("chelsea.jpg"), quality: 92, dateTimeOriginal: "2024:10:19 11:00:00"))
        let workerCalls = Mutex(0), grouperCalls = Mutex(0)
        let scanner = t.scanner()
        scanner.inspector = FileInspector(
            decodeQR: { file in
                workerCalls.withLock { $0 += 1 }; return FileInspector.live.decodeQR(file)
            },
            recognizeText: { _ in (0, "") })
        _ = try scanner.scan([t.root])
        #expect(workerCalls.withLock { $0 } == 1)  // the code, not the cat
        var grouper = Grouper(library: t.library)
        grouper.inspector = FileInspector(
            decodeQR: { _ in
                grouperCalls.withLock { $0 += 1 }; return nil
            }, recognizeText: { _ in (0, "") })
        try grouper.regroupAll()
        #expect(grouperCalls.withLock { $0 } == 0)
        let qr = try t.library.groupMembers(.qr)
        #expect(qr.map { String($0.item.path.split(separator: "/").last!) } == ["IMG_0001.jpg"])
        #expect(qr.first?.qrPayload == "https://example.com/t/SNAPSORT-42")
        #expect(try t.library.db.scalar("SELECT count(*) FROM file_findings WHERE qr_payload = ?", "https://example.com/t/SNAPSORT-42") == 1)
    }
}
