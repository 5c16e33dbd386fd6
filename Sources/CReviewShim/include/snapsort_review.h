#ifndef SNAPSORT_REVIEW_H
#define SNAPSORT_REVIEW_H

/// rename(2) that never replaces an existing target: renameat2(..., RENAME_NOREPLACE).
/// The raw syscall(2) is variadic, so it lives here. Returns 0 or -1 with errno
/// (EEXIST when the target exists, EXDEV across mounts, EINVAL when the file system
/// does not support the flag).
int ss_rename_noreplace(const char *from, const char *to);

/// The terminal size of `fd` (TIOCGWINSZ; ioctl(2) is variadic). Returns 0 or -1 with errno.
int ss_terminal_size(int fd, int *cols, int *rows, int *xpixels, int *ypixels);

/// Whether the locale `name` (as in LC_ALL) encodes text as UTF-8: 1 or 0 from
/// nl_langinfo_l(CODESET) of newlocale(LC_CTYPE_MASK, name) (LC_CTYPE_MASK is a macro);
/// -1 when that locale is not installed. Leaves the process locale alone.
int ss_locale_is_utf8(const char *name);
#endif
