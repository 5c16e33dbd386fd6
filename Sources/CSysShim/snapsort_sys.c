#define _GNU_SOURCE
#include "snapsort_sys.h"
#include <fcntl.h>
#include <malloc.h>
#include <signal.h>
#include <spawn.h>
#include <errno.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <unistd.h>

extern char **environ;

int ss_spawn_detached(const char *path, char *const argv[], pid_t *pid) {
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attributes;
    sigset_t none, all;
    int rc = posix_spawn_file_actions_init(&actions);
    if (rc) return rc;
    rc = posix_spawnattr_init(&attributes);
    if (rc) { posix_spawn_file_actions_destroy(&actions); return rc; }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addclosefrom_np(&actions, 3);
    sigemptyset(&none);
    sigfillset(&all);
    posix_spawnattr_setsigmask(&attributes, &none);
    posix_spawnattr_setsigdefault(&attributes, &all);
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSID);
    rc = posix_spawn(pid, path, &actions, &attributes, argv, environ);
    posix_spawnattr_destroy(&attributes);
    posix_spawn_file_actions_destroy(&actions);
    return rc;
}

int ss_ioprio_set_self(int io_class, int level) {
    // IOPRIO_PRIO_VALUE(class, data) = (class << 13) | data; IOPRIO_WHO_PROCESS = 1.
    return (int)syscall(SYS_ioprio_set, 1, 0, (io_class << 13) | level);
}

int ss_gettid(void) { return (int)syscall(SYS_gettid); }

int ss_malloc_keep_blocks(int mmap_threshold, int trim_threshold) {
    return mallopt(M_MMAP_THRESHOLD, mmap_threshold) == 1 && mallopt(M_TRIM_THRESHOLD, trim_threshold) == 1;
}

int ss_malloc_release(void) { return malloc_trim(0); }

unsigned long long ss_malloc_in_use(void) {
    struct mallinfo2 m = mallinfo2();
    return (unsigned long long)m.uordblks + (unsigned long long)m.hblkhd;
}

int ss_statx_identity(int dirfd, const char *path, int empty_path, uint64_t *device, uint64_t *inode, int64_t *birth_ns) {
    struct statx sx;
    int flags = AT_SYMLINK_NOFOLLOW | AT_STATX_SYNC_AS_STAT | (empty_path ? AT_EMPTY_PATH : 0);
    if (statx(dirfd, path, flags, STATX_INO | STATX_BTIME, &sx) != 0) return errno;
    *device = (uint64_t)makedev(sx.stx_dev_major, sx.stx_dev_minor);
    *inode = sx.stx_ino;
    *birth_ns = (sx.stx_mask & STATX_BTIME) ? (int64_t)sx.stx_btime.tv_sec * 1000000000 + sx.stx_btime.tv_nsec : -1;
    return 0;
}
