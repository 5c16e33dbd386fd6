#ifndef SNAPSORT_CLINUX_SHIM_H
#define SNAPSORT_CLINUX_SHIM_H
/* Linux-only headers that Glibc's Swift module map leaves out: signalfd(2), eventfd(2),
   timerfd_create(2). Header only: the functions live in libc. */
#include <sys/signalfd.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#endif
