import Foundation
import SnapSortSystem
import SnapSortTestSupport
import Testing

@testable import SnapSortCore

@Suite struct CaptureTimeTests {
    @Test(arguments: [
        ("IMG_20240501_123456.jpg", "2024-05-01T12:34:56"),
        ("PXL_20231224_081500123.jpg", "2023-12-24T08:15:00"),
        ("Screenshot From 2024-03-02 21-05-09.png", "2024-03-02T21:05:09"),
        ("Screenshot_20240102-030405.png", "2024-01-02T03:04:05"),
        ("Screenshot_2024-01-02-03-04-05-123_com.app.jpg", "2024-01-02T03:04:05"),
        ("IMG-20240501-WA0001.jpg", "2024-05-01T12:00:00"),
        ("2019-07-04 18.30.00.jpg", "2019-07-04T18:30:00"),
        ("signal-2024-02-29-101010.jpg", "2024-02-29T10:10:10"),
        // macOS in other languages: the word before the time.
        ("Screenshot 2024-10-19 at 12.34.56.png", "2024-10-19T12:34:56"),
        ("Bildschirmfoto 2024-10-19 um 12.34.56.png", "2024-10-19T12:34:56"),
        ("Capture d’écran 2024-10-19 à 12.36.00.png", "2024-10-19T12:36:00"),
        ("Captura de pantalla 2024-10-19 a las 12.38.00.png", "2024-10-19T12:38:00"),
        ("Schermafbeelding 2024-10-19 om 12.42.00.png", "2024-10-19T12:42:00"),
        ("IMG_20241019_WA0001.jpg", "2024-10-19T12:00:00"),
    ])
    func datesInFileNames(name: String, expected: String) {
        #expect(CaptureTime.fromFileName(name)?.text == expected)
        #expect(CaptureTime.fromFileName(name)?.source == .filename)
    }

    @Test(arguments: ["IMG_1234.JPG", "DSC00042.jpg", "photo_99999999.jpg", "IMG_20241399_000000.jpg", "a.jpg"])
    func namesWithoutADate(name: String) {
        #expect(CaptureTime.fromFileName(name) == nil)
    }

    @Test func exifWithOffsetIsAnInstant() throws {
        let t = try #require(CaptureTime.fromExif("2024:05:01 12:00:00", offset: "+02:00"))
        #expect(t.text == "2024-05-01T12:00:00+02:00")
        #expect(t.timestamp == 1_714_557_600)
        let n = try #require(CaptureTime.fromExif("2024:05:01 12:00:00", offset: "-05:30"))
        #expect(n.timestamp == 1_714_584_600)
    }

    @Test(arguments: ["0000:00:00 00:00:00", "", "garbage", "2024:13:01 00:00:00", "1970:01:01 00:00:00", "1970:01:01 00:01:07"])
    func invalidExifDates(s: String) {
        #expect(CaptureTime.fromExif(s) == nil)
    }

    /// A Google Takeout's JSON gives photos without EXIF their capture time (the zip gave them all
    /// one mtime); an edit takes its original's; the two "same spot, a year apart" photos are no
    /// longer one moment.
    @Test func aTakeoutJSONGivesTheCaptureTime() throws {
        let t = try TestLibrary()
        let bytes = Fixtures.jpeg(Fixtures.scene(width: 320, height: 240, seed: 3))
        func json(_ ts: Int) -> [UInt8] { Array(#"{"title": "x", "photoTakenTime": {"timestamp": "\#(ts)", "formatted": "…"}}"#.utf8) }
        t.dir.write("Pictures/Takeout/a.jpg", bytes)
        t.dir.write("Pictures/Takeout/a.jpg.supplemental-metadata.json", json(1_682_935_200))  // 2023-05-01 10:00 UTC
        t.dir.write("Pictures/Takeout/b.jpg", bytes + [0])
        t.dir.write("Pictures/Takeout/b.jpg.json", json(1_714_557_600))  // 2024-05-01 10:00 UTC
        t.dir.write("Pictures/Takeout/b-edited.jpg", Fixtures.jpeg(Fixtures.scene(width: 320, height: 240, seed: 4)))
        for n in ["a.jpg", "b.jpg", "b-edited.jpg"] { try FileSystem.setTimes(t.dir.at("Pictures/Takeout/" + n), secondsSince1970: 1_730_578_500) }
        try t.scan()
        var taken: [String: (Double, String)] = [:]
        for r in try t.library.db.rows("SELECT path, taken_ts, taken_source FROM files") {
            taken[String(r.string(0)!.split(separator: "/").last!)] = (r.double(1)!, r.string(2)!)
        }
        #expect(taken["a.jpg"]!.0 == 1_682_935_200 && taken["a.jpg"]!.1 == "metadata")
        #expect(taken["b.jpg"]!.0 == 1_714_557_600 && taken["b-edited.jpg"]!.0 == 1_714_557_600)
        #expect(TakeoutMetadata.names(for: "PXL_20241018_113235514.jpg").contains("PXL_20241018_113235514.jpg.supplemental-metada.json"))
    }
}
