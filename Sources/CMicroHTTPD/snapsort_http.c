// See: https://www.gnu.org/software/libmicrohttpd/manual/libmicrohttpd.html
#include "snapsort_http.h"
#include "snapsort_lazylib.h"
#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

// libmicrohttpd is opened when the page is served (see snapsort_lazylib.h): with GnuTLS and the
// eight libraries under it, it cost every snapsort process — every status bar's `snapsort
// status` — ~3 ms of symbol binding at start, and only `serve` and the agent serve.
#define MHD_FUNCTIONS(X) \
    X(MHD_add_response_header) \
    X(MHD_create_response_from_buffer) \
    X(MHD_create_response_from_fd_at_offset64) \
    X(MHD_destroy_response) \
    X(MHD_get_connection_info) \
    X(MHD_get_connection_values) \
    X(MHD_get_daemon_info) \
    X(MHD_queue_response) \
    X(MHD_start_daemon) \
    X(MHD_stop_daemon)
static struct { MHD_FUNCTIONS(SS_LAZY_FIELD) } mhd;
static const char *const mhd_functions[] = {MHD_FUNCTIONS(SS_LAZY_NAME)};
_Static_assert(sizeof mhd == sizeof mhd_functions, "one pointer per function");
static pthread_once_t mhd_once = PTHREAD_ONCE_INIT;
static int mhd_loaded = 0;
static char mhd_error[200];

static void load_mhd(void) {
    static const char *const sonames[] = {"libmicrohttpd.so.12"};
    mhd_loaded = ss_lazy_open(sonames, 1, mhd_functions, sizeof mhd_functions / sizeof *mhd_functions, (void **)&mhd,
                              mhd_error, sizeof mhd_error) != NULL;
}

// One open connection, from MHD's STARTED notification to its CLOSED one. A connection is
// untrusted until one of its requests shows the key (the handler's screen says so); untrusted
// ones are the ones a local user can open by the hundred and hold with a byte now and then.
typedef struct ss_conn {
    struct ss_conn *prev, *next;
    int fd;
    double started;
    int trusted;
    // Shut down by the reaper: its thread ends it; CLOSED frees it.
    int cut;
} ss_conn;

struct ss_http_daemon {
    struct MHD_Daemon *mhd;
    ss_http_handler handler;
    void *context;
    size_t max_body;
    ss_http_limits limits;
    // The open connections, oldest first, and the reaper that cuts the untrusted ones that
    // overstay (see reap). `lock` also keeps a descriptor from being closed (and its number
    // reused) between the reaper finding it and shutting it down: MHD notifies CLOSED, which
    // takes the lock, before it closes the socket.
    pthread_mutex_t lock;
    pthread_cond_t wake;
    pthread_t reaper;
    int reaper_started;
    int stopping;
    ss_conn *head, *tail;
};

// Per-request state kept between the access handler's calls.
typedef struct {
    unsigned char *body;
    size_t len;
    size_t cap;
    int too_large;
    // Answered when the headers arrived (refused before its body was read).
    int answered;
} ss_upload;

// Connections libmicrohttpd takes beyond `limits.connections` (see ss_http_start).
#define SS_HTTP_CUT_MARGIN 64u

static double monotonic_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

// The open connections not cut yet (`untrusted_only`: the untrusted ones). Called with the lock.
static unsigned int count_open(const ss_http_daemon *d, int untrusted_only) {
    unsigned int open = 0;
    for (const ss_conn *c = d->head; c; c = c->next)
        if (!c->cut && !(untrusted_only && c->trusted)) open++;
    return open;
}

// Cuts `c` (shutdown(2): the connection's thread sees the end of its stream and closes it).
// Called with the lock.
static void cut(ss_conn *c) {
    shutdown(c->fd, SHUT_RDWR);
    c->cut = 1;
}

// Cuts every untrusted connection older than `header_seconds`, and, while more than `untrusted` untrusted
// ones are open, the oldest of those older than `grace_seconds` (a burst of real requests is
// untrusted for the milliseconds their headers take: it is never cut). Returns the seconds
// until the next connection could be due, or -1 when none is untrusted. Called with the lock.
// libmicrohttpd has no deadline for a request's headers: its timeout is an idle timeout that
// every byte resets, so a socket sending a byte every few seconds held a slot for ever.
static double reap_locked(ss_http_daemon *d, double now) {
    unsigned int open = count_open(d, 1);
    double next = -1;
    for (ss_conn *c = d->head; c; c = c->next) {
        if (c->trusted || c->cut) continue;
        double age = now - c->started;
        if (age >= d->limits.header_seconds || (open > d->limits.untrusted && age >= d->limits.grace_seconds)) {
            cut(c);
            open--;
            continue;
        }
        double due = (open > d->limits.untrusted ? d->limits.grace_seconds : d->limits.header_seconds) - age;
        if (next < 0 || due < next) next = due;
    }
    return next;
}

