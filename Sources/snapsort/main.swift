import Foundation
import SnapSortCore
import SnapSortSystem

// The entry point: process-wide setup, then `Dispatcher` runs the command line.

/// Every subcommand, by name.
let commands: [any Command.Type] = allCommands

Memory.keepLargeBlocksInTheHeap()
// Before anything reads the time zone: a TZ in a form Foundation misreads (`:Europe/Paris`,
// `CET-1CEST,M3.5.0,M10.5.0/3`) is turned into its zone's name, not read as UTC.
if let problem = SystemTimeZone.normalizeEnvironment() { FileHandle.standardError.write(Data("snapsort: \(problem)\n".utf8)) }
// The arguments as the kernel passed them: a file name that is not UTF-8 stays the name of its
// file (`PathName`); `CommandLine.arguments` would replace its bytes with U+FFFD.
let arguments = (1..<Int(CommandLine.argc)).map { PathName.decode(cString: CommandLine.unsafeArgv[$0]!) }
SystemProcess.exit(Dispatcher.run(arguments, commands: commands))
