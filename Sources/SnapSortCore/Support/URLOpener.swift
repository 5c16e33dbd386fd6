import Foundation

/// Opens a URL in the user's browser: `systemd-run --user --scope xdg-open URL` when a user
/// manager runs (the browser then lives in its own scope, never in the agent's cgroup, so
/// stopping the agent does not kill it), else `xdg-open URL`.
public enum URLOpener {
    /// The command line, nil when `xdg-open` is not installed.
    public static func command(for url: String, env: Environment) -> [String]? {
        func which(_ name: String) -> String? {
            for dir in (env["PATH"] ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":") {
                let p = "\(dir)/\(name)"
                if FileManager.default.isExecutableFile(atPath: p) { return p }
            }
            return nil
        }
        guard let xdg = which("xdg-open") else { return nil }
        if let run = which("systemd-run"), let rt = env.runtimeDir,
            FileManager.default.fileExists(atPath: rt + "/systemd/private") || FileManager.default.fileExists(atPath: rt + "/bus")
        {
            return [run, "--user", "--scope", "--quiet", "--collect", xdg, url]
        }
        return [xdg, url]
    }

    /// Starts the opener. With `wait`, waits for it and returns whether it succeeded; without,
    /// returns whether it started (the agent never waits for a browser).
    @discardableResult
    /// `silent`: the opener's own output to /dev/null (the agent's: xdg-open's errors carry the
    /// page's URL with its token, which the journal must not keep).
    /// `activationToken`: from the notification whose action opens the URL, handed to the
    /// opener as `XDG_ACTIVATION_TOKEN` and `DESKTOP_STARTUP_ID` (xdg-open and the browser pass
    /// them on), so a compositor lets the browser's window take the focus.
    public static func open(_ url: String, env: Environment, wait: Bool, silent: Bool = false, activationToken: String? = nil) -> Bool {
        guard let argv = command(for: url, env: env) else { return false }
        let e = environment(env, activationToken: activationToken)
        if Program.run(argv, env: e, wait: wait, silent: silent) { return true }
        // systemd-run could not make the scope (a user manager that refuses, a bus gone): the
        // page still opens, by xdg-open alone (`snapsort open` exited 1 instead).
        guard wait, argv.count > 2, let xdg = argv.dropLast().last else { return false }
        return Program.run([xdg, url], env: e, wait: wait, silent: silent)
    }

    /// What the agent's opener did (`start`): the truth its log says.
    public enum Opened: Sendable, Equatable {
        /// `systemd-run --user --scope … xdg-open URL` started (the page opens in its own scope).
        case scope
        /// `xdg-open URL` started; `scopeStatus`: systemd-run's exit status when it ran first
        /// and failed (no user manager, a refused scope), nil when it was not tried.
        case xdgOpen(scopeStatus: Int32?)
        /// Nothing ran: `why`.
        case nothing(why: String)
    }

    /// Starts the opener without waiting for the browser (the agent's path: a reminder's
    /// click, the tray). When `systemd-run` fails (without a user manager it cannot make the
    /// scope, and the page did not open), `xdg-open` alone runs, as `snapsort open` does.
    /// `report` hears what ran: at once for `xdg-open` or a start that failed; for the scope,
    /// when `systemd-run` exits (it becomes xdg-open in the scope, so a failure is seen then),
    /// and again for the fallback.
    public static func start(
        _ url: String, env: Environment, silent: Bool = false, activationToken: String? = nil,
        report: @escaping @Sendable (Opened) -> Void
    ) {
        guard let argv = command(for: url, env: env) else {
            report(.nothing(why: "xdg-open is not installed"))
            return
        }
        let e = environment(env, activationToken: activationToken)
        guard argv.count > 2, let xdg = argv.dropLast().last else {
            report(Program.run(argv, env: e, wait: false, silent: silent) ? .xdgOpen(scopeStatus: nil) : .nothing(why: "xdg-open did not start"))
            return
        }
        @Sendable func fallBack(_ status: Int32) {
            report(
                Program.run([xdg, url], env: e, wait: false, silent: silent) ? .xdgOpen(scopeStatus: status) : .nothing(why: "xdg-open did not start")
            )
        }
        let started = Program.start(argv, env: e, silent: silent) { status in
            if status == 0 { report(.scope) } else { fallBack(status) }
        }
        if !started { fallBack(-1) }
    }

    /// `env` with the activation token set (or, without one, with any inherited token
    /// removed: a token is good once, and the agent's own would be stale).
    static func environment(_ env: Environment, activationToken: String?) -> Environment {
        var e = env
        for key in ["XDG_ACTIVATION_TOKEN", "DESKTOP_STARTUP_ID"] { e.variables[key] = activationToken }
        return e
    }
}

/// Runs a helper program (`xdg-open`, `systemctl --user`) with stdin on /dev/null and the
/// given environment.
public enum Program {
    /// Starts `argv`. With `wait`, waits and returns whether it exited 0; without, whether it
    /// started. `silent` sends its output to /dev/null too (else it goes where ours goes).
    @discardableResult
    public static func run(_ argv: [String], env: Environment, wait: Bool, silent: Bool = false) -> Bool {
        guard let p = process(argv, env: env, silent: silent) else { return false }
        do {
            try p.run()
        } catch {
            return false
        }
        guard wait else { return true }
        p.waitUntilExit()
        return p.terminationStatus == 0
    }

    /// Starts `argv` without waiting and returns whether it started; `exited` hears its exit
    /// status later, on another thread.
    public static func start(_ argv: [String], env: Environment, silent: Bool = false, exited: @escaping @Sendable (Int32) -> Void) -> Bool {
        guard let p = process(argv, env: env, silent: silent) else { return false }
        p.terminationHandler = { exited($0.terminationStatus) }
        do {
            try p.run()
        } catch {
            return false
        }
        return true
    }

    private static func process(_ argv: [String], env: Environment, silent: Bool) -> Process? {
        guard let path = argv.first else { return nil }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: path)
        p.arguments = Array(argv.dropFirst())
        p.standardInput = FileHandle.nullDevice
        if silent {
            p.standardOutput = FileHandle.nullDevice
            p.standardError = FileHandle.nullDevice
        }
        p.environment = env.variables
        return p
    }
}
