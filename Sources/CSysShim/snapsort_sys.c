#define _GNU_SOURCE
#include "snapsort_sys.h"
#include <sys/syscall.h>
#include <unistd.h>

int ss_ioprio_set_self(int io_class, int level) {
    // IOPRIO_PRIO_VALUE(class, data) = (class << 13) | data; IOPRIO_WHO_PROCESS = 1.
    return (int)syscall(SYS_ioprio_set, 1, 0, (io_class << 13) | level);
}

int ss_gettid(void) { return (int)syscall(SYS_gettid); }
