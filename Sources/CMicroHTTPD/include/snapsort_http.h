#ifndef SNAPSORT_HTTP_H
#define SNAPSORT_HTTP_H
#include <stddef.h>
#include <stdint.h>

// A plain C face over GNU libmicrohttpd: MHD_start_daemon is variadic and the access handler
// is called several times per request, so both stay here. Swift sees one callback per
// complete request and answers it with ss_http_respond / ss_http_respond_fd.

#define SS_HTTP_MSG 200

/// One complete request. Strings are valid only during the callback.
typedef struct ss_http_request {
    const char *method;
    /// The path as sent, percent-decoded by libmicrohttpd, without the query string.
    const char *url;
    /// Every request header as "Name: value\n" lines.
    const char *headers;
    /// Every query argument as "name=value\n" lines (already percent-decoded; '\n' in a
    /// value is replaced by ' ').
    const char *arguments;
    const unsigned char *body;
    size_t body_len;
    /// Set when the body went over the limit (the handler should answer 413).
    int body_too_large;
    /// Opaque: the connection to answer on.
    void *connection;
    int answered;
    /// Set on the call made when the headers have arrived (no body yet): answer to refuse the
    /// request before its body is read; leave it unanswered to read the body and be called
    /// again with it.
    int headers_only;
    /// Set by the handler on the headers' call: the request showed the key, and its connection
    /// is no longer cut for being slow (see ss_http_limits).
    int trusted;
} ss_http_request;

/// How many connections a daemon takes, and how long one that has not shown the key may stay.
typedef struct ss_http_limits {
    /// Open connections: a new one beyond this many cuts the oldest untrusted one (libmicrohttpd
    /// itself takes 64 more, for connections cut but not yet closed, then resets new ones).
    unsigned int connections;
    /// Untrusted connections kept when more are open: the oldest ones beyond this many are cut
    /// once older than `grace_seconds`.
    unsigned int untrusted;
    /// An untrusted connection is cut this long after it was accepted, sending or not.
    double header_seconds;
    double grace_seconds;
} ss_http_limits;

typedef void (*ss_http_handler)(void *context, ss_http_request *request);

typedef struct ss_http_daemon ss_http_daemon;

/// Starts a daemon bound to `address` ("127.0.0.1" or "::1") on `port` (0 = any free port),
/// with its own polling thread and a thread per connection. `max_body` caps request bodies.
/// Returns NULL with a message when binding fails.
ss_http_daemon *ss_http_start(const char *address, int port, size_t max_body, ss_http_limits limits,
                              ss_http_handler handler, void *context, char message[SS_HTTP_MSG]);

/// The port the daemon is bound to.
int ss_http_port(ss_http_daemon *daemon);

/// Stops the daemon: waits for its threads; no callback runs afterwards.
void ss_http_stop(ss_http_daemon *daemon);

/// Answers with a body copied from `body`. `headers` holds "Name: value\n" lines.
int ss_http_respond(ss_http_request *request, int status, const char *headers, const unsigned char *body,
                    size_t len);

/// Answers with `length` bytes of the open file `fd` from `offset`; libmicrohttpd takes the
/// descriptor and closes it (also on failure).
int ss_http_respond_fd(ss_http_request *request, int status, const char *headers, int fd, uint64_t offset,
                       uint64_t length);

#endif
