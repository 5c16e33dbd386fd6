/* The tray: org.kde.StatusNotifierItem at /StatusNotifierItem and com.canonical.dbusmenu at
   /MenuBar, exported with sd_bus_add_object_vtable (see snapsort_bus.h). The getters read the
   facts Swift set with ss_tray_set / ss_tray_set_menu; the method handlers queue events.
   See: man 3 sd_bus_add_object_vtable,
   https://www.freedesktop.org/wiki/Specifications/StatusNotifierItem/StatusNotifierItem/ */
#include "snapsort_bus.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>

#define TRAY_QUEUE 64
#define ITEM_PATH "/StatusNotifierItem"
#define ITEM_IFACE "org.kde.StatusNotifierItem"
#define MENU_PATH "/MenuBar"
#define MENU_IFACE "com.canonical.dbusmenu"
#define WATCHER_NAME "org.kde.StatusNotifierWatcher"
#define WATCHER_PATH "/StatusNotifierWatcher"
#define MAX_ITEMS 32
#define MAX_PIXMAPS 8

typedef struct tray_item {
    int32_t id;
    char *label;
    int enabled;
} tray_item;

struct ss_tray {
    sd_bus *bus;
    sd_bus_slot *item_slot, *menu_slot, *owner_slot;
    char *id, *title, *status, *icon_name, *tt_title, *tt_body;
    uint8_t *pixmap; /* the pixmaps' pixels, one after the other */
    size_t pixmap_len;
    int32_t dims[2 * MAX_PIXMAPS]; /* width, height of each */
    size_t n_pixmaps;
    tray_item items[MAX_ITEMS];
    size_t n_items;
    uint32_t revision;
    ss_tray_event queue[TRAY_QUEUE];
    size_t head, count;
};

static void tray_err(char *err, size_t errlen, const char *what, int r) {
    if (err && errlen) snprintf(err, errlen, "%s: %s", what, strerror(r < 0 ? -r : r));
}

static void tray_enqueue(ss_tray *t, const ss_tray_event *e) {
    if (t->count == TRAY_QUEUE) {
        t->head = (t->head + 1) % TRAY_QUEUE;
        t->count--;
    }
    t->queue[(t->head + t->count) % TRAY_QUEUE] = *e;
    t->count++;
}

static void tray_event(ss_tray *t, int kind, int32_t id, const char *message) {
    ss_tray_event e = {.kind = kind, .id = id};
    if (message) snprintf(e.message, sizeof e.message, "%s", message);
    tray_enqueue(t, &e);
}

static const char *or_empty(const char *s) { return s ? s : ""; }

/* a(iiay): each pixmap (several sizes: the host picks the one that fits its panel), or none. */
static int append_pixmaps(sd_bus_message *m, const ss_tray *t) {
    int r = sd_bus_message_open_container(m, 'a', "(iiay)");
    if (r < 0) return r;
    size_t at = 0;
    for (size_t i = 0; i < t->n_pixmaps; i++) {
        size_t len = (size_t)t->dims[2 * i] * (size_t)t->dims[2 * i + 1] * 4;
        if ((r = sd_bus_message_open_container(m, 'r', "iiay")) < 0) return r;
        if ((r = sd_bus_message_append(m, "ii", t->dims[2 * i], t->dims[2 * i + 1])) < 0) return r;
        if ((r = sd_bus_message_append_array(m, 'y', t->pixmap + at, len)) < 0) return r;
        if ((r = sd_bus_message_close_container(m)) < 0) return r;
        at += len;
    }
    return sd_bus_message_close_container(m);
}

