import Foundation
import SnapSortCore
import SnapSortSystem

/// One request to the API, as its handler sees it.
struct APICall {
    var request: HTTPRequest
    /// The path's segments after `/api`.
    var parts: [String]
    /// The body, parsed: a JSON object (empty without a body).
    var body: JSON
}

/// One route of the API: a method, a path pattern (`*`: any one segment) and its handler.
struct APIRoute: Sendable {
    var method: String
    var path: [String]
    var handler: @Sendable (WebApp, APICall) throws -> HTTPResponse

    init(_ method: String, _ path: String, _ handler: @escaping @Sendable (WebApp, APICall) throws -> HTTPResponse) {
        self.method = method
        self.path = path.split(separator: "/").map(String.init)
        self.handler = handler
    }

    func matches(_ parts: [String]) -> Bool {
        path.count == parts.count && zip(path, parts).allSatisfy { $0 == "*" || $0 == $1 }
    }
}

extension WebApp {
    /// The API: every route once. Dispatch and the `Allow` header of a 405 are both read from it.
    static let apiRoutes: [APIRoute] = [
        APIRoute("GET", "summary") { try $0.apiSummary($1) },
        APIRoute("GET", "decks") { try $0.apiDecks($1) },
        APIRoute("POST", "sessions") { try $0.apiStartSession($1) },
        APIRoute("GET", "sessions/*") { try $0.apiSession($1) },
        APIRoute("POST", "decide") { try $0.apiDecide($1) },
        APIRoute("POST", "undo") { try $0.apiUndo($1) },
        APIRoute("GET", "items/*") { try $0.apiItem($1) },
        APIRoute("GET", "groups") { try $0.apiGroups($1) },
        APIRoute("GET", "similar") { try $0.apiSimilar($1) },
        APIRoute("POST", "similar/keeper") { try $0.apiChooseKeeper($1) },
        APIRoute("POST", "similar/trash-rest") { try $0.apiTrashRest($1) },
        APIRoute("POST", "similar/not-similar") { try $0.apiNotSimilar($1) },
        APIRoute("GET", "trash") { try $0.apiTrash($1) },
        APIRoute("POST", "trash/restore") { try $0.apiRestore($1) },
        APIRoute("POST", "trash/commit") { try $0.apiCommit($1) },
        APIRoute("GET", "stats") { try $0.apiStats($1) },
        APIRoute("GET", "settings") { try $0.apiSettings($1) },
        APIRoute("POST", "settings") { try $0.apiSaveSettings($1) },
        APIRoute("GET", "version") { try $0.apiVersion($1) },
        APIRoute("GET", "chapters") { try $0.apiChapters($1) },
        APIRoute("GET", "later") { try $0.apiLater($1) },
        APIRoute("GET", "kept") { try $0.apiKept($1) },
        // A preview with GET, the staging with POST.
        APIRoute("GET", "bulk/old-screenshots") { try $0.apiOldScreenshots($1) },
        APIRoute("POST", "bulk/old-screenshots") { try $0.apiOldScreenshots($1) },
    ]

    /// `/api/…`: the route the method and path name (HEAD as GET). A path the table has, asked
    /// with another method, is a 405 that says which ones it answers; any other path is a 404.
    func api(_ r: HTTPRequest) throws -> HTTPResponse {
        let parts = Array(r.path.split(separator: "/").map(String.init).dropFirst())  // drop "api"
        let method = r.method == "HEAD" ? "GET" : r.method
        let body = try Self.body(r)
        let onPath = Self.apiRoutes.filter { $0.matches(parts) }
        if let route = onPath.first(where: { $0.method == method }) {
            return try route.handler(self, APICall(request: r, parts: parts, body: body))
        }
        if let allow = Self.allow(onPath) { throw WebError.methodNotAllowed(r, allow: allow) }
        throw WebError.notFound("no such API: \(r.method) \(r.path)")
    }

    /// The `Allow` header for the routes of one path (RFC 9110 §10.2.1): their methods, and HEAD
    /// wherever GET is; nil for none.
    static func allow(_ routes: [APIRoute]) -> String? {
        guard !routes.isEmpty else { return nil }
        let methods = routes.map(\.method)
        return (methods + (methods.contains("GET") ? ["HEAD"] : [])).joined(separator: ", ")
    }

    /// The `Allow` header of the API path `path` (segments after `/api`), from the route table.
    static func allow(path: [String]) -> String? { allow(apiRoutes.filter { $0.matches(path) }) }
}
