import Foundation
import SnapSortSystem

/// One face the helper found, in pixels of the picture it was sent.
public struct Face: Sendable, Equatable {
    public var x, y, width, height: Double
    /// The detector's confidence: 0…1 for the SSD (from 0.5, that of its second look at the
    /// face's own scale); from 0 up for dlib's HOG (`snapsort-vision --hog`).
    public var score: Double
    /// Eye aspect ratios (subject's right, left); nil without landmarks.
    public var eyes: (Double, Double)?

    /// The face's eye openness: the mean of both eyes' aspect ratios (open ≈ 0.3, closed < 0.2).
    public var eyeOpenness: Double? { eyes.map { ($0.0 + $0.1) / 2 } }

    public static func == (a: Face, b: Face) -> Bool {
        a.x == b.x && a.y == b.y && a.width == b.width && a.height == b.height && a.score == b.score
            && a.eyes?.0 == b.eyes?.0 && a.eyes?.1 == b.eyes?.1
    }
}

/// The `snapsort-vision` child process: started on first use, models loaded once inside it,
/// restarted after a crash (the photo it was working on loses only its tier-2 result).
///
/// Where the helper or its model is missing, `faceModel` is nil and `problem` says why, once.
public final class VisionHelper: @unchecked Sendable {
    /// What a request came to.
    public enum Outcome: Sendable, Equatable {
        case faces([Face])
        /// This photo could not be analyzed (helper crashed, timed out or refused it).
        case failed(String)
    }

    /// The helper executable.
    public let executable: String?
    /// Its arguments (e.g. `--landmarks PATH`).
    public let arguments: [String]
    /// Seconds one photo may take (the helper also ends itself after 60 s of CPU on one request).
    public var timeoutSeconds: Double = 90
    private var child: ChildProcess?
    private var started = false
    public private(set) var faceModel: String?
    public private(set) var problem: String?
    /// The classifier's id, or nil (then `classProblem` says why).
    public private(set) var classModel: String?
    public private(set) var classProblem: String?
    /// Children started so far (1 + restarts).
    public private(set) var starts = 0
    /// The CPU seconds the helper spent on the last request it answered (its reply's `cpu_ms`;
    /// 0 when it did not say): tier 2's profile.
    public private(set) var lastCPUSeconds = 0.0

    /// A helper at `executable` (nil: not installed).
    public init(executable: String?, arguments: [String] = []) {
        self.executable = executable
        self.arguments = arguments
    }

    /// Where the helper is: `SNAPSORT_VISION` (empty turns the models off), else `snapsort-vision`
    /// beside the running executable (a build tree), else in `../libexec/snapsort/` from it (an
    /// install: `make install-files`, the .deb), else nil.
    public static func locate(environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        if let explicit = environment["SNAPSORT_VISION"] { return explicit.isEmpty ? nil : explicit }
        var candidates: [String] = []
        if let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            let dir = (exe as NSString).deletingLastPathComponent
            candidates.append(dir + "/snapsort-vision")
            candidates.append((dir as NSString).deletingLastPathComponent + "/libexec/snapsort/snapsort-vision")
        }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Starts the helper (once) and asks what it can do. Returns false when models are unavailable.
    /// A helper that answered once and is gone since — stopped while idle (`stop`), crashed or
    /// hung on a photo — is started again: a pass that began after one photo crashed it took
    /// the models for unavailable, and the agent's pass stopped until the next change.
    @discardableResult
    public func start() -> Bool {
        if started { return child != nil || restart() != nil }
        started = true
        guard let executable else {
            problem = "the vision helper (snapsort-vision) is not installed"
            return false
        }
        do {
            let c = try ChildProcess(path: executable, arguments: arguments, niceness: 10)
            try c.send(Array("hello\n".utf8))
            guard let line = try c.readLine(timeoutMs: 30_000), let hello = JSON.parseObject(line) else {
                c.terminate()
                problem = "the vision helper (\(executable)) did not answer"
                return false
            }
            starts += 1
            if let p = hello["problem"] as? String {
                c.terminate()
                problem = p
                return false
            }
            faceModel = hello["faces"] as? String
            classModel = hello["classes"] as? String
            classProblem = hello["classes_problem"] as? String
            child = c
            return faceModel != nil
        } catch {
            problem = "the vision helper (\(executable)) could not be started: \(error)"
            return false
        }
    }

    /// Finds faces in an upright RGB picture.
    public func faces(in bitmap: Bitmap) -> Outcome {
        start()
        guard faceModel != nil, let c = child ?? restart() else { return .failed(problem ?? "the vision helper is unavailable") }
        precondition(bitmap.channels == 3, "the helper takes RGB")
        do {
            try c.send(Array("faces \(bitmap.width) \(bitmap.height)\n".utf8) + bitmap.pixels)
            guard let line = try c.readLine(timeoutMs: Int32(timeoutSeconds * 1000)) else {
                lost(c)
                return .failed("the vision helper stopped on this photo")
            }
            guard let reply = JSON.parseObject(line) else {
                lost(c)
                return .failed("the vision helper answered nonsense")
            }
            noteCPU(reply)
            if let e = reply["error"] as? String { return .failed(e) }
            let list = reply["faces"] as? [[String: Any]] ?? []
            return .faces(
                list.map { f in
                    func d(_ k: String) -> Double { (f[k] as? NSNumber)?.doubleValue ?? 0 }
                    let eyes = (f["eyes"] as? [Any])?.compactMap { ($0 as? NSNumber)?.doubleValue } ?? []
                    return Face(
                        x: d("x"), y: d("y"), width: d("w"), height: d("h"), score: d("score"),
                        eyes: eyes.count == 2 && eyes[0] >= 0 && eyes[1] >= 0 ? (eyes[0], eyes[1]) : nil)
                })
        } catch {
            lost(c)
            return .failed("the vision helper failed on this photo: \(error)")
        }
    }