static int item_get(sd_bus *bus, const char *path, const char *interface, const char *property,
                    sd_bus_message *reply, void *userdata, sd_bus_error *ret_error) {
    (void)bus, (void)path, (void)interface, (void)ret_error;
    ss_tray *t = userdata;
    if (!strcmp(property, "Category")) return sd_bus_message_append(reply, "s", "ApplicationStatus");
    if (!strcmp(property, "Id")) return sd_bus_message_append(reply, "s", or_empty(t->id));
    if (!strcmp(property, "Title")) return sd_bus_message_append(reply, "s", or_empty(t->title));
    if (!strcmp(property, "Status")) return sd_bus_message_append(reply, "s", t->status ? t->status : "Passive");
    if (!strcmp(property, "WindowId")) return sd_bus_message_append(reply, "i", 0);
    if (!strcmp(property, "IconName") || !strcmp(property, "AttentionIconName"))
        return sd_bus_message_append(reply, "s", or_empty(t->icon_name));
    if (!strcmp(property, "IconPixmap") || !strcmp(property, "AttentionIconPixmap")) return append_pixmaps(reply, t);
    if (!strcmp(property, "OverlayIconName") || !strcmp(property, "AttentionMovieName") || !strcmp(property, "IconThemePath"))
        return sd_bus_message_append(reply, "s", "");
    if (!strcmp(property, "OverlayIconPixmap")) return sd_bus_message_append(reply, "a(iiay)", 0);
    if (!strcmp(property, "ItemIsMenu")) return sd_bus_message_append(reply, "b", 0);
    if (!strcmp(property, "Menu")) return sd_bus_message_append(reply, "o", MENU_PATH);
    if (!strcmp(property, "ToolTip")) {
        /* (sa(iiay)ss): icon name, icon pixmaps, title, body. */
        int r = sd_bus_message_open_container(reply, 'r', "sa(iiay)ss");
        if (r < 0) return r;
        if ((r = sd_bus_message_append(reply, "s", or_empty(t->icon_name))) < 0) return r;
        if ((r = append_pixmaps(reply, t)) < 0) return r;
        if ((r = sd_bus_message_append(reply, "ss", or_empty(t->tt_title), or_empty(t->tt_body))) < 0) return r;
        return sd_bus_message_close_container(reply);
    }
    return -ENOENT;
}

static int item_activate(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
    (void)ret_error;
    tray_event(userdata, 1, 0, NULL);
    return sd_bus_reply_method_return(m, NULL);
}

static int item_secondary(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
    (void)ret_error;
    tray_event(userdata, 2, 0, NULL);
    return sd_bus_reply_method_return(m, NULL);
}

/* KDE's extension (Plasma 5.27+): the host hands the XDG activation token for the click that
   follows, so the window it opens may take the focus on Wayland. A token too long for the
   event is dropped rather than cut (a cut token is wrong). */
static int item_token(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
    (void)ret_error;
    const char *token = NULL;
    int r = sd_bus_message_read(m, "s", &token);
    if (r < 0) return r;
    if (token && strlen(token) < sizeof ((ss_tray_event *)0)->message) tray_event(userdata, 8, 0, token);
    return sd_bus_reply_method_return(m, NULL);
}

/* ContextMenu and Scroll: the host shows the menu itself (Menu property); nothing to scroll. */
static int item_ignore(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
    (void)userdata, (void)ret_error;
    return sd_bus_reply_method_return(m, NULL);
}

static const sd_bus_vtable item_vtable[] = {
    SD_BUS_VTABLE_START(0),
    SD_BUS_PROPERTY("Category", "s", item_get, 0, 0),
    SD_BUS_PROPERTY("Id", "s", item_get, 0, 0),
    SD_BUS_PROPERTY("Title", "s", item_get, 0, 0),
    SD_BUS_PROPERTY("Status", "s", item_get, 0, 0),
    SD_BUS_PROPERTY("WindowId", "i", item_get, 0, 0),
    SD_BUS_PROPERTY("IconThemePath", "s", item_get, 0, 0),
    SD_BUS_PROPERTY("IconName", "s", item_get, 0, 0),
    SD_BUS_PROPERTY("IconPixmap", "a(iiay)", item_get, 0, 0),
    SD_BUS_PROPERTY("OverlayIconName", "s", item_get, 0, 0),
    SD_BUS_PROPERTY("OverlayIconPixmap", "a(iiay)", item_get, 0, 0),
    SD_BUS_PROPERTY("AttentionIconName", "s", item_get, 0, 0),
    SD_BUS_PROPERTY("AttentionIconPixmap", "a(iiay)", item_get, 0, 0),
    SD_BUS_PROPERTY("AttentionMovieName", "s", item_get, 0, 0),
    SD_BUS_PROPERTY("ToolTip", "(sa(iiay)ss)", item_get, 0, 0),
    SD_BUS_PROPERTY("ItemIsMenu", "b", item_get, 0, 0),
    SD_BUS_PROPERTY("Menu", "o", item_get, 0, 0),
    SD_BUS_METHOD("ContextMenu", "ii", "", item_ignore, 0),
    SD_BUS_METHOD("Activate", "ii", "", item_activate, 0),
    SD_BUS_METHOD("SecondaryActivate", "ii", "", item_secondary, 0),
    SD_BUS_METHOD("Scroll", "is", "", item_ignore, 0),
    SD_BUS_METHOD("ProvideXdgActivationToken", "s", "", item_token, 0),
    SD_BUS_SIGNAL("NewTitle", "", 0),
    SD_BUS_SIGNAL("NewIcon", "", 0),
    SD_BUS_SIGNAL("NewAttentionIcon", "", 0),
    SD_BUS_SIGNAL("NewOverlayIcon", "", 0),
    SD_BUS_SIGNAL("NewToolTip", "", 0),
    SD_BUS_SIGNAL("NewStatus", "s", 0),
    SD_BUS_VTABLE_END,
};

