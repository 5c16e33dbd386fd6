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
}
