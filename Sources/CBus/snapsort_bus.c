#include "snapsort_bus.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>

#define SS_QUEUE 64
#define NOTIFY_DEST "org.freedesktop.Notifications"
#define NOTIFY_PATH "/org/freedesktop/Notifications"
#define NOTIFY_IFACE "org.freedesktop.Notifications"

struct ss_bus {
    sd_bus *bus;
    sd_bus_slot *match_action;
    sd_bus_slot *match_closed;
    sd_bus_slot *match_token;
    sd_bus_slot *match_power;
    ss_bus_event queue[SS_QUEUE];
    size_t head, count;
    char last_error_name[256];
};

static void put_err(char *err, size_t errlen, const char *what, int r, const sd_bus_error *e) {
    if (!err || errlen == 0) return;
    if (e && sd_bus_error_is_set(e))
        snprintf(err, errlen, "%s: %s (%s)", what, e->message ? e->message : "", e->name);
    else
        snprintf(err, errlen, "%s: %s", what, strerror(r < 0 ? -r : r));
}

static void remember(ss_bus *b, const sd_bus_error *e) {
    b->last_error_name[0] = 0;
    if (e && sd_bus_error_is_set(e) && e->name) snprintf(b->last_error_name, sizeof b->last_error_name, "%s", e->name);
}

static int open_bus(const char *address, int system, ss_bus **out, char *err, size_t errlen) {
    *out = NULL;
    ss_bus *b = calloc(1, sizeof *b);
    if (!b) return -ENOMEM;
    int r;
    if (address) {
        r = sd_bus_new(&b->bus);
        if (r >= 0) r = sd_bus_set_address(b->bus, address);
        if (r >= 0) r = sd_bus_set_bus_client(b->bus, 1);
        if (r >= 0) r = sd_bus_start(b->bus);
    } else {
        r = system ? sd_bus_open_system(&b->bus) : sd_bus_open_user(&b->bus);
    }
    if (r < 0) {
        put_err(err, errlen, system ? "cannot connect to the system bus" : "cannot connect to the session bus", r, NULL);
        if (b->bus) sd_bus_unref(b->bus);
        free(b);
        return r;
    }
    *out = b;
    return 0;
}

int ss_bus_open(const char *address, ss_bus **out, char *err, size_t errlen) {
    return open_bus(address, 0, out, err, errlen);
}

int ss_bus_open_system(const char *address, ss_bus **out, char *err, size_t errlen) {
    return open_bus(address, 1, out, err, errlen);
}

void ss_bus_close(ss_bus *b) {
    if (!b) return;
    sd_bus_slot_unref(b->match_power);
    sd_bus_slot_unref(b->match_action);
    sd_bus_slot_unref(b->match_closed);
    sd_bus_slot_unref(b->match_token);
    if (b->bus) sd_bus_flush_close_unref(b->bus);
    free(b);
}

int ss_bus_fd(ss_bus *b) { return sd_bus_get_fd(b->bus); }

static void enqueue(ss_bus *b, const ss_bus_event *e) {
    if (b->count == SS_QUEUE) { /* drop the oldest: the newest signal is the one that matters */
        b->head = (b->head + 1) % SS_QUEUE;
        b->count--;
    }
    b->queue[(b->head + b->count) % SS_QUEUE] = *e;
    b->count++;
}

int ss_bus_next_event(ss_bus *b, ss_bus_event *out) {
    if (b->count == 0) return 0;
    *out = b->queue[b->head];
    b->head = (b->head + 1) % SS_QUEUE;
    b->count--;
    return 1;
}

static int on_action(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
    (void)ret_error;
    ss_bus *b = userdata;
    uint32_t id = 0;
    const char *key = NULL;
    if (sd_bus_message_read(m, "us", &id, &key) < 0 || !key) return 0;
    ss_bus_event e = {.kind = 1, .id = id};
    snprintf(e.action, sizeof e.action, "%s", key);
    enqueue(b, &e);
    return 0;
}

static int on_token(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
    (void)ret_error;
    ss_bus *b = userdata;
    uint32_t id = 0;
    const char *token = NULL;
    if (sd_bus_message_read(m, "us", &id, &token) < 0 || !token) return 0;
    if (strlen(token) >= sizeof ((ss_bus_event *)0)->token) return 0; /* cut, it would be wrong */
    ss_bus_event e = {.kind = 4, .id = id};
    snprintf(e.token, sizeof e.token, "%s", token);
    enqueue(b, &e);
    return 0;
}

