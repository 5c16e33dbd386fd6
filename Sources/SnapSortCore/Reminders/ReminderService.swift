import Foundation
import SnapSortSystem

/// Reminders on a schedule, shown as desktop notifications; runs inside the agent's loop.
///
/// The agent drives it with four calls (all on its one thread, with its clock's `now`):
/// 1. `start(now:)` once, after opening the library: loads the persisted state. A reminder
///    missed while the agent was down is then due at once (once — never twice).
/// 2. Each loop turn, include `nextDeadline(now:)` in the `poll` timeout and `descriptors` in
///    the `poll` set.
/// 3. When the deadline has passed or one of `descriptors` is readable, call
///    `fire(now:readable:)`: it shows what is due, handles "Start a session", "Later" and
///    closed notifications, and re-arms the wall-clock timer (which wakes `poll` after a
///    suspend or when the clock is set).
/// 4. After the configuration changed: `configure(_:now:)`; after the database changed
///    (decisions made): `checkAchievements(now:)` for milestone and goal announcements.
///
/// `problem` says why the last notification could not be shown (no session bus, no
/// notification server, a timeout) — for the status file's `last_error`; it is logged once
/// per distinct problem and the next reminder tries again. Nothing here throws or blocks
/// longer than the D-Bus call timeout.
public final class ReminderService: @unchecked Sendable {
    public private(set) var configuration: Configuration
    public private(set) var schedule: ReminderSchedule
    public private(set) var state = ReminderState()
    /// Why the last notification failed, nil after a success.
    public private(set) var problem: String?
    /// The id of the notification on screen (reused as `replaces_id`), nil when none.
    public private(set) var activeNotification: UInt32?
    /// Whether "Start a session" (or the notification itself) was clicked.
    public private(set) var sessionStarted = false
    /// Whether "Start a session" found the review page and opened it.
    public private(set) var pageOpened = false
    /// The activation token the server sent for the active notification's next action.
    private var activationToken: String?
    /// A one-shot reminder (`remind --now`): a failure is the caller's to report (it ends the
    /// command), not logged as something the next reminder will retry.
    public var isOneShot = false

    public let library: Library
    public let notifier: ReminderNotifier
    public let dependencies: ReminderDependencies
    private let timer: RealtimeTimer?
    private var loggedProblem: String?
    private var logger: Logger { dependencies.logger }
    private var tz: TimeZone { dependencies.timeZone() }

    /// How long "Later" waits.
    public static let snoozeInterval: TimeInterval = 3600
    /// A reminder no server could show (no session bus, no notification server yet) is tried
    /// again this often until the next one is due: it was lost for a whole cadence, and the
    /// bars' ⚠ stayed after the server came back.
    public static let retryInterval: TimeInterval = 600
    private var retryAt: Date?
    /// The notification's icon: SnapSort's own, as the packages install it in the hicolor theme
    /// (`snapsort.svg`, the menu entry's); it was a generic picture icon.
    public static let icon = "snapsort"

    /// `realtimeTimer`: arm a `timerfd` on the wall clock so suspends and clock changes wake the
    /// loop (production); off for tests on a manual clock.
    public init(
        library: Library, configuration: Configuration, notifier: ReminderNotifier,
        dependencies: ReminderDependencies, realtimeTimer: Bool = false
    ) {
        self.library = library
        self.configuration = configuration
        self.schedule = ReminderSchedule(configuration)
        self.notifier = notifier
        self.dependencies = dependencies
        self.timer = realtimeTimer ? try? RealtimeTimer() : nil
    }

    // MARK: The agent's surface

    /// Loads the persisted state. The first run ever starts the schedule now (nothing from
    /// before counts as missed) and takes the milestones already reached as announced.
    public func start(now: Date) {
        loadState(now: now)
        rearm(now: now)
        logger.info(
            "reminders scheduled",
            [
                "reminder.cadence": schedule.cadence.description,
                "reminder.next": nextReminder(now: now).map(StatusTimestamp.string) ?? "none",
            ])
    }

    /// Loads the persisted state (for the agent at `start`, and for a one-shot `remind --now`,
    /// whose "Later" must add a snooze to the schedule as it stands, not save a fresh one that
    /// made every past slot due at the agent's next start).
    public func loadState(now: Date) {
        do {
            if let s = try library.reminderState() {
                state = s
            } else {
                state = ReminderState(lastSlot: now)
                try library.markMilestonesNotified(try dependencies.milestones(), now: now)
                try library.saveReminderState(state, now: now)
            }
        } catch {
            logger.warning("cannot read the reminder state", ["error": "\(error)"])
        }
    }

    /// Descriptors to add to the loop's `poll` set: the wall-clock timer and the bus.
    public var descriptors: [Int32] { [timer?.fd, notifier.fd].compactMap { $0 } }

