#ifndef SNAPSORT_BUS_H
#define SNAPSORT_BUS_H
/* A small, non-variadic face over sd-bus (libsystemd) for desktop notifications.
   sd_bus_call_method and sd_bus_message_append are variadic, so Swift never calls them: it
   calls these. Every function returns 0 (or a count) on success and a negative errno on
   failure, with a human message in `err` (a D-Bus error name and message when there is one).
   See: man 3 sd-bus, https://specifications.freedesktop.org/notification-spec/latest/ */
#include <stddef.h>
#include <stdint.h>

typedef struct ss_bus ss_bus;

/// A signal from the notification server, queued until `ss_bus_next_event` takes it.
typedef struct ss_bus_event {
    int kind;            /* 1: ActionInvoked, 2: NotificationClosed, 3: UPower properties changed,
                            4: ActivationToken */
    uint32_t id;         /* the notification id */
    uint32_t reason;     /* NotificationClosed: 1 expired, 2 dismissed, 3 CloseNotification, 4 other */
    char action[128];    /* ActionInvoked: the action key */
    char token[256];     /* ActivationToken: the XDG activation token (Wayland) or startup id (X11) */
} ss_bus_event;

/// Connects to `address` (a D-Bus address such as "unix:path=/run/user/1000/bus"), or to
/// the user's session bus when NULL ($DBUS_SESSION_BUS_ADDRESS, else $XDG_RUNTIME_DIR/bus).
int ss_bus_open(const char *address, ss_bus **out, char *err, size_t errlen);
/// Connects to `address`, or to the system bus when NULL (for UPower).
int ss_bus_open_system(const char *address, ss_bus **out, char *err, size_t errlen);
/// Flushes and closes the connection; NULL is fine.
void ss_bus_close(ss_bus *bus);
/// The connection's descriptor, for poll(2) (POLLIN).
int ss_bus_fd(ss_bus *bus);
/// Reads what arrived without blocking and queues notification signals.
/// Returns the number of queued events, or a negative errno (the connection is gone).
int ss_bus_process(ss_bus *bus, char *err, size_t errlen);
/// Waits up to `timeout_usec` for input (sd_bus_wait), then processes it.
int ss_bus_wait(ss_bus *bus, uint64_t timeout_usec, char *err, size_t errlen);
/// Takes the oldest queued event: 1 when one was taken, 0 when none is queued.
int ss_bus_next_event(ss_bus *bus, ss_bus_event *out);

/// Subscribes to ActionInvoked, ActivationToken (spec 1.2: sent just before ActionInvoked, so
/// the window the action opens may take the focus) and NotificationClosed.
int ss_notifications_listen(ss_bus *bus, char *err, size_t errlen);

/// org.freedesktop.Notifications.GetCapabilities: the capabilities joined by '\n' into `buf`.
int ss_notifications_capabilities(ss_bus *bus, uint64_t timeout_usec, char *buf, size_t buflen,
                                  char *err, size_t errlen);

/// org.freedesktop.Notifications.Notify (susssasa{sv}i). `actions` holds `n_actions` strings
/// (key, label, key, label…). Hints: `urgency` (byte; negative: none), `category` and
/// `desktop_entry` (strings; NULL: none). The server's id goes to `out_id`.
int ss_notifications_notify(ss_bus *bus, const char *app_name, uint32_t replaces_id, const char *icon,
                            const char *summary, const char *body, const char *const *actions, size_t n_actions,
                            int urgency, const char *category, const char *desktop_entry, int32_t expire_timeout,
                            uint64_t timeout_usec, uint32_t *out_id, char *err, size_t errlen);

/// org.freedesktop.Notifications.CloseNotification(u).
int ss_notifications_close(ss_bus *bus, uint32_t id, uint64_t timeout_usec, char *err, size_t errlen);

/// org.freedesktop.UPower's `OnBattery` property (Properties.Get): 1 or 0 into `out`.
int ss_upower_on_battery(ss_bus *bus, uint64_t timeout_usec, int *out, char *err, size_t errlen);
/// Subscribes to PropertiesChanged on /org/freedesktop/UPower (queued as kind 3 events).
int ss_upower_listen(ss_bus *bus, char *err, size_t errlen);

