// snapsort-vision: the helper that runs the local vision models for SnapSort's second analysis
// tier, as a child of `snapsort scan` and the agent. OpenCV and dlib live here, never in the main
// binary; a crash on a hostile file costs that one file's tier-2 result (the parent restarts us).
//
// Protocol (stdin → stdout, one reply line per request):
//   hello\n                    → {"helper":1,"faces":"<model id>"|null,"problem":"…"|null,
//                                  "classes":"<model id>"|null,"classes_problem":"…"|null}
//   faces W H\n + W*H*3 bytes  → {"faces":[{"x","y","w","h","score","eyes":[r,l]}],"ms":…} (pixels)
//   classes W H\n + W*H*3 bytes → {"scores":[1000 ImageNet probabilities],"ms":…}
//   embed W H\n + W*H*3 bytes   → {"embedding":[1280 floats: the pooled features before the
//                                  classifier's last layer],"ms":…} (measurements: bench/embedding.sh)
//   page W H\n + W*H*3 bytes    → {"page":{"corners":[8 numbers: x,y of top-left, top-right,
//                                  bottom-right, bottom-left],"share":0…1,"lines":n,"ink":0…1}|null,
//                                  "ms":…} (a sheet of paper, rectified: `ssv_find_page`)
//   match WA HA WB HB\n + WA*HA + WB*HB bytes (two grey frames)
//                              → {"keypoints":[a,b],"matches":n,"inliers":n,"shared":0…1,"ms":…}
//                                (ORB + RANSAC homography: `ssv_match_frames`)
//   any of them may answer {"error":"…"}; every reply ends with "cpu_ms": the request's CPU time here
// The parent decodes, orients and scales the photo (1024 px long side); we only see pixels.
// Options: --landmarks PATH (default: Debian's libdlib-data file), --classifier PATH (default:
// share/snapsort/models/efficientnet_lite0.onnx of our prefix, or share/models of a build tree),
// --face-detector PATH (YuNet in ONNX, found likewise), --hog (dlib's HOG detector instead of
// YuNet, for comparisons).
// The detector is loaded on the first request, the landmark model on the first photo with a
// face, the classifier on the first `classes` request.
import CVision
import Glibc

/// Where Debian's libdlib-data puts the 68-point landmark model.
let defaultLandmarks = "/usr/share/dlib/shape_predictor_68_face_landmarks.dat"
/// Seconds of CPU one request may use before the helper ends itself (SIGPROF, setitimer(2)'s
/// ITIMER_PROF), so a pathological input cannot stall the parent's scan. CPU, not wall time: at
/// nice 10 on a machine busy compiling, ordinary photos took 4–60 s of wall time each and a
/// wall-clock alarm failed two of DEV3's photos for good (People lost them).
let requestTimeout = 60

/// Arms (or with 0 disarms) the request's CPU budget.
func cpuBudget(_ seconds: Int) {
    var t = itimerval()
    t.it_value.tv_sec = seconds
    _ = setitimer(__itimer_which_t(ITIMER_PROF.rawValue), &t, nil)
}
/// Largest accepted image side (the parent sends 1024 px; this bounds a bad header).
let maxSide = 4096

/// `--landmarks PATH` overrides the model file (tests; other distributions).
let landmarksPath: String = {
    let args = CommandLine.arguments
    if let i = args.firstIndex(of: "--landmarks"), i + 1 < args.count { return args[i + 1] }
    return defaultLandmarks
}()

/// A shipped model file: `option PATH`, else the installed model beside our prefix, else the
/// build tree's share/models (the helper runs from <repo>/.build*/<triple>/debug there).
func modelPath(_ name: String, option: String) -> String? {
    let args = CommandLine.arguments
    if let i = args.firstIndex(of: option), i + 1 < args.count { return args[i + 1] }
    var buffer = [CChar](repeating: 0, count: 4096)
    let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
    guard n > 0 else { return nil }
    let exe = text(Array(buffer[0..<n]) + [0])
    let dir = String(exe[..<(exe.lastIndex(of: "/") ?? exe.endIndex)])
    let candidates = [dir + "/../../share/snapsort/models/" + name, dir + "/../../../share/models/" + name, dir + "/../../share/models/" + name]
    return candidates.first { access($0, R_OK) == 0 } ?? candidates[0]
}