    /// The classifier's 1000 ImageNet probabilities for an upright RGB picture.
    public func classes(in bitmap: Bitmap) -> ClassOutcome {
        start()
        guard classModel != nil, let c = child ?? restart() else { return .failed(classProblem ?? problem ?? "the classifier is unavailable") }
        precondition(bitmap.channels == 3, "the helper takes RGB")
        do {
            try c.send(Array("classes \(bitmap.width) \(bitmap.height)\n".utf8) + bitmap.pixels)
            guard let line = try c.readLine(timeoutMs: Int32(timeoutSeconds * 1000)), let reply = JSON.parseObject(line) else {
                lost(c)
                return .failed("the vision helper stopped on this photo")
            }
            noteCPU(reply)
            if let e = reply["error"] as? String { return .failed(e) }
            let scores = (reply["scores"] as? [Any])?.compactMap { ($0 as? NSNumber)?.floatValue } ?? []
            guard scores.count == 1000 else { return .failed("the classifier answered \(scores.count) scores") }
            return .scores(scores)
        } catch {
            lost(c)
            return .failed("the vision helper failed on this photo: \(error)")
        }
    }

    /// What a classification request came to.
    /// The sheet of paper in an RGB picture (`ssv_find_page`): nil when there is none, or when
    /// the helper is unavailable or failed on the picture.
    func sheet(in bitmap: Bitmap) -> VisionDocuments.Sheet? {
        start()
        guard faceModel != nil, let c = child ?? restart() else { return nil }
        precondition(bitmap.channels == 3, "the helper takes RGB")
        do {
            try c.send(Array("page \(bitmap.width) \(bitmap.height)\n".utf8) + bitmap.pixels)
            guard let line = try c.readLine(timeoutMs: Int32(timeoutSeconds * 1000)), let reply = JSON.parseObject(line) else {
                lost(c)
                return nil
            }
            noteCPU(reply)
            guard let page = reply["page"] as? [String: Any] else { return nil }
            func d(_ k: String) -> Double { (page[k] as? NSNumber)?.doubleValue ?? 0 }
            return VisionDocuments.Sheet(share: d("share"), lines: Int(d("lines")))
        } catch {
            lost(c)
            return nil
        }
    }

    public enum ClassOutcome: Sendable, Equatable {
        case scores([Float])
        case failed(String)
    }

    /// Geometric verification of two grey frames (`FrameMatch`); nil when the helper is
    /// unavailable or fails on them.
    public func match(_ a: Bitmap, _ b: Bitmap) -> FrameMatch? {
        start()
        guard faceModel != nil, let c = child ?? restart() else { return nil }
        precondition(a.channels == 1 && b.channels == 1, "frames are matched grey")
        do {
            try c.send(Array("match \(a.width) \(a.height) \(b.width) \(b.height)\n".utf8) + a.pixels + b.pixels)
            guard let line = try c.readLine(timeoutMs: Int32(timeoutSeconds * 1000)), let reply = JSON.parseObject(line) else {
                lost(c)
                return nil
            }
            noteCPU(reply)
            func int(_ k: String) -> Int { (reply[k] as? NSNumber)?.intValue ?? 0 }
            guard reply["error"] == nil, let k = reply["keypoints"] as? [NSNumber], k.count == 2 else { return nil }
            return FrameMatch(
                keypoints: (k[0].intValue, k[1].intValue), matches: int("matches"), inliers: int("inliers"),
                shared: (reply["shared"] as? NSNumber)?.doubleValue ?? 0)
        } catch {
            lost(c)
            return nil
        }
    }

    private func noteCPU(_ reply: [String: Any]) {
        lastCPUSeconds = ((reply["cpu_ms"] as? NSNumber)?.doubleValue ?? 0) / 1000
    }

    /// Forgets a child that died or hung; the next request starts a new one.
    private func lost(_ c: ChildProcess) {
        c.terminate()
        child = nil
    }

    private func restart() -> ChildProcess? {
        guard faceModel != nil, let executable else { return nil }
        guard let c = try? ChildProcess(path: executable, arguments: arguments, niceness: 10),
            (try? c.send(Array("hello\n".utf8))) != nil,
            let line = try? c.readLine(timeoutMs: 30_000), JSON.parseObject(line)?["faces"] is String
        else { return nil }
        starts += 1
        child = c
        return c
    }

    /// Whether a helper process runs now (it holds its models: ~160 MB with all of them).
    public var isRunning: Bool { child != nil }
    /// The running helper's process id.
    public var processID: pid_t? { child?.pid }

    /// Ends the helper (it also exits by itself when our end closes); the next request or
    /// `start` starts a new one.
    public func stop() {
        child?.wait()
        child = nil
    }

    deinit { child?.terminate() }
}

extension JSON {
    /// Parses one JSON object line (Foundation's parser; the helper writes plain JSON).
    static func parseObject(_ line: String) -> [String: Any]? {
        guard let data = line.data(using: .utf8) else { return nil }
        return (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
    }
}