/// The name of the last D-Bus error a call returned (e.g.
/// "org.freedesktop.DBus.Error.ServiceUnknown"), or "" — for classifying failures.
const char *ss_bus_last_error_name(ss_bus *bus);
/* The tray: a StatusNotifierItem at /StatusNotifierItem and its com.canonical.dbusmenu menu at
   /MenuBar, exported with sd_bus_add_object_vtable. The vtables, their getters and method
   handlers live here (sd_bus_message_append is variadic); Swift hands in the facts as plain
   values (`ss_tray_set`, `ss_tray_set_menu`) and takes what people did as queued events.
   See: https://www.freedesktop.org/wiki/Specifications/StatusNotifierItem/ and
   libdbusmenu's com.canonical.dbusmenu.xml. */
typedef struct ss_tray ss_tray;

/// What happened on the bus, queued until `ss_tray_next_event` takes it.
typedef struct ss_tray_event {
    int kind;           /* 1: Activate, 2: SecondaryActivate, 3: a menu item clicked (id),
                           4: a watcher appeared (NameOwnerChanged), 5: registered with the watcher,
                           6: registering failed (message), 7: no watcher on the bus,
                           8: ProvideXdgActivationToken (message: the token) */
    int32_t id;         /* kind 3: the menu item's id */
    char message[256];  /* kind 6: why; kind 8: the token */
} ss_tray_event;

/// One menu item: `id` > 0, `label` (the mnemonic underscore doubled by the caller when
/// needed), `enabled`.
typedef struct ss_tray_item {
    int32_t id;
    const char *label;
    int enabled;
} ss_tray_item;

/// Connects to `address` (NULL: the session bus), exports the item (`id` its Id property) and
/// the menu, and subscribes to NameOwnerChanged of org.kde.StatusNotifierWatcher.
int ss_tray_open(const char *address, const char *id, ss_tray **out, char *err, size_t errlen);
/// Unexports everything, flushes and closes; NULL is fine.
void ss_tray_close(ss_tray *tray);
/// The connection's descriptor, for poll(2) (POLLIN); then `ss_tray_process`.
int ss_tray_fd(ss_tray *tray);
/// Serves what arrived without blocking. Returns the number of queued events or a negative errno.
int ss_tray_process(ss_tray *tray, char *err, size_t errlen);
/// Waits up to `timeout_usec` for input, then serves it (tests).
int ss_tray_wait(ss_tray *tray, uint64_t timeout_usec, char *err, size_t errlen);
/// Takes the oldest queued event: 1 when one was taken, 0 when none is queued.
int ss_tray_next_event(ss_tray *tray, ss_tray_event *out);
/// Asks org.kde.StatusNotifierWatcher to show the item (RegisterStatusNotifierItem with the
/// connection's unique name), without waiting: the answer comes as an event (5, 6 or 7).
int ss_tray_register(ss_tray *tray, char *err, size_t errlen);
/// The connection's unique name (":1.42").
const char *ss_tray_unique_name(ss_tray *tray);
/// Sets the item's facts and emits NewTitle, NewStatus, NewIcon, NewToolTip for those that
/// changed. `pixmap`: `n_pixmaps` pixmaps one after the other (at most 8), each `dims[2i]` ×
/// `dims[2i+1]` ARGB32 pixels in network byte order (may be NULL with 0); `pixmap_len` must be
/// their sum (else -EINVAL).
int ss_tray_set(ss_tray *tray, const char *title, const char *status, const char *icon_name,
                const char *tooltip_title, const char *tooltip_body, const int32_t *dims, size_t n_pixmaps,
                const uint8_t *pixmap, size_t pixmap_len, char *err, size_t errlen);
/// Sets the menu's items; emits LayoutUpdated (with a new revision) when they changed.
int ss_tray_set_menu(ss_tray *tray, const ss_tray_item *items, size_t n, char *err, size_t errlen);
#endif
