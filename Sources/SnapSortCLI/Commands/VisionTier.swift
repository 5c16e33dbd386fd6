import Foundation
import SnapSortCore

/// How `snapsort scan` shows the second analysis tier (`LibraryUpdate.runModels`): after the
/// fast metrics and the groups, the local models (faces) through the `snapsort-vision` helper.
enum VisionTier {
    /// Runs tier 2 over what needs it, with progress. Missing helper or model: one notice, nothing else.
    /// `bar`: the scan's progress bar, drawn on for this phase too (it sat at "300/300 ETA 0:00"
    /// while the models took minutes); `--jsonl` gets progress events with phase "models".
    /// `workers`: the scan's; one helper runs for each (a core each).
    static func run(_ update: LibraryUpdate, _ ctx: Context, jsonl: Bool, workers: Int, bar: ProgressBar? = nil) throws {
        // The progress is paced on the update's clock (the command's).
        let clock = update.clock
        let started = clock.now()
        var said = Date.distantPast
        let summary = try update.runModels(
            parallel: workers,
            progress: { done, total in
                let now = clock.now()
                guard done == total || now.timeIntervalSince(said) >= 1 else { return }
                said = now
                let rate = Double(done) / max(0.001, now.timeIntervalSince(started))
                let eta = rate > 0 ? Double(total - done) / rate : nil
                if jsonl {
                    ctx.out(
                        JSON.object([
                            ("event", .string("progress")), ("phase", .string("models")), ("done", .int(done)), ("total", .int(total)),
                            ("files_per_second", .double((rate * 10).rounded() / 10)), ("eta_s", .opt(eta.map { $0.rounded() })),
                        ]).serialized())
                    ctx.flush()
                } else {
                    bar?.update(ScanProgress(phase: .analyzing, done: done, total: total, filesPerSecond: rate, etaSeconds: eta), label: "models")
                }
            })
        bar?.finish()
        guard summary.available else { return }
        if jsonl {
            ctx.out(
                JSON.object([
                    ("event", .string("models")), ("analyzed", .int(summary.analyzed)), ("failed", .int(summary.failed)),
                    ("skipped", .int(summary.skipped)), ("people", .int(summary.withPeople)),
                    ("seconds", .double((summary.seconds * 100).rounded() / 100)), ("helpers", .int(workers)),
                    ("stages_s", .object(summary.stages.named.map { ($0.0, .double(($0.1 * 1000).rounded() / 1000)) })),
                ]).serialized())
        } else if !ctx.quiet && summary.analyzed + summary.failed > 0 {
            var line = "models: \(summary.analyzed) photos looked at, \(summary.withPeople) with people"
            if summary.failed > 0 { line += "; \(summary.failed) could not be analyzed" }
            ctx.err(line)
        }
    }
}