/* ---- com.canonical.dbusmenu ---- */

static const tray_item *find_item(const ss_tray *t, int32_t id) {
    for (size_t i = 0; i < t->n_items; i++)
        if (t->items[i].id == id) return &t->items[i];
    return NULL;
}

static int append_sv_string(sd_bus_message *m, const char *key, const char *value) {
    int r;
    if ((r = sd_bus_message_open_container(m, 'e', "sv")) < 0) return r;
    if ((r = sd_bus_message_append(m, "s", key)) < 0) return r;
    if ((r = sd_bus_message_append(m, "v", "s", value)) < 0) return r;
    return sd_bus_message_close_container(m);
}

static int append_sv_bool(sd_bus_message *m, const char *key, int value) {
    int r;
    if ((r = sd_bus_message_open_container(m, 'e', "sv")) < 0) return r;
    if ((r = sd_bus_message_append(m, "s", key)) < 0) return r;
    if ((r = sd_bus_message_append(m, "v", "b", value)) < 0) return r;
    return sd_bus_message_close_container(m);
}

/* a{sv}: the root says its children are a submenu; an item its label and whether it is enabled. */
static int append_props(sd_bus_message *m, const tray_item *item) {
    int r = sd_bus_message_open_container(m, 'a', "{sv}");
    if (r < 0) return r;
    if (!item) {
        if ((r = append_sv_string(m, "children-display", "submenu")) < 0) return r;
    } else {
        if ((r = append_sv_string(m, "label", item->label)) < 0) return r;
        if ((r = append_sv_bool(m, "enabled", item->enabled)) < 0) return r;
        if ((r = append_sv_bool(m, "visible", 1)) < 0) return r;
    }
    return sd_bus_message_close_container(m);
}

/* (ia{sv}av) */
static int append_node(sd_bus_message *m, const ss_tray *t, int32_t id, const tray_item *item, int with_children) {
    int r = sd_bus_message_open_container(m, 'r', "ia{sv}av");
    if (r < 0) return r;
    if ((r = sd_bus_message_append(m, "i", id)) < 0) return r;
    if ((r = append_props(m, item)) < 0) return r;
    if ((r = sd_bus_message_open_container(m, 'a', "v")) < 0) return r;
    if (with_children && !item) {
        for (size_t i = 0; i < t->n_items; i++) {
            if ((r = sd_bus_message_open_container(m, 'v', "(ia{sv}av)")) < 0) return r;
            if ((r = append_node(m, t, t->items[i].id, &t->items[i], 0)) < 0) return r;
            if ((r = sd_bus_message_close_container(m)) < 0) return r;
        }
    }
    if ((r = sd_bus_message_close_container(m)) < 0) return r;
    return sd_bus_message_close_container(m);
}

static int menu_get_layout(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
    ss_tray *t = userdata;
    int32_t parent = 0, depth = -1;
    int r = sd_bus_message_read(m, "ii", &parent, &depth);
    if (r < 0) return r;
    const tray_item *item = parent == 0 ? NULL : find_item(t, parent);
    if (parent != 0 && !item) return sd_bus_error_setf(ret_error, SD_BUS_ERROR_INVALID_ARGS, "no menu item %d", parent);
    /* Every property is sent whatever propertyNames asks (the spec allows more than asked). */
    sd_bus_message *reply = NULL;
    if ((r = sd_bus_message_new_method_return(m, &reply)) < 0) return r;
    if ((r = sd_bus_message_append(reply, "u", t->revision)) >= 0) r = append_node(reply, t, parent, item, depth != 0);
    if (r >= 0) r = sd_bus_send(NULL, reply, NULL);
    sd_bus_message_unref(reply);
    return r;
}

