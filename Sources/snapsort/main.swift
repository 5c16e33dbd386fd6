import Foundation
import Glibc
import SnapSortCore
import SnapSortSystem

/// Every subcommand, by name.
let commands: [any Command.Type] = allCommands

// Before anything else: Tesseract's OpenMP threads must not spin (see the function).
OCR.limitOpenMPThreadsByReexecuting()
Memory.keepLargeBlocksInTheHeap()
exit(Main.run(Array(CommandLine.arguments.dropFirst()), commands: commands))
