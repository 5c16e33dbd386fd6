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
        guard let path = argv.first else { return false }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: path)
        p.arguments = Array(argv.dropFirst())
        p.standardInput = FileHandle.nullDevice
        if silent {
            p.standardOutput = FileHandle.nullDevice
            p.standardError = FileHandle.nullDevice
        }
        p.environment = env.variables
        do {
            try p.run()
        } catch {
            return false
        }
        guard wait else { return true }
        p.waitUntilExit()
        return p.terminationStatus == 0
    }
}
