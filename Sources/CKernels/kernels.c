#include "snapsort_kernels.h"

#define SCAN_BODY(POPCOUNT)                                   \
    size_t found = 0;                                         \
    for (size_t i = 0; i < n; i++) {                          \
        int d = POPCOUNT(hashes[i] ^ h);                      \
        if (d <= radius) {                                    \
            places[found] = (uint32_t)i;                      \
            distances[found] = (uint8_t)d;                    \
            found++;                                          \
        }                                                     \
    }                                                         \
    return found;

#if defined(__x86_64__) || defined(__i386__)
__attribute__((target("popcnt"))) static size_t scan_popcnt(const uint64_t *hashes, size_t n, uint64_t h, int radius, uint32_t *places, uint8_t *distances) {
    SCAN_BODY(__builtin_popcountll)
}
#endif

static size_t scan_plain(const uint64_t *hashes, size_t n, uint64_t h, int radius, uint32_t *places, uint8_t *distances) {
    SCAN_BODY(__builtin_popcountll)
}

size_t ss_hamming_within(const uint64_t *hashes, size_t n, uint64_t h, int radius, uint32_t *places, uint8_t *distances) {
#if defined(__x86_64__) || defined(__i386__)
    // 0 unknown, 1 without POPCNT, 2 with; a race writes the same value.
    static int has = 0;
    int known = __atomic_load_n(&has, __ATOMIC_RELAXED);
    if (known == 0) {
        __builtin_cpu_init();
        known = __builtin_cpu_supports("popcnt") ? 2 : 1;
        __atomic_store_n(&has, known, __ATOMIC_RELAXED);
    }
    if (known == 2) return scan_popcnt(hashes, n, h, radius, places, distances);
#endif
    return scan_plain(hashes, n, h, radius, places, distances);
}