    /// When `fire` next has something to do (nil: nothing scheduled). May be in the past.
    public func nextDeadline(now: Date) -> Date? {
        var candidates: [Date] = []
        // A snooze that ran out while nothing delivered it (no agent) is due now, not then.
        if let s = state.snoozedUntil { candidates.append(schedule.deliveryTime(notBefore: max(s, now), in: tz)) }
        if let r = retryAt { candidates.append(schedule.deliveryTime(notBefore: max(r, now), in: tz)) }
        if pendingSlot(now: now) != nil {
            candidates.append(schedule.deliveryTime(notBefore: now, in: tz))
        } else if let next = schedule.occurrence(after: now, in: tz) {
            candidates.append(schedule.deliveryTime(notBefore: next, in: tz))
        }
        return candidates.min()
    }

    /// The next time a reminder will be shown (for the status file's `next_reminder`).
    public func nextReminder(now: Date) -> Date? { nextDeadline(now: now) }

    /// Does what is due at `now`: shows a due (or missed, or snoozed) reminder unless quiet
    /// hours or the no-nag rule say otherwise, and handles signals from the notification
    /// server. `readable`: the descriptors `poll` reported (may include others').
    public func fire(now: Date, readable: [Int32] = []) {
        if let t = timer, readable.contains(t.fd), t.read() == .clockChanged {
            logger.info("the wall clock changed; reminders recomputed")
        }
        handleSignals(now: now)
        deliverIfDue(now: now)
        rearm(now: now)
    }

    /// Handles only the notification server's signals ("Start a session", "Later", closed),
    /// for a process that shows one notification and waits (`snapsort remind --now --wait`).
    public func handleNotificationSignals(now: Date, readable: [Int32] = []) {
        handleSignals(now: now)
    }

    /// Applies a new configuration (cadence, time, quiet hours, milestone setting).
    public func configure(_ c: Configuration, now: Date) {
        configuration = c
        schedule = ReminderSchedule(c)
        rearm(now: now)
    }

    /// Sends the reminder now, bypassing cadence, quiet hours and the no-nag rule
    /// (`snapsort remind --now`). Throws when it could not be shown.
    @discardableResult
    public func sendNow(now: Date) throws -> UInt32 {
        let facts = (try? dependencies.facts()) ?? ReminderFacts(sessionGoal: configuration.sessionGoal)
        let text = ReminderMessage.reminder(facts)
        return try show(summary: text.summary, body: text.body, actions: true, now: now)
    }

    /// Announces a newly reached milestone or today's goal (when `milestone_notifications` is
    /// on): one notification at a time, replacing the previous one; several milestones reached
    /// together make one announcement (the last).
    public func checkAchievements(now: Date) {
        guard configuration.milestoneNotifications else { return }
        do {
            let known = try library.notifiedMilestones()
            let fresh = try dependencies.milestones().filter { !known.contains($0) }
            if let last = fresh.last {
                try library.markMilestonesNotified(fresh, now: now)
                let text = ReminderMessage.milestone(last)
                _ = try? show(summary: text.summary, body: text.body, actions: false, now: now)
                return
            }
            let today = LocalCalendar.local(now, tz).day
            if let p = try dependencies.progress(), p.goalReached, state.goalNotifiedDay != today {
                state.goalNotifiedDay = today
                try library.saveReminderState(state, now: now)
                let text = ReminderMessage.goalReached(p)
                _ = try? show(summary: text.summary, body: text.body, actions: false, now: now)
            }
        } catch {
            logger.warning("cannot check milestones", ["error": "\(error)"])
        }
    }

    /// The next reminder for a library without a running service (status, `remind --next`).
    public static func nextReminder(
        library: Library, configuration: Configuration, now: Date,
        timeZone: TimeZone = .current
    ) -> Date? {
        let service = ReminderService(
            library: library, configuration: configuration, notifier: NullNotifier(),
            dependencies: ReminderDependencies(timeZone: { timeZone }))
        service.state = (try? library.reminderState()) ?? ReminderState(lastSlot: now)
        return service.nextDeadline(now: now)
    }

    // MARK: Scheduling

    /// The latest scheduled time at or before `now` not yet handled.
    func pendingSlot(now: Date) -> Date? {
        guard let slot = schedule.occurrence(atOrBefore: now, in: tz) else { return nil }
        if let last = state.lastSlot, slot <= last { return nil }
        return slot
    }

