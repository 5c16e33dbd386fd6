#ifndef SNAPSORT_SYS_H
#define SNAPSORT_SYS_H

/// ioprio_set(IOPRIO_WHO_PROCESS, 0 = calling thread, class/level); see man 2 ioprio_set.
/// The glibc wrapper does not exist; syscall(2) is variadic, so it lives here.
/// io_class: 1 realtime, 2 best-effort, 3 idle. Returns 0 or -1 with errno.
int ss_ioprio_set_self(int io_class, int level);

/// The calling thread's kernel id (gettid), for setpriority on one thread.
int ss_gettid(void);

/// mallopt(M_MMAP_THRESHOLD, mmap_threshold) and mallopt(M_TRIM_THRESHOLD, trim_threshold)
/// (malloc.h is not part of Swift's Glibc module). Returns 1 when both were accepted.
int ss_malloc_keep_blocks(int mmap_threshold, int trim_threshold);
/// malloc_trim(0): gives the free memory of every arena back to the kernel; 1 if any was.
int ss_malloc_release(void);
/// The bytes the heap has handed out and not had back (mallinfo2: uordblks + hblkhd), of every arena.
unsigned long long ss_malloc_in_use(void);

#include <sys/types.h>
/// posix_spawn of `path` with `argv` (NULL-terminated) in a session of its own (setsid), stdin,
/// stdout and stderr on /dev/null, every other descriptor closed, every signal unblocked and at
/// its default: a server that outlives the command starting it, holding none of its pipes.
/// POSIX_SPAWN_SETSID and addclosefrom are GNU extensions (_GNU_SOURCE), hence here. Returns
/// 0 with *pid set, or an errno value.
int ss_spawn_detached(const char *path, char *const argv[], pid_t *pid);

#include <stdint.h>
/// statx(2) of `path` relative to `dirfd` (AT_FDCWD, or a folder's descriptor; `path` "" with
/// AT_EMPTY_PATH for the descriptor itself), never following a symlink: the file's device,
/// inode and birth time (the moment this inode was made: a rename keeps it, a copy or an inode
/// number handed out again gets a new one). *birth_ns is -1 where the file system does not
/// record it (NFS, some FUSE). statx is declared under _GNU_SOURCE only, hence here.
/// Returns 0, or an errno value.
int ss_statx_identity(int dirfd, const char *path, int empty_path, uint64_t *device, uint64_t *inode, int64_t *birth_ns);

/// Confines the calling thread (only it: no SECCOMP_FILTER_FLAG_TSYNC) with a seccomp filter
/// for the analysis of untrusted files: it may read what it can open read-only, but not create,
/// write (by name), rename, remove or re-permission files, open sockets, start programs, trace
/// or signal other processes (its own threads, as raise(3) does, it may); those calls fail with EPERM. Sets no_new_privs on the thread, as
/// seccomp requires without CAP_SYS_ADMIN. Irreversible for the thread. Returns 0, or an errno
/// value (EINVAL where the kernel has no seccomp filters). See: man 2 seccomp.
int ss_sandbox_analysis_thread(void);
#endif
