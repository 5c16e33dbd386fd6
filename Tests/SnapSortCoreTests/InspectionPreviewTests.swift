import SnapSortSystem
import SnapSortTestSupport
import Testing

@testable import SnapSortCore

/// The scanner's worker hands the decode the metrics measured to the inspections
/// (`InspectedFile`), so a QR or OCR candidate is not decoded again where that decode serves.
/// Each inspected file here points at a path that does not exist: whatever is found was found
/// in the analysis's own decode.
@Suite struct InspectionPreviewTests {
    static let payload = "https://example.com/t/SNAPSORT-42"

    /// A 2000×1500 scene with the fixture code pasted in, `side` px wide.
    static func sceneWithCode(side: Int) throws -> Bitmap {
        try MetricsFinderPatternTests.withCode(Fixtures.scene(width: 2000, height: 1500, seed: 5), side: side, degrees: 0, cx: 1000, cy: 750)
    }

    static func inspected(_ path: String, _ r: AnalysisResult, format: String) -> InspectedFile {
        var item = GroupsRulesTests.item(path, format: format, width: r.width ?? 0, height: r.height ?? 0)
        item.orientation = r.exif?.orientation ?? 1
        return InspectedFile(item, enoughWords: 12, preview: r.preview)
    }

    /// A JPEG whose metrics decode (1/2 here: 1000 px) is half its inspection size (the whole
    /// 2000 px): a large code is read in that decode, with no file to decode again.
    @Test func aJPEGsMetricsDecodeIsTheFirstLook() throws {
        let dir = TempDir()
        let r = try #require(try Analyzer().analyzeBytes(Fixtures.jpeg(try Self.sceneWithCode(side: 500), quality: 92), name: "IMG_0001.jpg"))
        #expect(r.preview?.scale == 4)
        let file = Self.inspected(dir.path + "/missing.jpg", r, format: "jpeg")
        #expect(file.half?.width == 1000 && file.half?.channels == 1)
        #expect(FileInspector.live.decodeQR(file) == Self.payload)
    }

    /// A code too small for the first look (~2 px per module at 1000 px) needs the inspection
    /// size, decoded from the file: not found when the file is gone, found when it is there.
    @Test func aSmallCodeStillDecodesTheFileAtTheInspectionSize() throws {
        let dir = TempDir()
        let bytes = Fixtures.jpeg(try Self.sceneWithCode(side: 110), quality: 95)
        let r = try #require(try Analyzer().analyzeBytes(bytes, name: "IMG_0001.jpg"))
        #expect(r.preview?.scale == 4)
        #expect(FileInspector.live.decodeQR(Self.inspected(dir.path + "/missing.jpg", r, format: "jpeg")) == nil)
        let path = dir.write("IMG_0001.jpg", bytes)
        #expect(FileInspector.live.decodeQR(Self.inspected(path, r, format: "jpeg")) == Self.payload)
    }

    /// A PNG is decoded whole for the metrics: that decode is the inspection size itself.
    @Test func aPNGIsInspectedInItsMetricsDecode() throws {
        let dir = TempDir()
        let b = try MetricsFinderPatternTests.withCode(Fixtures.scene(width: 800, height: 600, seed: 3), side: 60, degrees: 0, cx: 400, cy: 300)
        let r = try #require(try Analyzer().analyzeBytes(Fixtures.png(b), name: "Screenshot_20241019-101010.png"))
        #expect(r.preview?.scale == 8)
        let file = Self.inspected(dir.path + "/missing.png", r, format: "png")
        #expect(file.bitmap == b.gray())
        #expect(FileInspector.live.decodeQR(file) == Self.payload)
    }

    /// An inspection without the decode (the grouper's, of a file no worker inspected) decodes
    /// the file, as before.
    @Test func withoutAPreviewTheFileIsDecoded() throws {
        let dir = TempDir()
        let bytes = Fixtures.jpeg(try Self.sceneWithCode(side: 500), quality: 92)
        let path = dir.write("IMG_0001.jpg", bytes)
        var r = try #require(try Analyzer().analyzeBytes(bytes, name: "IMG_0001.jpg"))
        r.preview = nil
        #expect(FileInspector.live.decodeQR(Self.inspected(dir.path + "/missing.jpg", r, format: "jpeg")) == nil)
        #expect(FileInspector.live.decodeQR(Self.inspected(path, r, format: "jpeg")) == Self.payload)
    }
}