/// The classifier: `--classifier PATH` or the shipped model.
let classifierPath = modelPath("efficientnet_lite0.onnx", option: "--classifier")
/// The face detector (YuNet, libfacedetection's network, in ONNX): `--face-detector PATH` or the
/// shipped model. `--hog` uses dlib's HOG detector instead (comparisons: its scores are on
/// another scale, see `VisionRules.minFaceScore`).
let faceModelPath = modelPath("face_detection_yunet.onnx", option: "--face-detector")
/// The face detector's id in `hello` (the tier-2 version includes it: a new model re-runs tier 2).
let faceModelID = "yunet-lfd2023-512+sp68"
/// Faces whose side is under this share of the picture's short side get no landmarks (eyes -1):
/// People counts faces from 8 % (`VisionRules.minFaceShare`) and scores only their eyes; the
/// margin keeps a face near that size whose square a rounding makes smaller.
let landmarkMinShare: Float = 0.06
/// Faces scored under this get no landmarks either: People counts faces from 0.8
/// (`VisionRules.minFaceScore`) and the keeper's eyes term reads only People's faces; the margin
/// keeps a face near the threshold. On DEV's 12-megapixel photos every face the detector reported
/// was a texture scored 0.3–0.5 — the landmark model loaded and ran for none of People's faces.
let landmarkMinScore: Float = 0.7
let useHOG = CommandLine.arguments.contains("--hog")
/// The classifier's id in `hello` (the tier-2 version includes it: a new model re-runs tier 2).
let classifierID = "efficientnet-lite0-imagenet-onnx10"

/// What the helper has loaded so far (models load once, on first use).
struct Models {
    var landmarksLoaded = false
    var classifierLoaded = false
    var detectorLoaded = false
}

/// The process's CPU time (ms) when the request being answered was read: every reply to a
/// request says `"cpu_ms"`, the CPU it cost here (tier 2's profile, `bench/stages.py`).
nonisolated(unsafe) var requestCPUStart: Double?

func processCPUMs() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts)
    return Double(ts.tv_sec) * 1000 + Double(ts.tv_nsec) / 1e6
}

func reply(_ line: String) {
    var text = line
    if let start = requestCPUStart, text.hasSuffix("}") {
        text.removeLast()
        text += ",\"cpu_ms\":\(number(Float(processCPUMs() - start)))}"
    }
    requestCPUStart = nil
    text.append("\n")
    let bytes = Array(text.utf8)
    var off = 0
    while off < bytes.count {
        let n = bytes[off...].withUnsafeBufferPointer { write(1, $0.baseAddress, $0.count) }
        if n < 0 && errno == EINTR { continue }
        if n <= 0 { exit(0) }  // the parent is gone
        off += n
    }
}

func quoted(_ s: String) -> String {
    var out = "\""
    for u in s.unicodeScalars {
        switch u {
        case "\"": out += "\\\""
        case "\\": out += "\\\\"
        case _ where u.value < 0x20: out += "\\u" + String(repeating: "0", count: 4 - String(u.value, radix: 16).count) + String(u.value, radix: 16)
        default: out.unicodeScalars.append(u)
        }
    }
    return out + "\""
}

func number(_ v: Float) -> String {
    guard v.isFinite else { return "null" }
    return String(Double((v * 10000).rounded()) / 10000)
}

/// Reads one line (without the newline) from stdin; nil at end of input.
func readRequestLine(maxLength: Int = 4096) -> String? {
    var bytes: [UInt8] = []
    var c: UInt8 = 0
    while true {
        let n = read(0, &c, 1)
        if n < 0 && errno == EINTR { continue }
        if n <= 0 { return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self) }
        if c == 10 { return String(decoding: bytes, as: UTF8.self) }
        if bytes.count >= maxLength { return nil }
        bytes.append(c)
    }
}

/// Reads exactly `count` bytes from stdin; nil at end of input.
func readExactly(_ count: Int) -> [UInt8]? {
    var buf = [UInt8](repeating: 0, count: count)
    var off = 0
    while off < count {
        let n = buf.withUnsafeMutableBytes { read(0, $0.baseAddress! + off, count - off) }
        if n < 0 && errno == EINTR { continue }
        if n <= 0 { return nil }
        off += n
    }
    return buf
}

/// The NUL-terminated message a C call wrote into `buffer`.
func text(_ buffer: [CChar]) -> String {
    let bytes = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
    return String(decoding: bytes, as: UTF8.self)
}

func monotonicMs() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) * 1000 + Double(ts.tv_nsec) / 1e6
}