static int append_group_entry(sd_bus_message *reply, int32_t id, const tray_item *item) {
    int r = sd_bus_message_open_container(reply, 'r', "ia{sv}");
    if (r < 0) return r;
    if ((r = sd_bus_message_append(reply, "i", id)) < 0) return r;
    if ((r = append_props(reply, item)) < 0) return r;
    return sd_bus_message_close_container(reply);
}

static int menu_get_group(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
    (void)ret_error;
    ss_tray *t = userdata;
    const void *ids = NULL;
    size_t size = 0;
    int r = sd_bus_message_read_array(m, 'i', &ids, &size);
    if (r < 0) return r;
    sd_bus_message *reply = NULL;
    if ((r = sd_bus_message_new_method_return(m, &reply)) < 0) return r;
    r = sd_bus_message_open_container(reply, 'a', "(ia{sv})");
    size_t n = size / sizeof(int32_t);
    /* No ids: every item (libdbusmenu does the same). */
    if (n == 0) {
        for (size_t i = 0; r >= 0 && i < t->n_items; i++) r = append_group_entry(reply, t->items[i].id, &t->items[i]);
    }
    for (size_t i = 0; r >= 0 && i < n; i++) {
        int32_t id;
        memcpy(&id, (const char *)ids + i * sizeof id, sizeof id);
        const tray_item *item = find_item(t, id);
        if (id == 0 || item) r = append_group_entry(reply, id, item);
    }
    if (r >= 0) r = sd_bus_message_close_container(reply);
    if (r >= 0) r = sd_bus_send(NULL, reply, NULL);
    sd_bus_message_unref(reply);
    return r;
}

static int menu_get_property(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
    ss_tray *t = userdata;
    int32_t id = 0;
    const char *name = NULL;
    int r = sd_bus_message_read(m, "is", &id, &name);
    if (r < 0) return r;
    const tray_item *item = find_item(t, id);
    if (item && !strcmp(name, "label")) return sd_bus_reply_method_return(m, "v", "s", item->label);
    if (item && !strcmp(name, "enabled")) return sd_bus_reply_method_return(m, "v", "b", item->enabled);
    if (item && !strcmp(name, "visible")) return sd_bus_reply_method_return(m, "v", "b", 1);
    if (id == 0 && !strcmp(name, "children-display")) return sd_bus_reply_method_return(m, "v", "s", "submenu");
    return sd_bus_error_setf(ret_error, SD_BUS_ERROR_INVALID_ARGS, "no property %s on item %d", name, id);
}

static void menu_clicked(ss_tray *t, int32_t id, const char *event) {
    const tray_item *item = find_item(t, id);
    if (item && item->enabled && !strcmp(event, "clicked")) tray_event(t, 3, id, NULL);
}

static int menu_event(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
    (void)ret_error;
    int32_t id = 0;
    const char *event = NULL;
    int r = sd_bus_message_read(m, "is", &id, &event);
    if (r < 0) return r;
    menu_clicked(userdata, id, event);
    return sd_bus_reply_method_return(m, NULL);
}

static int menu_event_group(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
    (void)ret_error;
    int r = sd_bus_message_enter_container(m, 'a', "(isvu)");
    if (r < 0) return r;
    while ((r = sd_bus_message_enter_container(m, 'r', "isvu")) > 0) {
        int32_t id = 0;
        const char *event = NULL;
        if ((r = sd_bus_message_read(m, "is", &id, &event)) < 0) return r;
        if ((r = sd_bus_message_skip(m, "vu")) < 0) return r;
        if ((r = sd_bus_message_exit_container(m)) < 0) return r;
        menu_clicked(userdata, id, event);
    }
    if (r < 0) return r;
    return sd_bus_reply_method_return(m, "ai", 0);
}

/* The menu is always current (set when the facts change): nothing to update before showing. */
static int menu_about_to_show(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
    (void)userdata, (void)ret_error;
    return sd_bus_reply_method_return(m, "b", 0);
}

