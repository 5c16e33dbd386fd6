import Foundation
// swift-tools-version:6.0
import PackageDescription

// One settings loop applies the same strict flags to every Swift target.
// SNAPSORT_WERROR=1 turns warnings into errors; `make test` fails on any warning without it
// (scripts/build-checked.sh), so flags stay the same across `make run` and `make test`.
let strict: [SwiftSetting] =
    ProcessInfo.processInfo.environment["SNAPSORT_WERROR"] == "1"
    ? [.unsafeFlags(["-warnings-as-errors"])] : []

let package = Package(
    name: "SnapSort",
    products: [
        .executable(name: "snapsort", targets: ["snapsort"]),
        .executable(name: "snapsort-vision", targets: ["snapsort-vision"]),
    ],
    targets: [
        // C at the edge: system libraries and small shims.
        .systemLibrary(
            name: "CSQLite", path: "Sources/CSQLite", pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(
            name: "CSystemd", path: "Sources/CSystemd", pkgConfig: "libsystemd",
            providers: [.apt(["libsystemd-dev"])]),
        // Optimized in every build: its 1/4-scale decoder is the scan's hot path, and tests
        // decode real photos.
        .target(
            name: "CJPEG", path: "Sources/CJPEG", cSettings: [.unsafeFlags(["-O2"])],
            linkerSettings: [.linkedLibrary("jpeg")]),
        .target(name: "CPNG", path: "Sources/CPNG", linkerSettings: [.linkedLibrary("png16")]),
        .target(name: "CExif", path: "Sources/CExif", linkerSettings: [.linkedLibrary("exif")]),
        .target(name: "CSysShim", path: "Sources/CSysShim"),
        // Small hot loops the baseline x86-64 Swift cannot give an instruction its processor has
        // (POPCNT), chosen at run time. Optimized in every build.
        .target(name: "CKernels", path: "Sources/CKernels", cSettings: [.unsafeFlags(["-O2"])]),
        // Engine, part two: HEIC/HEIF through libheif, WebP through libwebp.
        // libheif is opened with dlopen on first use (only HEIC files need it).
        .target(name: "CHeif", dependencies: ["CLazyLib"], path: "Sources/CHeif"),
        .target(name: "CWebP", path: "Sources/CWebP", linkerSettings: [.linkedLibrary("webp")]),
        // Review: renameat2(RENAME_NOREPLACE) and the terminal size (variadic syscall/ioctl).
        .target(name: "CReviewShim", path: "Sources/CReviewShim"),
        .systemLibrary(
            name: "CChafa", path: "Sources/CChafa", pkgConfig: "chafa",
            providers: [.apt(["libchafa-dev"])]),
        // Reminders: desktop notifications over sd-bus (sd_bus_message_append is variadic).
        .target(name: "CBus", path: "Sources/CBus", linkerSettings: [.linkedLibrary("systemd")]),
        // Linux headers Glibc's module map leaves out (signalfd, eventfd, timerfd); header only.
        .systemLibrary(name: "CLinux", path: "Sources/CLinux"),
        // The review page: HTTP through GNU libmicrohttpd (MHD_start_daemon is variadic).
        .target(name: "CMicroHTTPD", dependencies: ["CLazyLib"], path: "Sources/CMicroHTTPD"),
        // Smart groups: OCR through Tesseract's C API, QR codes through zbar (zbar_fourcc is a
        // macro). Both are opened with dlopen on first use: the headers come from the -dev
        // packages, the libraries are not linked (most runs never need them).
        .target(name: "COCR", dependencies: ["CLazyLib"], path: "Sources/COCR"),
        .target(name: "CQR", dependencies: ["CLazyLib"], path: "Sources/CQR"),
        // Videos: duration, codec and a few small frames through FFmpeg (libavformat, libavcodec,
        // libswscale, libavutil; the headers from Debian's libav*-dev). Opened with dlopen on first
        // use, not linked: with what they pull in they were ~120 of the 157 libraries every
        // snapsort process loaded. Optimized: it scales frames on the scan's path.
        .target(name: "CVideo", dependencies: ["CLazyLib"], path: "Sources/CVideo", cSettings: [.unsafeFlags(["-O2"])]),
        // dlopen on first use, shared by the shims above that open their library so.
        .target(name: "CLazyLib", path: "Sources/CLazyLib"),
        // Local models (faces, classes): a C++ shim over dlib and OpenCV DNN, linked only into the
        // snapsort-vision helper, never into snapsort. Always optimized: dlib's detector is header
        // templates. Debian keeps OpenCV's headers in /usr/include/opencv4.
        .target(
            name: "CVision", path: "Sources/CVision",
            cxxSettings: [.unsafeFlags(["-std=c++17", "-O2", "-I/usr/include/opencv4"])],
            linkerSettings: [
                .linkedLibrary("dlib"), .linkedLibrary("lapack"), .linkedLibrary("blas"),
                .linkedLibrary("opencv_dnn"), .linkedLibrary("opencv_calib3d"), .linkedLibrary("opencv_features2d"), .linkedLibrary("opencv_imgproc"),
                .linkedLibrary("opencv_core"),
            ]),

        // The one Swift layer that imports C.
        .target(
            name: "SnapSortSystem",
            dependencies: [
                "CSQLite", "CSystemd", "CJPEG", "CPNG", "CExif", "CSysShim", "CHeif", "CWebP", "CLinux", "CReviewShim", "CChafa", "CBus",
                "CMicroHTTPD", "COCR", "CQR", "CVideo", "CKernels",
            ]),
        // The domain.
        .target(name: "SnapSortCore", dependencies: ["SnapSortSystem"]),
        // The review page: the web API, media and static assets over SnapSortSystem's HTTPServer.
        .target(name: "SnapSortWeb", dependencies: ["SnapSortCore", "SnapSortSystem"]),
        // The long-running service.
        .target(name: "SnapSortAgent", dependencies: ["SnapSortCore", "SnapSortSystem", "SnapSortWeb"]),
        // The CLI as a library: argument parsing, the commands, wiring and printing; callable in-process.
        .target(name: "SnapSortCLI", dependencies: ["SnapSortAgent", "SnapSortCore", "SnapSortSystem", "SnapSortWeb"]),
        // The executable: `Dispatcher.main()`'s status becomes the process's exit.
        .executableTarget(name: "snapsort", dependencies: ["SnapSortCLI"]),
        // The vision helper `snapsort scan` and the agent run as a child (see Sources/SnapSortCore/Vision).
        .executableTarget(name: "snapsort-vision", dependencies: ["CVision"]),

        .target(name: "SnapSortTestSupport", dependencies: ["SnapSortCore", "SnapSortSystem"]),
        .testTarget(name: "SnapSortSystemTests", dependencies: ["SnapSortSystem", "SnapSortTestSupport"]),
        .testTarget(name: "SnapSortCoreTests", dependencies: ["SnapSortCore", "SnapSortSystem", "SnapSortTestSupport"]),
        .testTarget(
            name: "SnapSortAgentTests",
            dependencies: ["SnapSortAgent", "SnapSortCore", "SnapSortSystem", "SnapSortWeb", "SnapSortTestSupport"]),
        .testTarget(
            name: "SnapSortCLITests",
            dependencies: ["SnapSortCLI", "SnapSortCore", "SnapSortSystem", "SnapSortTestSupport"]),
        .testTarget(
            name: "SnapSortWebTests",
            dependencies: ["SnapSortWeb", "SnapSortCore", "SnapSortSystem", "SnapSortTestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)

// The analysis and storage code is always optimized: an unoptimized decode-and-measure loop
// is 20× slower, which makes debug builds and the test suite crawl on real photos.
let alwaysOptimized: Set<String> = ["SnapSortSystem", "SnapSortCore", "SnapSortWeb"]

for target in package.targets where target.type != .system {
    guard !target.name.hasPrefix("C") else { continue }
    var settings = (target.swiftSettings ?? []) + strict
    if alwaysOptimized.contains(target.name) { settings.append(.unsafeFlags(["-O"])) }
    target.swiftSettings = settings
}