    private func deliverIfDue(now: Date) {
        let zone = tz
        let slot = pendingSlot(now: now)
        let snoozeDue = state.snoozedUntil.map { $0 <= now } ?? false
        let retryDue = retryAt.map { $0 <= now } ?? false
        guard slot != nil || snoozeDue || retryDue else { return }
        if schedule.isQuiet(now, in: zone) { return }  // nextDeadline points at the end of the quiet hours
        if let slot { state.lastSlot = slot }
        if snoozeDue { state.snoozedUntil = nil }
        retryAt = nil
        var reason = noNagReason()
        var facts: ReminderFacts?
        if reason == nil {
            // Nothing waits for a verdict (everything kept or staged): no nudge to an empty deck.
            facts = try? dependencies.facts()
            if facts?.awaitingReview == 0 { reason = "skipped-nothing-waiting" }
        }
        if let reason {
            state.lastOutcome = reason
            logger.info("reminder skipped", ["reminder.reason": reason])
        } else {
            let facts = facts ?? ReminderFacts(sessionGoal: configuration.sessionGoal)
            let text = ReminderMessage.reminder(facts)
            if (try? show(summary: text.summary, body: text.body, actions: true, now: now)) != nil {
                state.lastOutcome = "shown"
                state.lastDeliveredAt = now
            } else {
                state.lastOutcome = "failed"
                // Tried again soon, up to the next reminder (which then takes over).
                let again = now.addingTimeInterval(ReminderService.retryInterval)
                if let next = schedule.occurrence(after: now, in: zone), next <= again { retryAt = nil } else { retryAt = again }
            }
        }
        save(now: now)
    }

    /// `skipped-goal` when today's goal is reached, `skipped-reviewed` when anything was reviewed
    /// today on a daily cadence, nil to remind.
    private func noNagReason() -> String? {
        guard let p = (try? dependencies.progress()) ?? nil else { return nil }
        if p.goalReached { return "skipped-goal" }
        if schedule.cadence == .daily && p.reviewedToday > 0 { return "skipped-reviewed" }
        return nil
    }

    private func rearm(now: Date) {
        guard let t = timer else { return }
        do { try t.arm(at: nextDeadline(now: now)) } catch {
            logger.warning("cannot arm the reminder timer", ["error": "\(error)"])
        }
    }

    private func save(now: Date) {
        do { try library.saveReminderState(state, now: now) } catch {
            logger.warning("cannot save the reminder state", ["error": "\(error)"])
        }
    }

    // MARK: Notifications

    private func show(summary: String, body: String, actions: Bool, now: Date) throws -> UInt32 {
        // "Start a session" opens the review page; with no page running (an agent started with
        // --no-web) it did nothing: then the reminder says how to start one instead.
        let page = actions && dependencies.page.url("") != nil
        let n = DesktopNotification(
            appName: "SnapSort", replacesID: activeNotification ?? 0, icon: ReminderService.icon, summary: summary,
            body: actions && !page ? body + "\nStart one with 'snapsort review' in a terminal." : body,
            actions: !actions ? [] : page ? [("default", "Open SnapSort"), ("start", "Start a session"), ("later", "Later")] : [("later", "Later")],
            urgency: actions ? .normal : .low, category: actions ? "reminder" : nil, desktopEntry: "snapsort")
        do {
            let id = try notifier.show(n)
            activeNotification = id
            activationToken = nil
            if problem != nil { logger.notice("notifications work again") }
            problem = nil
            loggedProblem = nil
            logger.info("notification shown", ["notification.id": "\(id)"])
            return id
        } catch {
            let message = "cannot show a notification: \((error as? DBusError)?.explained ?? "\(error)")"
            problem = message
            // Logged once per distinct problem; the next reminder tries again.
            if !isOneShot && loggedProblem != message {
                loggedProblem = message
                logger.warning("cannot show a notification; tried again every ten minutes", ["error": "\(error)"])
            }
            throw error
        }
    }

    private func handleSignals(now: Date) {
        for s in notifier.signals() {
            switch s {
            case .actionInvoked(let id, let action) where id == activeNotification:
                let token = activationToken
                activationToken = nil  // good for this action only
                switch action {
                case "later":
                    state.snoozedUntil = now.addingTimeInterval(ReminderService.snoozeInterval)
                    save(now: now)
                    logger.info("reminder snoozed", ["reminder.until": StatusTimestamp.string(state.snoozedUntil!)])
                case "start", "default":
                    if let url = dependencies.page.url(dependencies.deck()) {
                        dependencies.page.open(url, token)
                        pageOpened = true
                        // The opener logs which one ran (`ReviewPage.log`); the browser's own
                        // failure is not seen here.
                        logger.info("opening the review page")
                    } else {
                        logger.notice("the review page is not running; start it to review from a reminder")
                    }
                    // Answered: a `remind --now --wait` is done (a server that keeps the
                    // notification after its action never sends NotificationClosed).
                    sessionStarted = true
                default: break
                }
            case .activationToken(let id, let token) where id == activeNotification:
                // Sent just before the action it belongs to (spec 1.2).
                activationToken = token
            case .closed(let id, _) where id == activeNotification:
                // The notification is gone: the wait ends; the next one starts fresh.
                activeNotification = nil
            default: break
            }
        }
    }
}

/// A notifier that shows nothing (computations without a bus).
final class NullNotifier: ReminderNotifier, @unchecked Sendable {
    func show(_ notification: DesktopNotification) throws -> UInt32 { 0 }
    var fd: Int32? { nil }
    func signals() -> [NotificationSignal] { [] }
}
