#ifndef SNAPSORT_LAZYLIB_H
#define SNAPSORT_LAZYLIB_H
#include <stddef.h>

// Optional C libraries (Tesseract, zbar, libheif, libmicrohttpd, FFmpeg) are opened on first use
// instead of linked: together with what they pull in they were most of the libraries every
// snapsort process loaded, and most runs never need them. A shim lists the functions it calls once, as an X-macro
// `LIST(X)`, and declares its table with
//     static struct { LIST(SS_LAZY_FIELD) } table;
//     static const char *const names[] = { LIST(SS_LAZY_NAME) };
// Each field keeps the type of the library's own declaration, so a call through the table is
// checked as a direct call is.
#define SS_LAZY_FIELD(name) __typeof__(&name) name;
#define SS_LAZY_NAME(name) #name,

/// Opens the first of `sonames` that loads (RTLD_LAZY | RTLD_LOCAL: the library's own calls
/// bind on first use) and stores the address of each of `names` in `slots`, in order (the
/// table above, seen as `count` pointers). Returns the handle, or NULL with a message in
/// `error` (a missing library or a missing function). A handle's lookup also searches the
/// libraries it loaded, so the caller may look up more through it (`dlsym`).
void *ss_lazy_open(const char *const *sonames, size_t soname_count, const char *const *names, size_t count,
                   void **slots, char *error, size_t error_len);

#endif
