// bench/unconfined.c: an LD_PRELOAD shim for benchmarks only, never shipped. It refuses the
// seccomp(2) system call (ENOSYS, as a kernel without seccomp would), so the scan's analysis
// workers run unconfined (`Sandbox.confineAnalysisThread` fails, the scanner logs a warning and
// goes on) while every other call passes through: the same binary measured with and without
// the sandbox (issue 30, item 7), each run beside the other on a shared host.
//
//   cc -shared -fPIC -O2 -o /tmp/unconfined.so bench/unconfined.c -ldl
//   LD_PRELOAD=/tmp/unconfined.so bench/throughput.py --bin …
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <sys/syscall.h>

long syscall(long number, ...) {
    static long (*real)(long, ...);
    va_list ap;
    va_start(ap, number);
    long a[6];
    for (int i = 0; i < 6; i++) a[i] = va_arg(ap, long);
    va_end(ap);
    if (number == SYS_seccomp) {
        errno = ENOSYS;
        return -1;
    }
    if (!real) real = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
    return real(number, a[0], a[1], a[2], a[3], a[4], a[5]);
}
