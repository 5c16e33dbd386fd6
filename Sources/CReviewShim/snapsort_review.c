#define _GNU_SOURCE
#include "snapsort_review.h"
#include <fcntl.h>
#include <langinfo.h>
#include <locale.h>
#include <strings.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE (1 << 0)
#endif

int ss_rename_noreplace(const char *from, const char *to) {
    return (int)syscall(SYS_renameat2, AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE);
}

int ss_terminal_size(int fd, int *cols, int *rows, int *xpixels, int *ypixels) {
    struct winsize ws;
    if (ioctl(fd, TIOCGWINSZ, &ws) != 0) return -1;
    *cols = ws.ws_col;
    *rows = ws.ws_row;
    *xpixels = ws.ws_xpixel;
    *ypixels = ws.ws_ypixel;
    return 0;
}

int ss_locale_is_utf8(const char *name) {
    locale_t loc = newlocale(LC_CTYPE_MASK, name, (locale_t)0);
    if (loc == (locale_t)0) return -1;
    const char *codeset = nl_langinfo_l(CODESET, loc);
    int utf8 = codeset != NULL && (strcasecmp(codeset, "UTF-8") == 0 || strcasecmp(codeset, "UTF8") == 0);
    freelocale(loc);
    return utf8;
}