func hello() -> String {
    var classes = "\"classes\":\(quoted(classifierID)),\"classes_problem\":null"
    if let path = classifierPath, access(path, R_OK) != 0 {
        classes = "\"classes\":null,\"classes_problem\":\(quoted("the classifier model is missing (\(path))"))"
    }
    if access(landmarksPath, R_OK) != 0 {
        return
            "{\"helper\":1,\"faces\":null,\"problem\":\(quoted("the face landmark model is missing (\(landmarksPath)); install libdlib-data")),\(classes)}"
    }
    if useHOG { return "{\"helper\":1,\"faces\":\"dlib-hog+sp68\",\"problem\":null,\(classes)}" }
    guard let path = faceModelPath, access(path, R_OK) == 0 else {
        return "{\"helper\":1,\"faces\":null,\"problem\":\(quoted("the face detector model is missing (\(faceModelPath ?? "?"))")),\(classes)}"
    }
    return "{\"helper\":1,\"faces\":\(quoted(faceModelID)),\"problem\":null,\(classes)}"
}

/// Loads the classifier on first use; the error reply when it cannot be loaded.
func loadClassifier(_ models: inout Models) -> String? {
    var msg = [CChar](repeating: 0, count: 512)
    if !models.classifierLoaded {
        guard let path = classifierPath, ssv_load_classifier(path, &msg, msg.count) == 0 else {
            return "{\"error\":\(quoted("classifier: " + text(msg)))}"
        }
        models.classifierLoaded = true
    }
    return nil
}

func classes(width: Int, height: Int, pixels: [UInt8], models: inout Models) -> String {
    if let error = loadClassifier(&models) { return error }
    var msg = [CChar](repeating: 0, count: 512)
    let start = monotonicMs()
    var scores = [Float](repeating: 0, count: 1000)
    guard ssv_classify(pixels, Int32(width), Int32(height), &scores, Int32(scores.count), nil, 0, &msg, msg.count) >= 0 else {
        return "{\"error\":\(quoted(text(msg)))}"
    }
    // 1e-5 resolution: category sums stay exact to 1e-2 over a thousand classes.
    let list = scores.map { v -> String in
        let r = (Double(v) * 100_000).rounded() / 100_000
        return r == 0 ? "0" : String(r)
    }
    return "{\"scores\":[\(list.joined(separator: ","))],\"ms\":\(number(Float(monotonicMs() - start)))}"
}

func embedding(width: Int, height: Int, pixels: [UInt8], models: inout Models) -> String {
    if let error = loadClassifier(&models) { return error }
    var msg = [CChar](repeating: 0, count: 512)
    let start = monotonicMs()
    var scores = [Float](repeating: 0, count: 1000)
    var features = [Float](repeating: 0, count: 1280)
    let dims = ssv_classify(pixels, Int32(width), Int32(height), &scores, Int32(scores.count), &features, Int32(features.count), &msg, msg.count)
    guard dims >= 0 else { return "{\"error\":\(quoted(text(msg)))}" }
    let list = features.prefix(Int(min(dims, 1280))).map { String(Double(($0 * 100_000).rounded()) / 100_000) }
    return "{\"embedding\":[\(list.joined(separator: ","))],\"ms\":\(number(Float(monotonicMs() - start)))}"
}

func faces(width: Int, height: Int, pixels: [UInt8], models: inout Models) -> String {
    var msg = [CChar](repeating: 0, count: 512)
    let start = monotonicMs()
    var found = [ssv_face](repeating: ssv_face(), count: 32)
    if !useHOG && !models.detectorLoaded {
        guard let path = faceModelPath, ssv_load_face_detector(path, &msg, msg.count) == 0 else {
            return "{\"error\":\(quoted("face detector: " + text(msg)))}"
        }
        models.detectorLoaded = true
    }
    let n =
        useHOG
        ? ssv_detect_faces(pixels, Int32(width), Int32(height), &found, Int32(found.count), &msg, msg.count)
        : ssv_detect_faces_dnn(pixels, Int32(width), Int32(height), &found, Int32(found.count), &msg, msg.count)
    guard n >= 0 else { return "{\"error\":\(quoted(text(msg)))}" }
    let count = Int(min(n, 32))
    let minSide = landmarkMinShare * Float(min(width, height))
    // Eyes only for the faces People may count: large enough and confident enough (HOG's
    // scores are on another scale: all of its faces).
    let scored = found.prefix(count).indices.filter { found[$0].width >= minSide && (useHOG || found[$0].score >= landmarkMinScore) }
    if !scored.isEmpty {
        // The landmark model (~100 MB, ~0.7 s of CPU) loads on the first photo with such a face.
        if !models.landmarksLoaded {
            guard ssv_load_landmarks(landmarksPath, &msg, msg.count) == 0 else {
                return "{\"error\":\(quoted("landmark model: " + text(msg)))}"
            }
            models.landmarksLoaded = true
        }
        var chosen = scored.map { found[$0] }
        guard ssv_eye_ratios(&chosen, Int32(chosen.count), minSide, &msg, msg.count) == 0 else { return "{\"error\":\(quoted(text(msg)))}" }
        for (k, i) in scored.enumerated() { found[i] = chosen[k] }
    }
    let items = found.prefix(count).map { f in
        "{\"x\":\(number(f.x)),\"y\":\(number(f.y)),\"w\":\(number(f.width)),\"h\":\(number(f.height)),\"score\":\(number(f.score)),\"eyes\":[\(number(f.right_eye)),\(number(f.left_eye))]}"
    }
    return "{\"faces\":[\(items.joined(separator: ","))],\"ms\":\(number(Float(monotonicMs() - start)))}"
}