static int menu_about_to_show_group(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
    (void)userdata, (void)ret_error;
    return sd_bus_reply_method_return(m, "aiai", 0, 0);
}

static int menu_get(sd_bus *bus, const char *path, const char *interface, const char *property,
                    sd_bus_message *reply, void *userdata, sd_bus_error *ret_error) {
    (void)bus, (void)path, (void)interface, (void)userdata, (void)ret_error;
    if (!strcmp(property, "Version")) return sd_bus_message_append(reply, "u", 3);
    if (!strcmp(property, "TextDirection")) return sd_bus_message_append(reply, "s", "ltr");
    if (!strcmp(property, "Status")) return sd_bus_message_append(reply, "s", "normal");
    if (!strcmp(property, "IconThemePath")) return sd_bus_message_append(reply, "as", 0);
    return -ENOENT;
}

static const sd_bus_vtable menu_vtable[] = {
    SD_BUS_VTABLE_START(0),
    SD_BUS_METHOD("GetLayout", "iias", "u(ia{sv}av)", menu_get_layout, 0),
    SD_BUS_METHOD("GetGroupProperties", "aias", "a(ia{sv})", menu_get_group, 0),
    SD_BUS_METHOD("GetProperty", "is", "v", menu_get_property, 0),
    SD_BUS_METHOD("Event", "isvu", "", menu_event, 0),
    SD_BUS_METHOD("EventGroup", "a(isvu)", "ai", menu_event_group, 0),
    SD_BUS_METHOD("AboutToShow", "i", "b", menu_about_to_show, 0),
    SD_BUS_METHOD("AboutToShowGroup", "ai", "aiai", menu_about_to_show_group, 0),
    SD_BUS_PROPERTY("Version", "u", menu_get, 0, 0),
    SD_BUS_PROPERTY("TextDirection", "s", menu_get, 0, 0),
    SD_BUS_PROPERTY("Status", "s", menu_get, 0, 0),
    SD_BUS_PROPERTY("IconThemePath", "as", menu_get, 0, 0),
    SD_BUS_SIGNAL("ItemsPropertiesUpdated", "a(ia{sv})a(ias)", 0),
    SD_BUS_SIGNAL("LayoutUpdated", "ui", 0),
    SD_BUS_SIGNAL("ItemActivationRequested", "iu", 0),
    SD_BUS_VTABLE_END,
};

/* ---- the watcher ---- */

static int on_watcher_owner(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
    (void)ret_error;
    const char *name = NULL, *old_owner = NULL, *new_owner = NULL;
    if (sd_bus_message_read(m, "sss", &name, &old_owner, &new_owner) < 0) return 0;
    if (name && !strcmp(name, WATCHER_NAME) && new_owner && new_owner[0]) tray_event(userdata, 4, 0, NULL);
    return 0;
}

static int on_registered(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
    (void)ret_error;
    if (!sd_bus_message_is_method_error(m, NULL)) {
        tray_event(userdata, 5, 0, NULL);
        return 0;
    }
    const sd_bus_error *e = sd_bus_message_get_error(m);
    if (sd_bus_error_has_name(e, SD_BUS_ERROR_SERVICE_UNKNOWN) || sd_bus_error_has_name(e, SD_BUS_ERROR_NAME_HAS_NO_OWNER)) {
        tray_event(userdata, 7, 0, NULL);
        return 0;
    }
    char message[256];
    snprintf(message, sizeof message, "%s (%s)", e && e->message ? e->message : "", e && e->name ? e->name : "");
    tray_event(userdata, 6, 0, message);
    return 0;
}

