#include "snapsort_kernels.h"
#include "cpu.h"

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
    static int popcnt = 0;
    if (SS_CPU_HAS("popcnt", popcnt)) return scan_popcnt(hashes, n, h, radius, places, distances);
#endif
    return scan_plain(hashes, n, h, radius, places, distances);
}
