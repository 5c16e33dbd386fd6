#define _GNU_SOURCE
#include "snapsort_sys.h"
#include <malloc.h>
#include <sys/syscall.h>
#include <unistd.h>

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
