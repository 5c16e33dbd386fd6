import Foundation

/// The scan's one-line progress bar, fitted to the terminal: `[####------] 156/190  26.0 files/s  ETA 0:01`.
public enum ProgressLine {
    /// The line for a terminal `columns` cells wide, one cell short of it (a line filling the
    /// last column wraps on some terminals, and a wrapped bar is drawn again below itself at every
    /// update). The rate and the ETA go first, then the bar shrinks; under 5 cells of bar only the
    /// count is left.
    public static func render(done: Int, total: Int, filesPerSecond: Double, eta: String, columns: Int) -> String {
        let room = columns - 1
        let count = "\(done)/\(total)"
        let rate = "  " + String(format: "%.1f files/s", filesPerSecond) + "  ETA \(eta)"
        let tail = room - count.count - 3 >= 10 + rate.count ? count + rate : count
        let width = min(30, room - tail.count - 3)
        guard width >= 5 else { return String(count.prefix(max(0, room))) }
        let filled = total > 0 ? min(width, Int(Double(width) * Double(done) / Double(total))) : 0
        return "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled) + "] " + tail
    }
}