static void *reaper_main(void *arg) {
    ss_http_daemon *d = arg;
    pthread_mutex_lock(&d->lock);
    while (!d->stopping) {
        double next = reap_locked(d, monotonic_now());
        if (next < 0) {
            pthread_cond_wait(&d->wake, &d->lock);
            continue;
        }
        struct timespec until;
        clock_gettime(CLOCK_MONOTONIC, &until);
        double t = (double)until.tv_sec + (double)until.tv_nsec / 1e9 + next + 0.01;
        until.tv_sec = (time_t)t;
        until.tv_nsec = (long)((t - (double)until.tv_sec) * 1e9);
        pthread_cond_timedwait(&d->wake, &d->lock, &until);
    }
    pthread_mutex_unlock(&d->lock);
    return NULL;
}

static void on_connection(void *cls, struct MHD_Connection *connection, void **socket_context,
                          enum MHD_ConnectionNotificationCode code) {
    ss_http_daemon *d = cls;
    if (code == MHD_CONNECTION_NOTIFY_STARTED) {
        const union MHD_ConnectionInfo *info = mhd.MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
        ss_conn *c = calloc(1, sizeof *c);
        if (!c || !info) {
            free(c);
            return;
        }
        c->fd = info->connect_fd;
        c->started = monotonic_now();
        pthread_mutex_lock(&d->lock);
        c->prev = d->tail;
        if (d->tail) d->tail->next = c;
        else d->head = c;
        d->tail = c;
        *socket_context = c;
        // Over the limit: the oldest untrusted connections make room at once (libmicrohttpd's
        // own limit, above ours, resets a new connection when reached: it is a request of the
        // page's as likely as not).
        unsigned int open = count_open(d, 0);
        for (ss_conn *o = d->head; o && o != c && open > d->limits.connections; o = o->next) {
            if (o->trusted || o->cut) continue;
            cut(o);
            open--;
        }
        pthread_cond_signal(&d->wake);
        pthread_mutex_unlock(&d->lock);
        return;
    }
    ss_conn *c = *socket_context;
    if (!c) return;
    pthread_mutex_lock(&d->lock);
    if (c->prev) c->prev->next = c->next;
    else d->head = c->next;
    if (c->next) c->next->prev = c->prev;
    else d->tail = c->prev;
    pthread_mutex_unlock(&d->lock);
    *socket_context = NULL;
    free(c);
}

// Marks the connection as one that showed the key: the reaper leaves it alone.
static void trust_connection(ss_http_daemon *d, struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = mhd.MHD_get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    if (!info || !info->socket_context) return;
    ss_conn *c = info->socket_context;
    pthread_mutex_lock(&d->lock);
    c->trusted = 1;
    pthread_mutex_unlock(&d->lock);
}

typedef struct {
    char *text;
    size_t len;
    size_t cap;
} ss_buffer;

static void buffer_add(ss_buffer *b, const char *s) {
    size_t n = strlen(s);
    if (b->len + n + 1 > b->cap) {
        size_t cap = (b->cap ? b->cap * 2 : 256);
        while (cap < b->len + n + 1) cap *= 2;
        char *t = realloc(b->text, cap);
        if (!t) return;
        b->text = t;
        b->cap = cap;
    }
    memcpy(b->text + b->len, s, n);
    b->len += n;
    b->text[b->len] = 0;
}

// Appends a value with any line break replaced, so one line stays one entry.
static void buffer_add_line_safe(ss_buffer *b, const char *s) {
    size_t start = b->len;
    buffer_add(b, s);
    for (size_t i = start; i < b->len; i++)
        if (b->text[i] == '\n' || b->text[i] == '\r') b->text[i] = ' ';
}

// Appends one "KEY<separator>VALUE\n" line.
static void buffer_add_entry(ss_buffer *b, const char *key, const char *separator, const char *value) {
    buffer_add_line_safe(b, key);
    buffer_add(b, separator);
    buffer_add_line_safe(b, value ? value : "");
    buffer_add(b, "\n");
}

static enum MHD_Result collect_header(void *cls, enum MHD_ValueKind kind, const char *key, const char *value) {
    (void)kind;
    buffer_add_entry(cls, key, ": ", value);
    return MHD_YES;
}

static enum MHD_Result collect_argument(void *cls, enum MHD_ValueKind kind, const char *key, const char *value) {
    (void)kind;
    buffer_add_entry(cls, key, "=", value);
    return MHD_YES;
}