static int on_closed(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
    (void)ret_error;
    ss_bus *b = userdata;
    uint32_t id = 0, reason = 0;
    if (sd_bus_message_read(m, "uu", &id, &reason) < 0) return 0;
    ss_bus_event e = {.kind = 2, .id = id, .reason = reason};
    enqueue(b, &e);
    return 0;
}

int ss_bus_process(ss_bus *b, char *err, size_t errlen) {
    for (;;) {
        int r = sd_bus_process(b->bus, NULL);
        if (r < 0) {
            put_err(err, errlen, "session bus", r, NULL);
            return r;
        }
        if (r == 0) break;
    }
    return (int)b->count;
}

int ss_bus_wait(ss_bus *b, uint64_t timeout_usec, char *err, size_t errlen) {
    int r = ss_bus_process(b, err, errlen);
    if (r != 0) return r;
    r = sd_bus_wait(b->bus, timeout_usec);
    if (r < 0 && r != -EINTR) {
        put_err(err, errlen, "session bus", r, NULL);
        return r;
    }
    return ss_bus_process(b, err, errlen);
}

int ss_notifications_listen(ss_bus *b, char *err, size_t errlen) {
    if (b->match_action) return 0;
    /* Only the notification server's signals: any client of the session bus can emit an
       ActionInvoked with our notification's id ("Start a session" from a stranger). The bus
       daemon matches a well-known sender name against its current owner. */
    int r = sd_bus_match_signal(b->bus, &b->match_action, NOTIFY_DEST, NOTIFY_PATH, NOTIFY_IFACE, "ActionInvoked", on_action, b);
    if (r >= 0) r = sd_bus_match_signal(b->bus, &b->match_closed, NOTIFY_DEST, NOTIFY_PATH, NOTIFY_IFACE, "NotificationClosed", on_closed, b);
    if (r >= 0) r = sd_bus_match_signal(b->bus, &b->match_token, NOTIFY_DEST, NOTIFY_PATH, NOTIFY_IFACE, "ActivationToken", on_token, b);
    if (r < 0) {
        put_err(err, errlen, "cannot subscribe to notification signals", r, NULL);
        b->match_action = sd_bus_slot_unref(b->match_action);
        b->match_closed = sd_bus_slot_unref(b->match_closed);
        b->match_token = sd_bus_slot_unref(b->match_token);
        return r;
    }
    return 0;
}

static int call(ss_bus *b, sd_bus_message *m, uint64_t timeout_usec, sd_bus_message **reply, const char *what,
                char *err, size_t errlen) {
    sd_bus_error e = SD_BUS_ERROR_NULL;
    int r = sd_bus_call(b->bus, m, timeout_usec, &e, reply);
    remember(b, &e);
    if (r < 0) put_err(err, errlen, what, r, &e);
    sd_bus_error_free(&e);
    return r;
}

int ss_notifications_capabilities(ss_bus *b, uint64_t timeout_usec, char *buf, size_t buflen, char *err, size_t errlen) {
    sd_bus_message *m = NULL, *reply = NULL;
    if (buflen) buf[0] = 0;
    int r = sd_bus_message_new_method_call(b->bus, &m, NOTIFY_DEST, NOTIFY_PATH, NOTIFY_IFACE, "GetCapabilities");
    if (r < 0) { put_err(err, errlen, "GetCapabilities", r, NULL); return r; }
    r = call(b, m, timeout_usec, &reply, "GetCapabilities", err, errlen);
    sd_bus_message_unref(m);
    if (r < 0) return r;
    char **caps = NULL;
    r = sd_bus_message_read_strv(reply, &caps);
    sd_bus_message_unref(reply);
    if (r < 0) { put_err(err, errlen, "GetCapabilities reply", r, NULL); return r; }
    size_t used = 0;
    for (char **c = caps; c && *c; c++) {
        size_t n = strlen(*c);
        if (used + n + 2 <= buflen) {
            if (used) buf[used++] = '\n';
            memcpy(buf + used, *c, n);
            used += n;
            buf[used] = 0;
        }
        free(*c);
    }
    free(caps);
    return 0;
}

