import SnapSortCore
import SnapSortSystem

/// Where later features hook into the engine's commands (format handlers, grouping after a
/// scan, report groups). Each feature adds one line here.
enum Extensions {
    /// Adds format handlers and settings to a scanner: the QR and OCR checks run on its workers.
    static func configure(_ scanner: LibraryScanner) {
        scanner.inspector = .live
    }

    /// Runs after a scan (e.g. regrouping), and clears the scanner's "regroup pending" mark.
    /// `models`: the vision helper may verify Similar Shots pairs (not with `--no-models`).
    static func afterScan(_ library: Library, _ roots: [String], models: Bool = true, checkpoint: @escaping () throws -> Void = {}) throws {
        // The scan's freed buffers (kept in the heap for the next photo, `Memory`) and the OCR
        // engines its workers started (~18 MB each; the workers read every page they found)
        // go back before the regroup builds its rows, so the peaks do not add up. A page the
        // regroup must still read starts an engine again (~0.15 s).
        OCR.releaseIdleEngines()
        Memory.releaseFreeMemory()
        try GroupsCommand.regroup(library, models: models, checkpoint: checkpoint)
        try library.setAgentState(LibraryScanner.regroupPendingKey, nil)
        // The regroup's working set (every file's row, the indexes) is garbage now; the agent
        // keeps running, so give it back rather than keep it for the next change.
        OCR.releaseIdleEngines()
        Memory.releaseFreeMemory()
    }

    /// Whether the last scans changed something that `afterScan` has not seen yet, or the
    /// groups were made under rules this version changed (an upgrade regroups once).
    static func afterScanPending(_ library: Library) throws -> Bool {
        try library.agentState(LibraryScanner.regroupPendingKey) != nil || Grouper(library: library).rulesChanged()
    }

    /// The group lookup for `report`, if a feature provides one.
    static func reportGroups(_ library: Library) throws -> Report.GroupLookup? {
        let groups = try library.reportGroups()
        return { groups[$0.id] ?? ReportGroups() }
    }
}