// Collects the request's headers and arguments and hands it to the handler; returns what the
// handler set (answered, trusted; its strings are freed). `up`: the body read, NULL for the
// call made when the headers have arrived.
static ss_http_request handle(ss_http_daemon *d, struct MHD_Connection *connection, const char *method, const char *url,
                              const ss_upload *up) {
    ss_buffer headers = {0}, arguments = {0};
    buffer_add(&headers, "");
    buffer_add(&arguments, "");
    mhd.MHD_get_connection_values(connection, MHD_HEADER_KIND, collect_header, &headers);
    mhd.MHD_get_connection_values(connection, MHD_GET_ARGUMENT_KIND, collect_argument, &arguments);
    ss_http_request request = {
        .method = method,
        .url = url,
        .headers = headers.text ? headers.text : "",
        .arguments = arguments.text ? arguments.text : "",
        .body = up ? up->body : NULL,
        .body_len = up ? up->len : 0,
        .body_too_large = up ? up->too_large : 0,
        .connection = connection,
        .headers_only = up == NULL,
    };
    d->handler(d->context, &request);
    free(headers.text);
    free(arguments.text);
    request.headers = request.arguments = NULL;
    return request;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *connection, const char *url, const char *method,
                                  const char *version, const char *upload_data, size_t *upload_data_size,
                                  void **con_cls) {
    (void)version;
    ss_http_daemon *d = cls;
    ss_upload *up = *con_cls;
    if (!up) {
        // First call: only the headers have arrived. The handler screens them (Host, the key,
        // the announced length) and may answer at once: queued now, libmicrohttpd sends it and
        // closes without reading the body (a 1 GiB upload without the key held a slot while it
        // was read to the end before its 401).
        up = calloc(1, sizeof *up);
        if (!up) return MHD_NO;
        *con_cls = up;
        ss_http_request request = handle(d, connection, method, url, NULL);
        if (request.trusted) trust_connection(d, connection);
        up->answered = request.answered;
        return MHD_YES;
    }
    if (up->answered) {
        *upload_data_size = 0;
        return MHD_YES;
    }
    if (*upload_data_size > 0) {
        size_t n = *upload_data_size;
        if (!up->too_large) {
            if (up->len + n > d->max_body) {
                up->too_large = 1;
            } else {
                if (up->len + n > up->cap) {
                    size_t cap = up->cap ? up->cap * 2 : 4096;
                    while (cap < up->len + n) cap *= 2;
                    unsigned char *t = realloc(up->body, cap);
                    if (!t) return MHD_NO;
                    up->body = t;
                    up->cap = cap;
                }
                memcpy(up->body + up->len, upload_data, n);
                up->len += n;
            }
        }
        *upload_data_size = 0;
        return MHD_YES;
    }
    ss_http_request request = handle(d, connection, method, url, up);
    if (!request.answered) {
        static const char text[] = "{\"error\":{\"message\":\"internal error\"}}";
        struct MHD_Response *r = mhd.MHD_create_response_from_buffer(sizeof text - 1, (void *)text, MHD_RESPMEM_PERSISTENT);
        enum MHD_Result rc = mhd.MHD_queue_response(connection, 500, r);
        mhd.MHD_destroy_response(r);
        return rc;
    }
    return MHD_YES;
}

static void on_completed(void *cls, struct MHD_Connection *connection, void **con_cls,
                         enum MHD_RequestTerminationCode toe) {
    (void)cls;
    (void)connection;
    (void)toe;
    ss_upload *up = *con_cls;
    if (up) {
        free(up->body);
        free(up);
        *con_cls = NULL;
    }
}

static void stop_reaper(ss_http_daemon *d) {
    if (!d->reaper_started) return;
    pthread_mutex_lock(&d->lock);
    d->stopping = 1;
    pthread_cond_signal(&d->wake);
    pthread_mutex_unlock(&d->lock);
    pthread_join(d->reaper, NULL);
    d->reaper_started = 0;
    pthread_cond_destroy(&d->wake);
    pthread_mutex_destroy(&d->lock);
}

