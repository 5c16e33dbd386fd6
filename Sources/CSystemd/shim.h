#ifndef SNAPSORT_CSYSTEMD_SHIM_H
#define SNAPSORT_CSYSTEMD_SHIM_H
#include <systemd/sd-daemon.h>
#include <systemd/sd-bus.h>
#endif