int ss_tray_open(const char *address, const char *id, ss_tray **out, char *err, size_t errlen) {
    *out = NULL;
    ss_tray *t = calloc(1, sizeof *t);
    if (!t) return -ENOMEM;
    t->revision = 1;
    t->id = strdup(id ? id : "");
    int r;
    if (address) {
        r = sd_bus_new(&t->bus);
        if (r >= 0) r = sd_bus_set_address(t->bus, address);
        if (r >= 0) r = sd_bus_set_bus_client(t->bus, 1);
        if (r >= 0) r = sd_bus_start(t->bus);
    } else {
        r = sd_bus_open_user(&t->bus);
    }
    if (r < 0) {
        tray_err(err, errlen, "cannot connect to the session bus", r);
        ss_tray_close(t);
        return r;
    }
    if ((r = sd_bus_add_object_vtable(t->bus, &t->item_slot, ITEM_PATH, ITEM_IFACE, item_vtable, t)) < 0) {
        tray_err(err, errlen, "cannot export " ITEM_PATH, r);
        ss_tray_close(t);
        return r;
    }
    if ((r = sd_bus_add_object_vtable(t->bus, &t->menu_slot, MENU_PATH, MENU_IFACE, menu_vtable, t)) < 0) {
        tray_err(err, errlen, "cannot export " MENU_PATH, r);
        ss_tray_close(t);
        return r;
    }
    r = sd_bus_add_match(t->bus, &t->owner_slot,
                         "type='signal',sender='org.freedesktop.DBus',path='/org/freedesktop/DBus',"
                         "interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='" WATCHER_NAME "'",
                         on_watcher_owner, t);
    if (r < 0) {
        tray_err(err, errlen, "cannot subscribe to NameOwnerChanged", r);
        ss_tray_close(t);
        return r;
    }
    *out = t;
    return 0;
}

void ss_tray_close(ss_tray *t) {
    if (!t) return;
    sd_bus_slot_unref(t->item_slot);
    sd_bus_slot_unref(t->menu_slot);
    sd_bus_slot_unref(t->owner_slot);
    if (t->bus) sd_bus_flush_close_unref(t->bus);
    free(t->id), free(t->title), free(t->status), free(t->icon_name), free(t->tt_title), free(t->tt_body);
    free(t->pixmap);
    for (size_t i = 0; i < t->n_items; i++) free(t->items[i].label);
    free(t);
}

int ss_tray_fd(ss_tray *t) { return sd_bus_get_fd(t->bus); }

int ss_tray_process(ss_tray *t, char *err, size_t errlen) {
    int r;
    while ((r = sd_bus_process(t->bus, NULL)) > 0) {}
    if (r < 0) {
        tray_err(err, errlen, "session bus", r);
        return r;
    }
    return (int)t->count;
}

int ss_tray_wait(ss_tray *t, uint64_t timeout_usec, char *err, size_t errlen) {
    int r = ss_tray_process(t, err, errlen);
    if (r != 0) return r;
    r = sd_bus_wait(t->bus, timeout_usec);
    if (r < 0) {
        tray_err(err, errlen, "session bus", r);
        return r;
    }
    return ss_tray_process(t, err, errlen);
}

int ss_tray_next_event(ss_tray *t, ss_tray_event *out) {
    if (t->count == 0) return 0;
    *out = t->queue[t->head];
    t->head = (t->head + 1) % TRAY_QUEUE;
    t->count--;
    return 1;
}

const char *ss_tray_unique_name(ss_tray *t) {
    const char *name = NULL;
    if (sd_bus_get_unique_name(t->bus, &name) < 0 || !name) return "";
    return name;
}

int ss_tray_register(ss_tray *t, char *err, size_t errlen) {
    int r = sd_bus_call_method_async(t->bus, NULL, WATCHER_NAME, WATCHER_PATH, WATCHER_NAME, "RegisterStatusNotifierItem",
                                     on_registered, t, "s", ss_tray_unique_name(t));
    if (r < 0) tray_err(err, errlen, "RegisterStatusNotifierItem", r);
    return r < 0 ? r : 0;
}

/* Replaces *slot by a copy of v; 1 when it changed. */
static int replace(char **slot, const char *v) {
    const char *now = v ? v : "";
    if (*slot && !strcmp(*slot, now)) return 0;
    char *copy = strdup(now);
    if (!copy) return -ENOMEM;
    free(*slot);
    *slot = copy;
    return 1;
}

