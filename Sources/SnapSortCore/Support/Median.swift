extension Array where Element == Double {
    /// The median of an ascending array: the middle value, or the mean of the two middle ones;
    /// nil when empty. (For an odd count `(v + v) / 2` is `v` exactly.)
    var medianOfSorted: Double? {
        isEmpty ? nil : (self[(count - 1) / 2] + self[count / 2]) / 2
    }
}
