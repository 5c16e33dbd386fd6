import Foundation

/// The one rule for a live row of `files`.
///
/// A file that went stays as a tombstone (`status = 'gone'`, see docs/HACKING.md, Identity), so
/// every query of live items says so. Written through `live` (never by hand), the rule is one
/// text: the partial indexes `files_live_path` and `files_kind_live` (`Schema.swift`) carry the
/// same predicate, and SQLite uses a partial index only for a query whose `WHERE` implies
/// the index's (`LibraryTests.theLiveRuleIsThePartialIndexesRule`). A helper, not a view: an
/// `UPDATE` cannot go through a view, `INDEXED BY` names a table's index, and a view over `files`
/// would stand in the way of a migration that rebuilds the table.
extension Library {
    /// `\(Library.live())`, or `\(Library.live("f"))` for the `files` table named `alias` in a join.
    static func live(_ alias: String? = nil) -> String {
        (alias.map { $0 + "." } ?? "") + "status != \(ItemStatus.gone.sql)"
    }
}