ss_http_daemon *ss_http_start(const char *address, int port, size_t max_body, ss_http_limits limits,
                              ss_http_handler handler, void *context, char message[SS_HTTP_MSG]) {
    struct sockaddr_in v4;
    struct sockaddr_in6 v6;
    struct sockaddr *addr;
    unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION | MHD_USE_POLL;
    memset(&v4, 0, sizeof v4);
    memset(&v6, 0, sizeof v6);
    if (inet_pton(AF_INET, address, &v4.sin_addr) == 1) {
        v4.sin_family = AF_INET;
        v4.sin_port = htons((uint16_t)port);
        addr = (struct sockaddr *)&v4;
    } else if (inet_pton(AF_INET6, address, &v6.sin6_addr) == 1) {
        v6.sin6_family = AF_INET6;
        v6.sin6_port = htons((uint16_t)port);
        addr = (struct sockaddr *)&v6;
        flags |= MHD_USE_IPv6;
    } else {
        snprintf(message, SS_HTTP_MSG, "not a numeric address: %s", address);
        return NULL;
    }
    pthread_once(&mhd_once, load_mhd);
    if (!mhd_loaded) {
        snprintf(message, SS_HTTP_MSG, "cannot serve the page: %s", mhd_error);
        return NULL;
    }
    ss_http_daemon *d = calloc(1, sizeof *d);
    if (!d) {
        snprintf(message, SS_HTTP_MSG, "out of memory");
        return NULL;
    }
    d->handler = handler;
    d->context = context;
    d->max_body = max_body;
    d->limits = limits;
    pthread_mutex_init(&d->lock, NULL);
    pthread_condattr_t cattr;
    pthread_condattr_init(&cattr);
    pthread_condattr_setclock(&cattr, CLOCK_MONOTONIC);
    pthread_cond_init(&d->wake, &cattr);
    pthread_condattr_destroy(&cattr);
    if (pthread_create(&d->reaper, NULL, reaper_main, d) != 0) {
        snprintf(message, SS_HTTP_MSG, "cannot start the connection reaper");
        pthread_cond_destroy(&d->wake);
        pthread_mutex_destroy(&d->lock);
        free(d);
        return NULL;
    }
    d->reaper_started = 1;
    // libmicrohttpd's limit is above ours by a margin for connections cut but not yet closed:
    // reached, it resets every new connection (at 64, 100 idle sockets starved the page and
    // 200 parallel requests of its own were reset).
    d->mhd = mhd.MHD_start_daemon(flags, (uint16_t)port, NULL, NULL, on_request, d,
                              MHD_OPTION_SOCK_ADDR, addr,
                              MHD_OPTION_NOTIFY_COMPLETED, on_completed, d,
                              MHD_OPTION_NOTIFY_CONNECTION, on_connection, d,
                              MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)60,
                              MHD_OPTION_CONNECTION_LIMIT, limits.connections + SS_HTTP_CUT_MARGIN,
                              MHD_OPTION_END);
    if (!d->mhd) {
        snprintf(message, SS_HTTP_MSG, "cannot listen on %s port %d", address, port);
        stop_reaper(d);
        free(d);
        return NULL;
    }
    return d;
}

int ss_http_port(ss_http_daemon *daemon) {
    const union MHD_DaemonInfo *info = mhd.MHD_get_daemon_info(daemon->mhd, MHD_DAEMON_INFO_BIND_PORT);
    return info ? (int)info->port : 0;
}

void ss_http_stop(ss_http_daemon *daemon) {
    if (!daemon) return;
    mhd.MHD_stop_daemon(daemon->mhd);
    stop_reaper(daemon);
    free(daemon);
}

static void add_headers(struct MHD_Response *r, const char *headers) {
    if (!headers) return;
    const char *p = headers;
    while (*p) {
        const char *end = strchr(p, '\n');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        const char *colon = memchr(p, ':', n);
        if (colon) {
            char name[128], value[2048];
            size_t kn = (size_t)(colon - p);
            const char *v = colon + 1;
            while (v < p + n && *v == ' ') v++;
            size_t vn = (size_t)(p + n - v);
            if (kn < sizeof name && vn < sizeof value) {
                memcpy(name, p, kn);
                name[kn] = 0;
                memcpy(value, v, vn);
                value[vn] = 0;
                mhd.MHD_add_response_header(r, name, value);
            }
        }
        if (!end) break;
        p = end + 1;
    }
}

int ss_http_respond(ss_http_request *request, int status, const char *headers, const unsigned char *body,
                    size_t len) {
    struct MHD_Response *r = mhd.MHD_create_response_from_buffer(len, (void *)(body ? body : (const unsigned char *)""),
                                                             MHD_RESPMEM_MUST_COPY);
    if (!r) return -1;
    add_headers(r, headers);
    enum MHD_Result rc = mhd.MHD_queue_response(request->connection, (unsigned int)status, r);
    mhd.MHD_destroy_response(r);
    request->answered = 1;
    return rc == MHD_YES ? 0 : -1;
}

int ss_http_respond_fd(ss_http_request *request, int status, const char *headers, int fd, uint64_t offset,
                       uint64_t length) {
    struct MHD_Response *r = mhd.MHD_create_response_from_fd_at_offset64(length, fd, offset);
    if (!r) {
        close(fd);
        return -1;
    }
    add_headers(r, headers);
    enum MHD_Result rc = mhd.MHD_queue_response(request->connection, (unsigned int)status, r);
    mhd.MHD_destroy_response(r);
    request->answered = 1;
    return rc == MHD_YES ? 0 : -1;
}
