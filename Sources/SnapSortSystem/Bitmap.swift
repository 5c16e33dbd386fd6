/// An 8-bit interleaved pixel buffer (1 = gray, 3 = RGB, 4 = RGB and a pad byte, as
/// `JPEG.decode(padded:)` gives it to the metrics).
public struct Bitmap: Sendable, Equatable {
    public var width: Int
    public var height: Int
    public var channels: Int
    public var pixels: [UInt8]

    public init(width: Int, height: Int, channels: Int, pixels: [UInt8]) {
        precondition(pixels.count == width * height * channels, "bitmap size mismatch")
        self.width = width
        self.height = height
        self.channels = channels
        self.pixels = pixels
    }

    public init(width: Int, height: Int, channels: Int, fill: UInt8 = 0) {
        self.init(width: width, height: height, channels: channels, pixels: [UInt8](repeating: fill, count: width * height * channels))
    }
}

extension Bitmap {
    /// One channel of BT.601 luma (JPEG's Y), rounded; a gray bitmap as it is.
    public func gray() -> Bitmap {
        guard channels != 1 else { return self }
        let n = width * height, c = channels
        var out = [UInt8](repeating: 0, count: n)
        pixels.withUnsafeBufferPointer { p in
            for i in 0..<n {
                let v = 0.299 * Double(p[i * c]) + 0.587 * Double(p[i * c + 1]) + 0.114 * Double(p[i * c + 2])
                out[i] = UInt8(min(255, v.rounded()))
            }
        }
        return Bitmap(width: width, height: height, channels: 1, pixels: out)
    }

    /// Half the width and height (rounded down), each pixel the mean of a 2×2 block.
    public func halved() -> Bitmap {
        let w = width / 2, h = height / 2, c = channels
        var out = [UInt8](repeating: 0, count: w * h * c)
        pixels.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                for y in 0..<h {
                    let top = 2 * y * width * c, bottom = top + width * c, o = y * w * c
                    for x in 0..<w {
                        for k in 0..<c {
                            let i = 2 * x * c + k
                            let sum = Int(src[top + i]) + Int(src[top + i + c]) + Int(src[bottom + i]) + Int(src[bottom + i + c])
                            dst[o + x * c + k] = UInt8((sum + 2) >> 2)
                        }
                    }
                }
            }
        }
        return Bitmap(width: w, height: h, channels: c, pixels: out)
    }

    /// Applies an EXIF orientation (1…8) so the picture is upright (EXIF 2.3, tag 0x0112: the
    /// table of where row 0 and column 0 sit). 1 and unknown values return the bitmap as is.
    public func oriented(_ orientation: Int) -> Bitmap {
        guard (2...8).contains(orientation) else { return self }
        let c = channels
        let swap = orientation >= 5
        let w = swap ? height : width, h = swap ? width : height
        var out = [UInt8](repeating: 0, count: w * h * c)
        pixels.withUnsafeBufferPointer { src in
            for y in 0..<h {
                for x in 0..<w {
                    // Source coordinates for destination (x, y).
                    let sx: Int, sy: Int
                    switch orientation {
                    case 2: (sx, sy) = (width - 1 - x, y)
                    case 3: (sx, sy) = (width - 1 - x, height - 1 - y)
                    case 4: (sx, sy) = (x, height - 1 - y)
                    case 5: (sx, sy) = (y, x)
                    case 6: (sx, sy) = (y, height - 1 - x)
                    case 7: (sx, sy) = (width - 1 - y, height - 1 - x)
                    default: (sx, sy) = (width - 1 - y, x)
                    }
                    let s = (sy * width + sx) * c, d = (y * w + x) * c
                    for k in 0..<c { out[d + k] = src[s + k] }
                }
            }
        }
        return Bitmap(width: w, height: h, channels: c, pixels: out)
    }
}