func page(width: Int, height: Int, pixels: [UInt8]) -> String {
    var msg = [CChar](repeating: 0, count: 512)
    let start = monotonicMs()
    var p = ssv_page()
    guard ssv_find_page(pixels, Int32(width), Int32(height), &p, &msg, msg.count) == 0 else { return "{\"error\":\(quoted(text(msg)))}" }
    let ms = number(Float(monotonicMs() - start))
    guard p.found == 1 else { return "{\"page\":null,\"ms\":\(ms)}" }
    let corners = withUnsafeBytes(of: p.corners) { Array($0.bindMemory(to: Float.self)) }.map(number)
    return
        "{\"page\":{\"corners\":[\(corners.joined(separator: ","))],\"share\":\(number(p.share)),\"lines\":\(p.lines),\"ink\":\(number(p.ink))},\"ms\":\(ms)}"
}

func match(_ a: (width: Int, height: Int, pixels: [UInt8]), _ b: (width: Int, height: Int, pixels: [UInt8])) -> String {
    var msg = [CChar](repeating: 0, count: 512)
    let start = monotonicMs()
    var m = ssv_match()
    guard ssv_match_frames(a.pixels, Int32(a.width), Int32(a.height), b.pixels, Int32(b.width), Int32(b.height), &m, &msg, msg.count) == 0 else {
        return "{\"error\":\(quoted(text(msg)))}"
    }
    return
        "{\"keypoints\":[\(m.keypoints_a),\(m.keypoints_b)],\"matches\":\(m.matches),\"inliers\":\(m.inliers),\"shared\":\(number(m.shared_area)),\"ms\":\(number(Float(monotonicMs() - start)))}"
}

var models = Models()
while let line = readRequestLine() {
    cpuBudget(requestTimeout)
    requestCPUStart = processCPUMs()
    let words = line.split(separator: " ")
    switch words.first {
    case "hello":
        reply(hello())
    case "faces", "classes", "embed", "page":
        guard words.count == 3, let w = Int(words[1]), let h = Int(words[2]), (1...maxSide).contains(w), (1...maxSide).contains(h) else {
            reply("{\"error\":\"bad image request\"}")
            exit(2)  // the stream is out of step: start over
        }
        guard let pixels = readExactly(w * h * 3) else { exit(0) }
        switch words[0] {
        case "faces": reply(faces(width: w, height: h, pixels: pixels, models: &models))
        case "classes": reply(classes(width: w, height: h, pixels: pixels, models: &models))
        case "page": reply(page(width: w, height: h, pixels: pixels))
        default: reply(embedding(width: w, height: h, pixels: pixels, models: &models))
        }
    case "match":
        let sides = words.dropFirst().compactMap { Int($0) }
        guard words.count == 5, sides.count == 4, sides.allSatisfy({ (1...maxSide).contains($0) }) else {
            reply("{\"error\":\"bad match request\"}")
            exit(2)  // the stream is out of step: start over
        }
        guard let a = readExactly(sides[0] * sides[1]), let b = readExactly(sides[2] * sides[3]) else { exit(0) }
        reply(match((sides[0], sides[1], a), (sides[2], sides[3], b)))
    default:
        reply("{\"error\":\"unknown request\"}")
    }
    cpuBudget(0)
}
