#include "snapsort_lazylib.h"
#include <dlfcn.h>
#include <stdio.h>

void *ss_lazy_open(const char *const *sonames, size_t soname_count, const char *const *names, size_t count,
                   void **slots, char *error, size_t error_len) {
    void *h = NULL;
    for (size_t i = 0; !h && i < soname_count; i++) h = dlopen(sonames[i], RTLD_LAZY | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        snprintf(error, error_len, "%s is not installed (%s)", sonames[0], e ? e : "not found");
        return NULL;
    }
    for (size_t i = 0; i < count; i++) {
        // POSIX dlsym: a function's address comes back as a void *.
        if (!(slots[i] = dlsym(h, names[i]))) {
            snprintf(error, error_len, "%s lacks %s", sonames[0], names[i]);
            return NULL;
        }
    }
    return h;
}
