import Foundation
import Glibc
import SnapSortCore

/// Every subcommand, by name.
let commands: [any Command.Type] = allCommands

exit(Main.run(Array(CommandLine.arguments.dropFirst()), commands: commands))
