import Foundation

/// A word SnapSort stores in a column of its own (`files.status`, `trash_ledger.state`,
/// `decisions.decision`, …): the column's vocabulary is one Swift type, and a query names a word
/// through it (`\(LedgerState.trashed.sql)`), never by hand — as `Library.live()` does for the
/// live rows. The words are ours (lowercase letters and `_`), never a user's text, so they are
/// written into the SQL as literals: a partial index's predicate must be one (SQLite uses the
/// index only for a `WHERE` that implies it, and a bound parameter implies nothing).
protocol StoredWord: RawRepresentable where RawValue == String {}

extension StoredWord {
    /// The word as a SQL string literal: `'trashed'`.
    var sql: String { "'\(rawValue)'" }

    /// The words as a SQL list for `IN`: `('trashed','purged')`.
    static func sql(_ words: [Self]) -> String { "(" + words.map(\.sql).joined(separator: ",") + ")" }
}

extension ItemStatus: StoredWord {}
extension LedgerState: StoredWord {}
extension Decision: StoredWord {}
extension MediaFormat.Kind: StoredWord {}
extension ReasonCode: StoredWord {}
extension ReviewEventKind: StoredWord {}
extension VisionStatus: StoredWord {}
extension RootState: StoredWord {}
extension GroupID: StoredWord {}
