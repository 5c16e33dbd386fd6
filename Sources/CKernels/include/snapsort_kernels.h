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

/// One zoom of a thumbnail alignment (`Thumbnail.Zoomed.correlations` in SnapSortCore): plane `a`
/// (n×n, n a multiple of 16, with its (n+1)×(n+1) summed-area tables of values and squares)
/// against every window of `grid` (width × height, n + shifts − 1 a side) for the shifts
/// dx_lo…dx_hi, dy_lo…dy_hi. `g_sums`/`g_squares` are the grid's tables, or NULL (then Σg and Σg²
/// are summed with the cross term, row by row). cols/rows: the grid columns and rows that
/// sample inside the plane.
typedef struct {
    const float *a;
    const double *a_sums, *a_squares;
    int n;
    const float *grid;
    const double *g_sums, *g_squares;
    int width;
    int dx_lo, dx_hi, dy_lo, dy_hi;
    int cols_lo, cols_hi, rows_lo, rows_hi;
    float minimum_overlap;
} ss_zoom;

/// Pearson r and overlap share at each shift (dy, then dx, ascending) whose overlap keeps more
/// than 16 pixels and at least `minimum_overlap` of the plane, written in order to dx, dy, r,
/// overlap (each at least as long as the shifts); returns how many. r is 0 where either side
/// is flat over the overlap. Bit for bit the Swift definition it replaced (the same float
/// operations in the same order: four-lane row sums, no fused multiply-add), with AVX2 where
/// the processor has it unless `plain` (tests compare the two paths).
size_t ss_correlations(const ss_zoom *z, int plain, int32_t *dx, int32_t *dy, float *r, float *overlap);

#endif
