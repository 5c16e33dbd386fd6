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

#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>

#if defined(__x86_64__)
#define SS_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define SS_AUDIT_ARCH AUDIT_ARCH_AARCH64
#endif

#define SS_DENY(nr) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 1), BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM)
/// open(2)-style flags that make or change a file.
#define SS_WRITE_FLAGS (O_WRONLY | O_RDWR | O_CREAT | O_TRUNC | O_APPEND | __O_TMPFILE)
/// An open whose flags (argument `arg`) ask to write is refused; a read-only one goes on.
#define SS_DENY_WRITE_OPEN(nr, arg)                                                          \
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 4),                                         \
    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[arg])),            \
    BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, SS_WRITE_FLAGS, 0, 1),                             \
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),                                    \
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)

int ss_sandbox_analysis_thread(void) {
#ifndef SS_AUDIT_ARCH
    return ENOSYS;
#else
    struct sock_filter filter[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SS_AUDIT_ARCH, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        // Network and other processes.
        SS_DENY(SYS_socket), SS_DENY(SYS_socketpair), SS_DENY(SYS_connect), SS_DENY(SYS_bind),
        SS_DENY(SYS_listen), SS_DENY(SYS_accept), SS_DENY(SYS_accept4),
        SS_DENY(SYS_execve), SS_DENY(SYS_execveat), SS_DENY(SYS_ptrace),
        SS_DENY(SYS_process_vm_writev), SS_DENY(SYS_process_vm_readv), SS_DENY(SYS_kill),
        SS_DENY(SYS_pidfd_open),
        // The file system, by name.
        SS_DENY(SYS_unlinkat), SS_DENY(SYS_renameat), SS_DENY(SYS_renameat2), SS_DENY(SYS_mkdirat),
        SS_DENY(SYS_linkat), SS_DENY(SYS_symlinkat), SS_DENY(SYS_fchmodat), SS_DENY(SYS_fchownat),
        SS_DENY(SYS_truncate), SS_DENY(SYS_mknodat), SS_DENY(SYS_openat2),
#ifdef SYS_open
        SS_DENY(SYS_unlink), SS_DENY(SYS_rename), SS_DENY(SYS_mkdir), SS_DENY(SYS_rmdir),
        SS_DENY(SYS_link), SS_DENY(SYS_symlink), SS_DENY(SYS_chmod), SS_DENY(SYS_chown),
        SS_DENY(SYS_lchown), SS_DENY(SYS_creat), SS_DENY(SYS_mknod), SS_DENY(SYS_fork), SS_DENY(SYS_vfork),
        SS_DENY_WRITE_OPEN(SYS_open, 1),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
#endif
        SS_DENY_WRITE_OPEN(SYS_openat, 2),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog program = {.len = (unsigned short)(sizeof filter / sizeof filter[0]), .filter = filter};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return errno;
    if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &program) != 0) return errno;
    return 0;
#endif
}
