import SnapSortSystem
import SnapSortTestSupport
import Testing

@Suite struct ExifTests {
    @Test func builtBlocksParseBareAndWithThePrefix() throws {
        let tiff = Exif.build(
            dateTimeOriginal: "2024:05:01 10:00:00", offsetTimeOriginal: "+02:00", make: "Canon",
            model: "EOS R6", software: "1.0", orientation: 8)
        for block in [tiff, Array("Exif\0\0".utf8) + tiff] {
            let f = try #require(Exif.parse(block[...]))
            #expect(f.make == "Canon" && f.model == "EOS R6" && f.software == "1.0")
            #expect(f.orientation == 8)
            #expect(f.dateTimeOriginal == "2024:05:01 10:00:00" && f.offsetTimeOriginal == "+02:00")
            #expect(!f.hasGPS && f.thumbnail == nil)
        }
    }

    @Test func badOffsetsAndGarbageGiveNilOrPartialFieldsNeverACrash() throws {
        let tiff = Exif.build(dateTimeOriginal: "2024:05:01 10:00:00", make: "Canon", model: "EOS R6")
        // The first IFD offset pointing past the block.
        var bad = tiff
        bad[4] = 0xF0; bad[5] = 0xFF; bad[6] = 0xFF; bad[7] = 0x7F
        #expect(Exif.parse(bad[...]) == nil)
        // The ExifIFD pointer and the string offsets pointing anywhere.
        var rng = SplitMix(seed: 1)
        for _ in 0..<2000 {
            var b = tiff
            for _ in 0..<3 { b[Int(rng.next() % UInt64(b.count))] = UInt8(truncatingIfNeeded: rng.next()) }
            _ = Exif.parse(b[...])
        }
        #expect(Exif.parse([UInt8](repeating: 0, count: 3)[...]) == nil)
        #expect(Exif.parse(Array("Exif\0\0MM\0*".utf8)[...]) == nil)
    }

    @Test func anInvalidOrientationIsDropped() throws {
        let tiff = Exif.build(make: "X", orientation: 3)
        var b = tiff
        // Orientation 3 → 9 (the SHORT value in the entry).
        let i = try #require((8..<b.count - 8).first { b[$0] == 0x12 && b[$0 + 1] == 0x01 && b[$0 + 2] == 3 })
        b[i + 8] = 9
        let f = try #require(Exif.parse(b[...]))
        #expect(f.orientation == nil && f.make == "X")
    }
}
