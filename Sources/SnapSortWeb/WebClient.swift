import SnapSortCore
import SnapSortSystem

/// Asks a running page whether it answers (for `snapsort open`).
public enum WebClient {
    /// Whether the server in `info` answers an authenticated request on loopback.
    public static func answers(_ info: WebInfo) -> Bool {
        guard info.port > 0, info.port <= 65535 else { return false }
        let r = try? LoopbackHTTP.request(
            "GET", "/api/summary", port: info.port,
            headers: [("Authorization", "Bearer \(info.token)")])
        return r?.status == 200
    }

    /// Asks the server in `info` for a new key (`POST /api/key`); throws when it refuses.
    public static func newKey(_ info: WebInfo) throws {
        let r = try LoopbackHTTP.request(
            "POST", "/api/key", port: info.port,
            headers: [("Authorization", "Bearer \(info.token)")])
        guard r.status == 200 else {
            throw SystemError(.decode, "the page refused a new key (HTTP \(r.status))", operation: "open --new-key")
        }
    }
}
