import Foundation
import SnapSortSystem
import SnapSortTestSupport
import Testing

@testable import SnapSortCore

/// The shell completions shipped in share/completions are kept in step with the CLI: every
/// option a command's --help names, every command and every smart group are offered by bash,
/// zsh and fish (review 7, F8: half the options and four groups were missing). Bash's file
/// completion keeps a folder name with spaces whole ("Camera Roll" became two words).
struct CompletionTests {
    static let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardized.path
    static let commands = [
        "scan", "report", "info", "demo", "groups", "agent", "status", "pause", "resume", "config", "roots", "forget", "backup", "decide",
        "undo", "review", "decks", "trash", "similar", "stats", "open", "serve", "remind",
    ]
    /// Words of --help texts that are no options of the command (`systemd-run --user --scope`).
    static let notOptions: Set<String> = ["--user", "--scope"]

    static func file(_ name: String) throws -> String {
        try String(contentsOfFile: repo + "/share/completions/" + name, encoding: .utf8)
    }

    @Test func everyCommandOptionAndGroupIsOffered() throws {
        let shells = [("bash", try Self.file("snapsort.bash")), ("zsh", try Self.file("_snapsort")), ("fish", try Self.file("snapsort.fish"))]
        let help = try InProcess.run(["--help"])
        for command in Self.commands {
            #expect(help.stdout.contains(command), "\(command) is a command of --help")
            let usage = try InProcess.run([command, "--help"]).stdout
            let options = Set(usage.matches(of: /--[a-z][a-z-]*/).map { String($0.output) }).subtracting(Self.notOptions).subtracting(["--help"])
            for (shell, text) in shells {
                #expect(text.contains(command), "\(shell) offers the command \(command)")
                for option in options {
                    // fish names long options without their dashes (`-l no-models`).
                    let named = shell == "fish" ? text.contains("-l " + option.dropFirst(2)) : text.contains(option)
                    #expect(named, "\(shell) offers \(command) \(option)")
                }
            }
        }
        for group in GroupID.allCases.map(\.rawValue) {
            for (shell, text) in shells { #expect(text.contains(group), "\(shell) offers the group \(group)") }
        }
    }

    @Test func bashCompletesAFolderWithSpacesAsOneWord() throws {
        let dir = TempDir("snapsort-compl")
        dir.folder("Camera Roll")
        dir.folder("Cats")
        let script = """
            source '\(Self.repo)/share/completions/snapsort.bash'
            cd '\(dir.path)'
            COMP_WORDS=(snapsort scan Cam); COMP_CWORD=2; _snapsort
            printf '[%s]\\n' "${COMPREPLY[@]}"
            COMP_WORDS=(snapsort scan --no); COMP_CWORD=2; _snapsort
            printf '{%s}\\n' "${COMPREPLY[@]}"
            COMP_WORDS=(snapsort groups pe); COMP_CWORD=2; _snapsort
            printf '(%s)\\n' "${COMPREPLY[@]}"
            """
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/bash")
        p.arguments = ["-c", script]
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        #expect(text.contains("[Camera Roll]") && !text.contains("[Camera]"), "\(text)")
        #expect(text.contains("{--no-models}") && text.contains("{--no-groups}"), "\(text)")
        #expect(text.contains("(people)") && text.contains("(pets)"), "\(text)")
    }
}
