/// The subcommands, in the order `--help` lists them. Each feature adds its own.
var allCommands: [any Command.Type] {
    [
        ScanCommand.self, ReportCommand.self, InfoCommand.self, DemoCommand.self,
        DecideCommand.self, UndoCommand.self, ReviewCommand.self, DecksCommand.self, TrashCommand.self, StatsCommand.self,
        SimilarCommand.self, GroupsCommand.self,
        AgentCommand.self, StatusCommand.self, PauseCommand.self, ResumeCommand.self, ConfigCommand.self, RootsCommand.self, ForgetCommand.self,
        BackupCommand.self,
        RemindCommand.self,
        OpenCommand.self, ServeCommand.self,
    ]
}
