import Testing

@testable import SnapSortCore

@Suite struct ConfigurationTests {
    @Test func parsesKeysAndReportsBadLinesWithDefaults() {
        let text = """
            # my config
            root = ~/Pictures
            root = /mnt/photos/
            exclude = /mnt/photos/private
            reminder = fortnightly
            session_goal = 40
            web_port = 80
            colour = blue
            just text
            """
        let (c, problems) = Configuration.parse(text, home: "/home/u")
        #expect(c.roots == ["/home/u/Pictures", "/mnt/photos"])
        #expect(c.excludes == ["/mnt/photos/private"])
        #expect(c.sessionGoal == 40)
        #expect(c.reminder == "weekly")
        #expect(c.webPort == 8765)
        #expect(problems.map(\.line) == [5, 7, 8, 9])
        #expect(problems[0].description.contains("line 5"))
    }

    /// A bad value is quoted in its message; a `#` after a value is said to be the problem; an
    /// empty value is reported, not dropped silently.
    @Test func badValuesAreQuotedAndInlineCommentsExplained() {
        let text = """
            web_port = 8765 # the page
            session_goal = 40
            root =
            """
        let (c, problems) = Configuration.parse(text, home: "/home/u")
        #expect(c.webPort == 8765 && c.sessionGoal == 40 && c.roots.isEmpty)
        #expect(problems.map(\.line) == [1, 3])
        #expect(
            problems[0].message == "web_port = '8765 # the page': expected a port from 1024 to 65535 (a # comment goes on its own line); using 8765")
        #expect(problems[1].message == "root: no value, ignored")
    }

    @Test func rootsPrecedence() {
        var c = Configuration()
        let env = Environment(variables: ["HOME": "/home/u", "XDG_CONFIG_HOME": "/nonexistent"])
        #expect(c.effectiveRoots(arguments: [], env: env) == ["/home/u/Pictures"])
        c.roots = ["/data"]
        #expect(c.effectiveRoots(arguments: [], env: env) == ["/data"])
        #expect(c.effectiveRoots(arguments: ["/x"], env: env) == ["/x"])
    }

    @Test func renderedTextParsesBackToTheSameSettings() {
        var c = Configuration()
        c.roots = ["/a", "/b c"]
        c.sessionGoal = 12
        c.quietHours = nil
        let (back, problems) = Configuration.parse(c.rendered(), home: "/h")
        #expect(problems.isEmpty)
        #expect(back == c)
    }
}
