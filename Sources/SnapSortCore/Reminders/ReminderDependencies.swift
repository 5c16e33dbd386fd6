import Foundation
import SnapSortSystem

/// What the reminder service needs from the rest of SnapSort, injectable for tests.
public struct ReminderDependencies: Sendable {
    /// The user's time zone, read at every computation (so a time-zone change is followed).
    public var timeZone: @Sendable () -> TimeZone
    /// Today's progress for the no-nag rule (nil: unknown, the rule does not apply).
    public var progress: @Sendable () throws -> ReminderProgress?
    /// The numbers a reminder shows.
    public var facts: @Sendable () throws -> ReminderFacts
    /// The ids of the milestones reached so far.
    public var milestones: @Sendable () throws -> [String]
    /// The deck a reminder's "Start a session" opens.
    public var deck: @Sendable () -> String
    public var page: ReviewPage
    public var logger: Logger

    public init(
        timeZone: @escaping @Sendable () -> TimeZone = { TimeZone.current },
        progress: @escaping @Sendable () throws -> ReminderProgress? = { nil },
        facts: @escaping @Sendable () throws -> ReminderFacts = { ReminderFacts() },
        milestones: @escaping @Sendable () throws -> [String] = { [] },
        deck: @escaping @Sendable () -> String = { "rediscover" },
        page: ReviewPage = .none, logger: Logger = .silent
    ) {
        self.timeZone = timeZone
        self.progress = progress
        self.facts = facts
        self.milestones = milestones
        self.deck = deck
        self.page = page
        self.logger = logger
    }
}

extension ReminderDependencies {
    /// The production wiring: today's progress, the streak and the milestones from `Stats`
    /// (issue 6), the group numbers from the status providers' `groups` (the groups feature
    /// plugs in there), the review page from the library's own page file (`LibraryFiles`), `xdg-open`, and the system time zone
    /// re-read each time.
    public static func standard(
        library: Library, configuration: Configuration, clock: Clock, env: Environment,
        providers: StatusProviders = .standard, logger: Logger
    ) -> ReminderDependencies {
        let zone: @Sendable () -> TimeZone = {
            // TimeZone.current is cached; a changed /etc/localtime or TZ must be seen.
            NSTimeZone.resetSystemTimeZone()
            return TimeZone.current
        }
        let goal = configuration.sessionGoal
        return ReminderDependencies(
            timeZone: zone,
            progress: {
                let r = try Stats.report(library: library, clock: clock, timeZone: zone(), goal: goal)
                return ReminderProgress(reviewedToday: r.doneToday, sessionGoal: goal)
            },
            facts: {
                let r = try Stats.report(library: library, clock: clock, timeZone: zone(), goal: goal)
                // What still waits for a verdict, each file once (kept items are not clutter).
                let waiting = try Decks.waitingClutter(library: library, clock: clock)
                // "Day N of your streak": today's session would be the next day of a streak alive since yesterday.
                let streak = r.streak.current + (r.doneToday == 0 && r.streak.current > 0 ? 1 : 0)
                return ReminderFacts(
                    similarShots: waiting.similarShots, screenshots: waiting.screenshots, bytesToFree: waiting.bytes,
                    awaitingReview: (try? Decks.awaitingReview(library: library, clock: clock)) ?? 0,
                    streakDays: streak, sessionGoal: goal)
            },
            milestones: {
                try Stats.report(library: library, clock: clock, timeZone: zone(), goal: goal).milestones.map(\.id)
            },
            deck: { standardDeck(library: library, clock: clock) },
            page: .live(env, database: library.path, logger: logger), logger: logger)
    }
}

extension ReminderDependencies {
    /// The deck "Start a session" opens: the later stack when items came back from their
    /// cool-down, else a rediscovery deck (20–30 cards, about one session goal's worth),
    /// drawn afresh each day.
    public static func standardDeck(library: Library, clock: Clock) -> String {
        if let later = try? Decks.build(.later, library: library, clock: clock), !later.items.isEmpty {
            return DeckID.later.description
        }
        let day = UInt64(max(0, clock.now().timeIntervalSince1970 / 86_400))
        return DeckID.rediscovery(seed: day).description
    }
}
