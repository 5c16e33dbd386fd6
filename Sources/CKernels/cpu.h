#ifndef SNAPSORT_KERNELS_CPU_H
#define SNAPSORT_KERNELS_CPU_H

#if defined(__x86_64__) || defined(__i386__)
/// Whether the processor has `FEATURE` (a `__builtin_cpu_supports` name), asked once per call
/// site: `cache` is that site's static (0 unknown, 1 without, 2 with; a race writes the same
/// value). The kernels choose their instructions at run time with it.
#define SS_CPU_HAS(FEATURE, cache)                                          \
    ({                                                                      \
        int known_ = __atomic_load_n(&(cache), __ATOMIC_RELAXED);           \
        if (known_ == 0) {                                                  \
            __builtin_cpu_init();                                           \
            known_ = __builtin_cpu_supports(FEATURE) ? 2 : 1;               \
            __atomic_store_n(&(cache), known_, __ATOMIC_RELAXED);           \
        }                                                                   \
        known_ == 2;                                                        \
    })
#endif

#endif
