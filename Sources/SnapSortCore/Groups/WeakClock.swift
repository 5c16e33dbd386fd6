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
/// - a photo without any clock is compared by its pixels: its pHash neighbours across the
///   library (`GroupRules.similarRadius`), aligned thumbnails, then keypoints; and with the
///   `GroupRules.crowdNeighbours` files on either side of it in its crowd (the copier's order,
///   most often the names': a camera's numbering), not the window's `windowNeighbours` — at 4
///   the five stripped corpora without clocks still group as they did at 32, at 2 they lose
///   pairs; 8 is twice the least that held, and a crowd of a million-row library aligned 64
///   window pairs a photo, nearly all of them two different pictures.
/// A weak clock never separates copies (`GroupRules.separateCaptures` reads own times only): a
/// copy is written when it is made.
enum WeakClock {
    /// Each photo's weak clock, by its place on the timeline (`position`): its mtime when it has
    /// no capture time of its own (`ownTimes`), its capture time was read from the mtime
    /// (`CaptureTime.Source.mtime`) and fewer than `crowd` such files share a second with it; nil
    /// otherwise. `copiedAtOnce`, when given, says which were written at once (counted over the
    /// library by `Grouper.regroupInParts`, whose rows are a part's).
    static func times(
        of photos: some Sequence<GroupItem>, ownTimes: [Double?], position: [Int64: Int], crowd: Int,
        copiedAtOnce known: ((Int64) -> Bool)? = nil
    ) -> [Double?] {
        var out = [Double?](repeating: nil, count: ownTimes.count)
        var files: [(t: Int64, slot: Int)] = []
        var ids: [Int64] = []
        for p in photos {
            guard let slot = position[p.id], ownTimes[slot] == nil, p.takenFromModification else { continue }
            files.append((p.mtime, slot))
            ids.append(p.id)
        }
        if let known {
            for (k, f) in files.enumerated() where !known(ids[k]) { out[f.slot] = Double(f.t) / 1e9 }
            return out
        }
        let copied = copiedAtOnce(files.map(\.t), crowd: crowd)
        for (k, f) in files.enumerated() where !copied[k] { out[f.slot] = Double(f.t) / 1e9 }
        return out
    }

    /// Which of the files written at the mtimes `times` (nanoseconds) were written at once: every
    /// window of one second that starts at a file and holds `crowd` files.
    static func copiedAtOnce(_ times: [Int64], crowd: Int) -> [Bool] {
        let order = times.indices.sorted { times[$0] < times[$1] }
        var copied = [Bool](repeating: false, count: times.count)
        var j = 0
        for i in order.indices {
            if j < i { j = i }
            while j + 1 < order.count && times[order[j + 1]] - times[order[i]] < 1_000_000_000 { j += 1 }
            if j - i + 1 >= crowd { for k in i...j { copied[order[k]] = true } }
        }
        return copied
    }
}
