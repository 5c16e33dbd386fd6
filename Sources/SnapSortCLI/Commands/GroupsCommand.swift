import Foundation
import SnapSortCore

/// `snapsort groups [ID] [--json]`
enum GroupsCommand: Command {
    static let name = "groups"
    static let summary = "list the smart groups, or the members of one"
    static let usage = """
        Usage: snapsort groups [--json]
               snapsort groups ID [--json]

        Without ID: every smart group with its file count, sets, bytes and reclaimable bytes.
        With ID: the group's members, best first (similar: the keeper of each set first).
        IDs: similar duplicate blurry oops screenshot document qr long_video downloaded_video heavy unreadable people pets food scenery
          --json   {"groups":[{"id","items","sets","bytes","reclaimable_bytes"}]} or
                   {"id","title","members":[{"id","path","bytes","score","set","keeper","duplicate_of","qr"}]}
        """

    static func run(_ args: inout Arguments, _ ctx: Context) throws -> Int32 {
        let json = args.flag("--json")
        let rest = try args.positionals()
        guard rest.count <= 1 else { throw UsageError("groups takes at most one group id") }
        let library = try ctx.openLibrary()
        if let raw = rest.first {
            guard let id = GroupID(rawValue: raw) else {
                throw UsageError("unknown group '\(raw)'; one of: \(GroupID.allCases.map(\.rawValue).joined(separator: " "))")
            }
            let members = try library.groupMembers(id)
            if json {
                ctx.out(
                    JSON.object([
                        ("id", .string(id.rawValue)), ("title", .string(id.title)),
                        (
                            "members",
                            .array(
                                members.map { m in
                                    .object([
                                        ("id", .int(m.item.id)), ("path", .string(m.item.path)), ("bytes", .int(m.item.bytes)),
                                        ("score", .double((m.score * 1000).rounded() / 1000)), ("set", .opt(m.setID)), ("keeper", .bool(m.isKeeper)),
                                        ("duplicate_of", .opt(m.duplicateOf)), ("qr", .opt(m.qrPayload)),
                                    ])
                                })
                        ),
                    ]).serialized())
            } else {
                ctx.out("\(id.title) (\(id.rawValue)): \(members.count) \(members.count == 1 ? "file" : "files")")
                var lastSet: String?
                for m in members {
                    if let s = m.setID, s != lastSet { ctx.out("set \(s)"); lastSet = s }
                    var line = (m.setID != nil ? "  " : "") + (m.isKeeper ? "* " : "  ") + field(m.item.path) + "  " + humanBytes(m.item.bytes)
                    if let q = m.qrPayload, !q.isEmpty { line += "  [\(field(q))]" }
                    ctx.out(line)
                }
            }
            return ExitCode.ok
        }
        let overview = try GroupsOverview.load(library: library)
        if json {
            ctx.out(
                JSON.object([
                    (
                        "groups",
                        .array(
                            overview.groups.map { g in
                                let s = g.summary
                                var fields: [(String, JSON)] = [
                                    ("id", .string(s.id.rawValue)), ("items", .int(s.items)), ("sets", .int(s.sets)),
                                    ("bytes", .int(s.bytes)), ("reclaimable_bytes", .int(s.reclaimableBytes)),
                                ]
                                if let why = g.unavailable { fields.append(("unavailable", .string(why))) }
                                return .object(fields)
                            })
                    )
                ]).serialized())
        } else {
            for g in overview.groups {
                let s = g.summary
                if let why = g.unavailable {
                    ctx.out("\(s.id.rawValue.padding(toLength: 17, withPad: " ", startingAt: 0)) unavailable: \(why)")
                    continue
                }
                let sets = (s.id == .similar || s.id == .duplicate) ? " in \(counted(s.sets, "set"))" : ""
                ctx.out(
                    "\(s.id.rawValue.padding(toLength: 17, withPad: " ", startingAt: 0)) \(String(s.items).leftPad(6)) \(s.items == 1 ? "file" : "files")\(sets),\(s.items == 1 && sets.isEmpty ? "  " : " ")\(humanBytes(s.bytes)) (\(humanBytes(s.reclaimableBytes)) reclaimable)"
                )
            }
        }
        return ExitCode.ok
    }
}

extension String {
    fileprivate func leftPad(_ n: Int) -> String { count >= n ? self : String(repeating: " ", count: n - count) + self }
}