int ss_notifications_notify(ss_bus *b, const char *app_name, uint32_t replaces_id, const char *icon,
                            const char *summary, const char *body, const char *const *actions, size_t n_actions,
                            int urgency, const char *category, const char *desktop_entry, int32_t expire_timeout,
                            uint64_t timeout_usec, uint32_t *out_id, char *err, size_t errlen) {
    sd_bus_message *m = NULL, *reply = NULL;
    int r = sd_bus_message_new_method_call(b->bus, &m, NOTIFY_DEST, NOTIFY_PATH, NOTIFY_IFACE, "Notify");
    if (r >= 0) r = sd_bus_message_append(m, "susss", app_name, replaces_id, icon ? icon : "", summary, body ? body : "");
    if (r >= 0) r = sd_bus_message_open_container(m, 'a', "s");
    for (size_t i = 0; r >= 0 && i < n_actions; i++) r = sd_bus_message_append_basic(m, 's', actions[i]);
    if (r >= 0) r = sd_bus_message_close_container(m);
    if (r >= 0) r = sd_bus_message_open_container(m, 'a', "{sv}");
    if (r >= 0 && urgency >= 0) r = sd_bus_message_append(m, "{sv}", "urgency", "y", (uint8_t)urgency);
    if (r >= 0 && category) r = sd_bus_message_append(m, "{sv}", "category", "s", category);
    if (r >= 0 && desktop_entry) r = sd_bus_message_append(m, "{sv}", "desktop-entry", "s", desktop_entry);
    if (r >= 0) r = sd_bus_message_close_container(m);
    if (r >= 0) r = sd_bus_message_append(m, "i", expire_timeout);
    if (r < 0) {
        put_err(err, errlen, "cannot build the Notify call", r, NULL);
        sd_bus_message_unref(m);
        return r;
    }
    r = call(b, m, timeout_usec, &reply, "Notify", err, errlen);
    sd_bus_message_unref(m);
    if (r < 0) return r;
    uint32_t id = 0;
    r = sd_bus_message_read(reply, "u", &id);
    sd_bus_message_unref(reply);
    if (r < 0) { put_err(err, errlen, "Notify reply", r, NULL); return r; }
    *out_id = id;
    return 0;
}

int ss_notifications_close(ss_bus *b, uint32_t id, uint64_t timeout_usec, char *err, size_t errlen) {
    sd_bus_message *m = NULL, *reply = NULL;
    int r = sd_bus_message_new_method_call(b->bus, &m, NOTIFY_DEST, NOTIFY_PATH, NOTIFY_IFACE, "CloseNotification");
    if (r >= 0) r = sd_bus_message_append_basic(m, 'u', &id);
    if (r < 0) { put_err(err, errlen, "CloseNotification", r, NULL); sd_bus_message_unref(m); return r; }
    r = call(b, m, timeout_usec, &reply, "CloseNotification", err, errlen);
    sd_bus_message_unref(m);
    sd_bus_message_unref(reply);
    return r < 0 ? r : 0;
}

#define UPOWER_DEST "org.freedesktop.UPower"
#define UPOWER_PATH "/org/freedesktop/UPower"

int ss_upower_on_battery(ss_bus *b, uint64_t timeout_usec, int *out, char *err, size_t errlen) {
    sd_bus_message *m = NULL, *reply = NULL;
    int r = sd_bus_message_new_method_call(b->bus, &m, UPOWER_DEST, UPOWER_PATH, "org.freedesktop.DBus.Properties", "Get");
    if (r >= 0) r = sd_bus_message_append(m, "ss", UPOWER_DEST, "OnBattery");
    if (r < 0) { put_err(err, errlen, "OnBattery", r, NULL); sd_bus_message_unref(m); return r; }
    r = call(b, m, timeout_usec, &reply, "OnBattery", err, errlen);
    sd_bus_message_unref(m);
    if (r < 0) return r;
    int v = 0;
    r = sd_bus_message_enter_container(reply, 'v', "b");
    if (r >= 0) r = sd_bus_message_read_basic(reply, 'b', &v);
    sd_bus_message_unref(reply);
    if (r < 0) { put_err(err, errlen, "OnBattery reply", r, NULL); return r; }
    *out = v ? 1 : 0;
    return 0;
}

static int on_power(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
    (void)m;
    (void)ret_error;
    ss_bus_event e = {.kind = 3};
    enqueue(userdata, &e);
    return 0;
}

int ss_upower_listen(ss_bus *b, char *err, size_t errlen) {
    if (b->match_power) return 0;
    int r = sd_bus_match_signal(b->bus, &b->match_power, NULL, UPOWER_PATH, "org.freedesktop.DBus.Properties",
                                "PropertiesChanged", on_power, b);
    if (r < 0) { put_err(err, errlen, "cannot subscribe to UPower", r, NULL); return r; }
    return 0;
}

const char *ss_bus_last_error_name(ss_bus *b) { return b->last_error_name; }
