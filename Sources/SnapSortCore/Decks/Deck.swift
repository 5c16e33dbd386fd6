import Foundation
import SnapSortSystem

/// A library filter a deck can be built from, combined with an optional year.
public enum LibraryFilter: Sendable, Hashable {
    case all, photos, videos, screenshots, selfies, livePhotos, favourites, edited
    /// Items shot with this camera model (EXIF Model).
    case camera(String)

    /// The names `snapsort decks` and deck ids use.
    public static let named: [(String, LibraryFilter)] = [
        ("all", .all), ("photos", .photos), ("videos", .videos), ("screenshots", .screenshots), ("selfies", .selfies),
        ("live-photos", .livePhotos), ("favourites", .favourites), ("edited", .edited),
    ]

    public var name: String {
        if case .camera(let m) = self { return "camera=" + m }
        return LibraryFilter.named.first { $0.1 == self }!.0
    }

    public init?(name: String) {
        if name.hasPrefix("camera=") {
            self = .camera(String(name.dropFirst(7)))
            return
        }
        guard let f = LibraryFilter.named.first(where: { $0.0 == name || ($0.0 == "favourites" && name == "kept") }) else { return nil }
        self = f.1
    }

    public var title: String {
        switch self {
        case .all: "Everything"
        case .photos: "Photos"
        case .videos: "Videos"
        case .screenshots: "Screenshots"
        case .selfies: "Selfies"
        case .livePhotos: "Live Photos"
        case .favourites: "Favourites and kept"
        case .edited: "Edited"
        case .camera(let m): "Shot with \(m)"
        }
    }
}

/// Which deck: a stable id that front ends pass around (`description` is its text form,
/// e.g. `month:2024-05`, `filter:screenshots@2023`, `on-this-day`, `rediscover:42`, `later`,
/// `group:blurry`).
public enum DeckID: Sendable, Hashable, CustomStringConvertible, LosslessStringConvertible {
    case month(year: Int, month: Int)
    case group(String)
    case filter(LibraryFilter, year: Int?)
    case onThisDay
    /// The age-weighted rediscovery deck; the seed makes a draw repeatable.
    case rediscovery(seed: UInt64)
    /// Deferred items whose cool-down ended.
    case later

    public var description: String {
        switch self {
        case .month(let y, let m): return String(format: "month:%04d-%02d", y, m)
        case .group(let g): return "group:" + g
        case .filter(let f, let y): return "filter:" + f.name + (y.map { "@\($0)" } ?? "")
        case .onThisDay: return "on-this-day"
        case .rediscovery(let s): return "rediscover:\(s)"
        case .later: return "later"
        }
    }

    public init?(_ text: String) {
        let parts = text.split(separator: ":", maxSplits: 1).map(String.init)
        switch parts.first {
        case "month":
            guard parts.count == 2 else { return nil }
            let ym = parts[1].split(separator: "-")
            guard ym.count == 2, let y = Int(ym[0]), let m = Int(ym[1]), (1...12).contains(m) else { return nil }
            self = .month(year: y, month: m)
        case "group":
            guard parts.count == 2, !parts[1].isEmpty else { return nil }
            self = .group(parts[1])
        case "filter":
            guard parts.count == 2 else { return nil }
            var name = parts[1]
            var year: Int?
            if let at = name.lastIndex(of: "@") {
                guard let y = Int(name[name.index(after: at)...]) else { return nil }
                year = y
                name = String(name[..<at])
            }
            guard let f = LibraryFilter(name: name) else { return nil }
            self = .filter(f, year: year)
        case "year":
            guard parts.count == 2, let y = Int(parts[1]) else { return nil }
            self = .filter(.all, year: y)
        case "on-this-day": self = .onThisDay
        case "rediscover":
            if parts.count == 2 {
                guard let s = UInt64(parts[1]) else { return nil }
                self = .rediscovery(seed: s)
            } else {
                self = .rediscovery(seed: 0)
            }
        case "later": self = .later
        default: return nil
        }
    }
}

/// One card of a deck.
public struct DeckItem: Sendable {
    public var item: Item
    /// The item's decision when the deck was built (nil, `skip`, or `later` for a returning item).
    public var decision: Decision?
    /// A deferred item coming back: show it as "seen before".
    public var seenBefore: Bool
    /// How many times it was deferred.
    public var deferrals: Int
    /// Deferred `Review.suggestKeepAfter` times or more: the deck suggests keeping it.
    public var suggestKeep: Bool
}

/// Progress over a deck's whole scope.
public struct DeckProgress: Sendable, Equatable {
    /// Items in scope with a verdict (trash, keep or later).
    public var reviewed: Int
    /// Items in scope.
    public var total: Int
    /// Bytes staged for the Trash in scope: what committing would free.
    public var bytesToGain: Int64

    public init(reviewed: Int = 0, total: Int = 0, bytesToGain: Int64 = 0) {
        self.reviewed = reviewed
        self.total = total
        self.bytesToGain = bytesToGain
    }
}

/// A finite list of items to review, built by the core and shared by every front end.
public struct Deck: Sendable {
    public var id: DeckID
    public var title: String
    /// The cards, in review order (skipped items last).
    public var items: [DeckItem]
    public var progress: DeckProgress
}

/// A line of the deck overview (`snapsort decks`, the page's deck list).
public struct DeckSummary: Sendable, Equatable {
    public var id: DeckID
    public var title: String
    /// Cards waiting in the deck now.
    public var waiting: Int
    public var progress: DeckProgress
}