int ss_tray_set(ss_tray *t, const char *title, const char *status, const char *icon_name, const char *tooltip_title,
                const char *tooltip_body, const int32_t *dims, size_t n_pixmaps, const uint8_t *pixmap, size_t pixmap_len,
                char *err, size_t errlen) {
    /* The sizes must account for the pixels exactly: nothing is read past them. */
    if (n_pixmaps > MAX_PIXMAPS) n_pixmaps = MAX_PIXMAPS;
    size_t need = 0;
    for (size_t i = 0; i < n_pixmaps; i++) {
        if (dims[2 * i] <= 0 || dims[2 * i + 1] <= 0 || dims[2 * i] > 1024 || dims[2 * i + 1] > 1024) {
            tray_err(err, errlen, "a pixmap's size is not from 1 to 1024 pixels a side", EINVAL);
            return -EINVAL;
        }
        need += (size_t)dims[2 * i] * (size_t)dims[2 * i + 1] * 4;
    }
    if (need != pixmap_len) {
        tray_err(err, errlen, "the pixmaps' sizes do not match their pixels", EINVAL);
        return -EINVAL;
    }
    int title_changed = replace(&t->title, title);
    int status_changed = replace(&t->status, status);
    int icon_changed = replace(&t->icon_name, icon_name);
    int tip_changed = replace(&t->tt_title, tooltip_title);
    int body_changed = replace(&t->tt_body, tooltip_body);
    if (title_changed < 0 || status_changed < 0 || icon_changed < 0 || tip_changed < 0 || body_changed < 0) return -ENOMEM;
    int pix_changed = n_pixmaps != t->n_pixmaps || (n_pixmaps && memcmp(dims, t->dims, 2 * n_pixmaps * sizeof *dims) != 0) ||
                      pixmap_len != t->pixmap_len || (pixmap_len && memcmp(pixmap, t->pixmap, pixmap_len) != 0);
    if (pix_changed) {
        uint8_t *copy = pixmap_len ? malloc(pixmap_len) : NULL;
        if (pixmap_len && !copy) return -ENOMEM;
        if (copy) memcpy(copy, pixmap, pixmap_len);
        free(t->pixmap);
        t->pixmap = copy;
        t->pixmap_len = pixmap_len;
        if (n_pixmaps) memcpy(t->dims, dims, 2 * n_pixmaps * sizeof *dims);
        t->n_pixmaps = n_pixmaps;
    }
    int r = 0;
    if (title_changed && r >= 0) r = sd_bus_emit_signal(t->bus, ITEM_PATH, ITEM_IFACE, "NewTitle", NULL);
    if (status_changed && r >= 0) r = sd_bus_emit_signal(t->bus, ITEM_PATH, ITEM_IFACE, "NewStatus", "s", t->status);
    if ((icon_changed || pix_changed) && r >= 0) r = sd_bus_emit_signal(t->bus, ITEM_PATH, ITEM_IFACE, "NewIcon", NULL);
    if ((icon_changed || pix_changed) && r >= 0) r = sd_bus_emit_signal(t->bus, ITEM_PATH, ITEM_IFACE, "NewAttentionIcon", NULL);
    if ((tip_changed || body_changed || icon_changed || pix_changed) && r >= 0)
        r = sd_bus_emit_signal(t->bus, ITEM_PATH, ITEM_IFACE, "NewToolTip", NULL);
    if (r < 0) tray_err(err, errlen, "cannot emit a signal", r);
    return r < 0 ? r : 0;
}

int ss_tray_set_menu(ss_tray *t, const ss_tray_item *items, size_t n, char *err, size_t errlen) {
    if (n > MAX_ITEMS) n = MAX_ITEMS;
    int changed = n != t->n_items;
    for (size_t i = 0; !changed && i < n; i++)
        changed = items[i].id != t->items[i].id || strcmp(items[i].label ? items[i].label : "", t->items[i].label) != 0 ||
                  !items[i].enabled != !t->items[i].enabled;
    if (!changed) return 0;
    for (size_t i = 0; i < t->n_items; i++) free(t->items[i].label);
    t->n_items = 0;
    for (size_t i = 0; i < n; i++) {
        char *label = strdup(items[i].label ? items[i].label : "");
        if (!label) return -ENOMEM;
        t->items[i] = (tray_item){.id = items[i].id, .label = label, .enabled = items[i].enabled != 0};
        t->n_items = i + 1;
    }
    t->revision++;
    int r = sd_bus_emit_signal(t->bus, MENU_PATH, MENU_IFACE, "LayoutUpdated", "ui", t->revision, 0);
    if (r < 0) tray_err(err, errlen, "cannot emit LayoutUpdated", r);
    return r < 0 ? r : 0;
}
