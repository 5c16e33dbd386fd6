#ifndef SNAPSORT_KERNELS_H
#define SNAPSORT_KERNELS_H

#include <stddef.h>
#include <stdint.h>

/// The places i < n whose hashes[i] is within `radius` bits of `h` (Hamming distance), written
/// to `places` in order with their distances to `distances` (each at least n long); returns
/// how many. Uses the POPCNT instruction where the processor has it (chosen once, at the first
/// call): Swift's nonzeroBitCount for the baseline x86-64 is a dozen instructions a word, and
/// this scan is most of a pHash index query (HashIndex).
size_t ss_hamming_within(const uint64_t *hashes, size_t n, uint64_t h, int radius, uint32_t *places, uint8_t *distances);

#endif
