import Foundation
import SnapSortSystem

/// Computes the smart groups and stores them (see `Schema.groups`).
public struct Grouper {
    public let library: Library

    public init(library: Library) {
        self.library = library
    }

    /// Regroups everything.
    public func regroupAll() throws {
        try regroup(changed: nil)
    }

    /// Regroups what `changed` files can touch (nil: everything).
    public func regroup(changed: Set<Int64>?) throws {}
}

extension Item {
    /// How many columns `Item.columns` selects.
    static var columnCount: Int { columns.split(separator: ",").count }
}
