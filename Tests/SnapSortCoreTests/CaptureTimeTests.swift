import Foundation
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

    @Test(arguments: ["0000:00:00 00:00:00", "", "garbage", "2024:13:01 00:00:00"])
    func invalidExifDates(s: String) {
        #expect(CaptureTime.fromExif(s) == nil)
    }
}
