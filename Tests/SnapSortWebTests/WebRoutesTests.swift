import Foundation
import SnapSortCore
import SnapSortSystem
import SnapSortTestSupport
import Testing

@testable import SnapSortWeb

/// The API's route table (`WebApp.apiRoutes`): every route answers its own method, and another
/// method on its path is a 405 whose `Allow` lists the table's methods for that path.
@Suite struct WebRoutesTests {
    /// Each path of the table with its `*` segments filled in by a real item's id.
    func targets(_ h: WebHarness) -> [(path: [String], target: String)] {
        var seen: Set<[String]> = []
        return WebApp.apiRoutes.compactMap { route in
            guard seen.insert(route.path).inserted else { return nil }
            let filled = route.path.map { $0 == "*" ? String(h.id("beach.jpg")) : $0 }
            return (route.path, "/api/" + filled.joined(separator: "/"))
        }
    }

    @Test func everyPathAskedWithAnotherMethodIsA405WithTheTablesAllow() throws {
        let h = try WebHarness()
        let paths = targets(h)
        #expect(paths.count == 22)
        for (path, target) in paths {
            let methods = WebApp.apiRoutes.filter { $0.path == path }.map(\.method)
            let expected = (methods + (methods.contains("GET") ? ["HEAD"] : [])).joined(separator: ", ")
            #expect(WebApp.allow(path: path) == expected)
            for wrong in ["PUT", "DELETE", "GET", "POST"] where !methods.contains(wrong) {
                let r = try LoopbackHTTP.request(
                    wrong, target, port: h.port, headers: h.auth + [h.origin, ("Content-Type", "application/json")], body: Array("{}".utf8))
                #expect(r.status == 405, "\(wrong) \(target): \(r.status) \(r.text)")
                #expect(r.headers["allow"] == expected, "\(wrong) \(target): \(r.headers)")
            }
        }
    }

    @Test func everyRouteAnswersItsOwnMethod() throws {
        let h = try WebHarness()
        for route in WebApp.apiRoutes {
            let target = "/api/" + route.path.map { $0 == "*" ? String(h.id("beach.jpg")) : $0 }.joined(separator: "/")
            let r = route.method == "GET" ? try h.get(target) : try h.post(target, "{}")
            // A handler may refuse an empty body (400) or find nothing to do (409); the route
            // itself is found: never a 405, never "no such API".
            #expect(r.status != 405 && !r.text.contains("no such API"), "\(route.method) \(target): \(r.status) \(r.text)")
            if route.method == "GET" {
                #expect(try LoopbackHTTP.request("HEAD", target, port: h.port, headers: h.auth).status == r.status, "HEAD \(target)")
            }
        }
    }

    /// The table names each (method, path) once: a second entry would never be reached.
    @Test func theTableHasNoDuplicateRoute() {
        let keys = WebApp.apiRoutes.map { $0.method + " " + $0.path.joined(separator: "/") }
        #expect(Set(keys).count == keys.count)
    }
}
