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
#include <unistd.h>

// libmicrohttpd is opened when the page is served (see snapsort_lazylib.h): with GnuTLS and the
// eight libraries under it, it cost every snapsort process — every status bar's `snapsort
// status` — ~3 ms of symbol binding at start, and only `serve` and the agent serve.
#define MHD_FUNCTIONS(X) \
    X(MHD_add_response_header) \
    X(MHD_create_response_from_buffer) \
    X(MHD_create_response_from_fd_at_offset64) \
    X(MHD_destroy_response) \
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

struct ss_http_daemon {
    struct MHD_Daemon *mhd;
    ss_http_handler handler;
    void *context;
    size_t max_body;
};

// Per-request state kept between the access handler's calls.
typedef struct {
    unsigned char *body;
    size_t len;
    size_t cap;
    int too_large;
} ss_upload;

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

static enum MHD_Result collect_header(void *cls, enum MHD_ValueKind kind, const char *key, const char *value) {
    (void)kind;
    ss_buffer *b = cls;
    buffer_add_line_safe(b, key);
    buffer_add(b, ": ");
    buffer_add_line_safe(b, value ? value : "");
    buffer_add(b, "\n");
    return MHD_YES;
}

static enum MHD_Result collect_argument(void *cls, enum MHD_ValueKind kind, const char *key, const char *value) {
    (void)kind;
    ss_buffer *b = cls;
    buffer_add_line_safe(b, key);
    buffer_add(b, "=");
    buffer_add_line_safe(b, value ? value : "");
    buffer_add(b, "\n");
    return MHD_YES;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *connection, const char *url, const char *method,
                                  const char *version, const char *upload_data, size_t *upload_data_size,
                                  void **con_cls) {
    (void)version;
    ss_http_daemon *d = cls;
    ss_upload *up = *con_cls;
    if (!up) {
        // First call: only the headers have arrived.
        up = calloc(1, sizeof *up);
        if (!up) return MHD_NO;
        *con_cls = up;
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
        .body = up->body,
        .body_len = up->len,
        .body_too_large = up->too_large,
        .connection = connection,
        .answered = 0,
    };
    d->handler(d->context, &request);
    free(headers.text);
    free(arguments.text);
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

ss_http_daemon *ss_http_start(const char *address, int port, size_t max_body, ss_http_handler handler,
                              void *context, char message[SS_HTTP_MSG]) {
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
    d->mhd = mhd.MHD_start_daemon(flags, (uint16_t)port, NULL, NULL, on_request, d,
                              MHD_OPTION_SOCK_ADDR, addr,
                              MHD_OPTION_NOTIFY_COMPLETED, on_completed, d,
                              MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)60,
                              MHD_OPTION_CONNECTION_LIMIT, (unsigned int)64,
                              MHD_OPTION_END);
    if (!d->mhd) {
        snprintf(message, SS_HTTP_MSG, "cannot listen on %s port %d", address, port);
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
