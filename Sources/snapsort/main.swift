import Foundation
import Glibc
import SnapSortCore
import SnapSortSystem

/// Every subcommand, by name.
let commands: [any Command.Type] = allCommands

Memory.keepLargeBlocksInTheHeap()
exit(Main.run(Array(CommandLine.arguments.dropFirst()), commands: commands))
