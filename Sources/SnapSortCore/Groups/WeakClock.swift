/// The mtime of a photo without a capture time of its own, where it can stand for one.
///
/// A camera writes each photo when it takes it, and a folder copied with its times (`cp -p`,
/// rsync `-t`, a card reader's import) keeps them: capture order and the gaps between shots. A
/// copy that does not keep them (a download, an unzip, a messenger saving a chat's photos, a sync
/// tool) writes the files one after another as fast as the disk goes, so a crowd of them lands
/// within a second — in one folder or in several. A camera does not take `crowd` different
/// photos in one second outside a burst, and a burst's frames are found by their pixels anyway;
/// so the files that `crowd` or more such files (anywhere in the library) share a second with
/// are said to have no clock, and the others keep their mtime as a *weak* clock. What a weak clock decides (`SimilarClustering`):
/// - two photos within `GroupRules.burstSeconds` of each other by their clocks are judged as a
///   burst's frames (one scene at any overlap, `burstInliers` keypoints);
/// - two photos whose clocks are more than `GroupRules.verifySeconds` apart are not verified by
///   their keypoints (the thumbnails still decide, as for photos with capture times);
/// - a photo without any clock is compared by its pixels alone: its pHash neighbours across the
///   library (`GroupRules.similarRadius`), aligned thumbnails, then keypoints.
/// A weak clock never separates copies (`GroupRules.separateCaptures` reads own times only): a
/// copy is written when it is made.
enum WeakClock {
    /// Each photo's weak clock, by its place on the timeline (`position`): its mtime when it has
    /// no capture time of its own (`ownTimes`), its capture time was read from the mtime
    /// (`CaptureTime.Source.mtime`) and fewer than `crowd` such files share a second with it; nil
    /// otherwise.
    static func times(
        of photos: some Sequence<GroupItem>, ownTimes: [Double?], position: [Int64: Int], crowd: Int
    ) -> [Double?] {
        var out = [Double?](repeating: nil, count: ownTimes.count)
        var files: [(t: Int64, slot: Int)] = []
        for p in photos {
            guard let slot = position[p.id], ownTimes[slot] == nil, p.takenFromModification else { continue }
            files.append((p.mtime, slot))
        }
        files.sort { $0.t < $1.t }
        var copied = [Bool](repeating: false, count: files.count)
        var j = 0
        // Every window of one second that starts at a file: when it holds `crowd` files, they
        // were written at once.
        for i in files.indices {
            if j < i { j = i }
            while j + 1 < files.count && files[j + 1].t - files[i].t < 1_000_000_000 { j += 1 }
            if j - i + 1 >= crowd { for k in i...j { copied[k] = true } }
        }
        for (k, f) in files.enumerated() where !copied[k] { out[f.slot] = Double(f.t) / 1e9 }
        return out
    }
}
