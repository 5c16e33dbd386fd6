import Foundation
import Glibc
import SnapSortCore
import SnapSortSystem

/// Every subcommand, by name.
let commands: [any Command.Type] = allCommands

Memory.keepLargeBlocksInTheHeap()
// The arguments as the kernel passed them: a file name that is not UTF-8 stays the name of its
// file (`PathName`); `CommandLine.arguments` would replace its bytes with U+FFFD.
let arguments = (1..<Int(CommandLine.argc)).map { PathName.decode(cString: CommandLine.unsafeArgv[$0]!) }
exit(Main.run(arguments, commands: commands))
