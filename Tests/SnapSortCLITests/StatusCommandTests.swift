import Foundation
import SnapSortCore
import SnapSortSystem
import SnapSortTestSupport
import Testing

/// `status` without an agent (moved from SnapSortCoreTests' StatusFormatTests: they ran the
/// binary; `status --follow` with a running agent is AgentProcessTests').
@Suite struct StatusCommandTests {
    @Test(arguments: StatusFormat.allCases) func theCLIPrintsEachFormatWithoutAnAgent(_ f: StatusFormat) throws {
        let dir = TempDir("snapsort-status")
        let env = ["HOME": dir.path, "XDG_CONFIG_HOME": dir.at("config"), "XDG_STATE_HOME": dir.at("state"), "XDG_RUNTIME_DIR": dir.folder("run")]
        let r = try InProcess.run(["status", "--format", f.rawValue], env: env)
        #expect(r.status == 0, "\(r.stderr)")
        let line = r.stdout.trimmingCharacters(in: .newlines)
        // Without an agent the document is computed from the database (state "stopped").
        if f == .polybar {
            #expect(line.hasPrefix("%{F") && line.hasSuffix("%{F-}") && line.contains("stopped"))
        } else {
            let o = try #require(JSON.parse(line))
            let key = f == .waybar ? "text" : f == .i3blocks ? "full_text" : "text"
            #expect(o[key]?.stringValue?.contains("stopped") == true)
        }
    }

    @Test func humanStatusWithoutAnAgentIsComputedFromTheLibrary() throws {
        let dir = TempDir("snapsort-status")
        let env = ["HOME": dir.path, "XDG_CONFIG_HOME": dir.at("config"), "XDG_STATE_HOME": dir.at("state"), "XDG_RUNTIME_DIR": dir.folder("run")]
        dir.write("Pictures/a.jpg", Fixtures.jpeg(seed: 1, width: 96, height: 72))
        #expect(try InProcess.run(["scan", "--quiet", dir.at("Pictures")], env: env).status == 0)
        let r = try InProcess.run(["status"], env: env)
        #expect(r.status == 0)
        #expect(r.stdout.contains("Agent: stopped"))
        #expect(r.stdout.contains("Analyzed: 1 of 1"))
    }
}
