import Foundation
import SnapSortCore
import SnapSortSystem
import SnapSortTestSupport

@testable import SnapSortWeb

/// A library with a few photos (a burst that groups, a rotated one, a screenshot, a video,
/// a HEIC when libheif can encode) and a live server on loopback in a temp home.
final class WebHarness: @unchecked Sendable {
    let lib: TestLibrary
    let env: Environment
    let server: WebServer
    var port: Int { server.port }
    var token: String { server.token }
    var home: String { lib.dir.at("home") }
    private(set) var ids: [String: Int64] = [:]

    static var webRoot: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../share/web").standardized.path
    }

    /// `pages`: also a ticket's QR code and a printed letter (Tests/Fixtures), which the
    /// regroup reads (the browser test shows what it read on their cards).
    /// `limits`: the server's connection limits (default: the live ones).
    /// `logger`: the server's (default: silent).
    init(
        writeInfo: Bool = false, heic: Bool = true, pages: Bool = false, limits: HTTPServer.Limits = HTTPServer.Limits(),
        logger: Logger = .silent
    ) throws {
        lib = try TestLibrary()
        let home = lib.dir.folder("home")
        env = Environment(
            variables: [
                "HOME": home, "XDG_CACHE_HOME": home + "/.cache", "XDG_DATA_HOME": home + "/.local/share",
                "XDG_CONFIG_HOME": home + "/.config", "XDG_STATE_HOME": home + "/.local/state",
                "XDG_RUNTIME_DIR": lib.dir.folder("run"),
            ], home: home)
        let root = lib.root
        let dir = lib.dir
        for (name, bytes) in Self.files where heic || !name.hasSuffix(".heic") { _ = dir.write("Pictures/" + name, bytes) }
        if pages {
            _ = dir.write("Pictures/ticket.png", try FileSystem.readFile(Self.fixture("qr/ticket.png"), limit: 1 << 20))
            _ = dir.write("Pictures/letter.png", try FileSystem.readFile(Self.fixture("ocr/page.png"), limit: 1 << 22))
        }
        try lib.scan([root])
        try Grouper(library: lib.library).regroupAll()
        for item in try lib.library.items() { ids[item.name] = item.id }
        var o = WebServer.Options(dbPath: lib.dbPath, config: Configuration(), env: env)
        o.port = 0
        o.webRoot = Self.webRoot
        o.writeInfo = writeInfo
        o.addresses = ["127.0.0.1", "::1"]
        o.trashEnvironment = TrashEnvironment(environment: env)
        o.limits = limits
        o.logger = logger
        server = try WebServer.start(o)
    }

    deinit { server.stop() }

    /// The library's files, made once per test process (the encoders run unoptimized here).
    static let files: [(String, [UInt8])] = {
        var out: [(String, [UInt8])] = []
        out.append(("IMG_0001.jpg", Fixtures.jpeg(seed: 7, quality: 92, dateTimeOriginal: "2024:05:04 10:00:00", make: "Cam", model: "One")))
        out.append(("IMG_0002.jpg", Fixtures.jpeg(seed: 7, quality: 80, dateTimeOriginal: "2024:05:04 10:00:01", make: "Cam", model: "One")))
        out.append(("IMG_0003.jpg", Fixtures.jpeg(seed: 7, quality: 70, dateTimeOriginal: "2024:05:04 10:00:02", make: "Cam", model: "One")))
        out.append(
            (
                "rotated.jpg",
                Fixtures.jpeg(seed: 3, width: 640, height: 480, dateTimeOriginal: "2023:08:01 12:00:00", orientation: 6, make: "Cam", model: "One")
            ))
        out.append(("beach.jpg", Fixtures.jpeg(seed: 11, dateTimeOriginal: "2022:07:14 16:30:00", make: "Cam", model: "One")))
        out.append(("Screenshot_20230101_101010.png", Fixtures.png(seed: 5, width: 360, height: 640)))
        if let clip = try? FileSystem.readFile(fixture("video/tiny.mp4"), limit: 1 << 24) { out.append(("clip.mp4", clip)) }
        if HEIF.canEncode {
            let exif = Exif.build(dateTimeOriginal: "2021:03:03 09:00:00", make: "Phone", model: "X")
            if let heic = try? HEIF.encode(Fixtures.scene(width: 480, height: 320, seed: 9), exif: exif) { out.append(("phone.heic", heic)) }
        }
        return out
    }()

    static func fixture(_ rel: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../Fixtures/" + rel).standardized.path
    }

    func id(_ name: String) -> Int64 { ids[name]! }

    var auth: [(String, String)] { [("Authorization", "Bearer \(token)")] }
    var origin: (String, String) { ("Origin", "http://127.0.0.1:\(port)") }

    func get(_ target: String, _ headers: [(String, String)]? = nil) throws -> LoopbackHTTP.Response {
        try LoopbackHTTP.request("GET", target, port: port, headers: headers ?? auth)
    }

    func post(_ target: String, _ json: String, _ headers: [(String, String)]? = nil) throws -> LoopbackHTTP.Response {
        try LoopbackHTTP.request(
            "POST", target, port: port, headers: headers ?? (auth + [origin, ("Content-Type", "application/json")]),
            body: Array(json.utf8))
    }

    func json(_ r: LoopbackHTTP.Response) -> JSON { JSON.parse(r.text) ?? .null }
}
