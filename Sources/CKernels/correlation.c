// The alignment's correlations (ss_correlations): the float and double operations of the Swift
// definition they replaced, in its order, so every score is the same to the last bit. No fused
// multiply-add (the baseline x86-64 Swift build has none) and no reassociation.
#pragma STDC FP_CONTRACT OFF

#include "snapsort_kernels.h"
#include "cpu.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

/// Σ over a rectangle of a summed-area table `width` wide, as the Swift `SummedPlane.rect`.
static inline double rect(const double *t, int width, int x0, int y0, int x1, int y1) {
    int stride = width + 1;
    return t[y1 * stride + x1] - t[y0 * stride + x1] - t[y1 * stride + x0] + t[y0 * stride + x0];
}

/// ((s0 + s1) + (s2 + s3)).sum() of four-lane accumulators, as Swift's SIMD4 (lane-wise, then
/// the lanes in order from -0).
static inline double lanes(const float s0[4], const float s1[4], const float s2[4], const float s3[4]) {
    float t[4];
    for (int k = 0; k < 4; k++) t[k] = (s0[k] + s1[k]) + (s2[k] + s3[k]);
    float sum = -0.0f;
    for (int k = 0; k < 4; k++) sum += t[k];
    return (double)sum;
}

/// The row sums of one shift: Σ a·g (and Σ g, Σ g² when `all`), sixteen columns at a time into
/// four four-lane accumulators — portable C, the reference the SIMD paths must equal.
static inline void sums_plain(const float *a, const float *g, int n, int w, int y0, int y1, int offX, int offY, int all, double out[3]) {
    float ab[4][4] = {{0}}, b[4][4] = {{0}}, bb[4][4] = {{0}};
    for (int y = y0; y < y1; y++) {
        const float *pa = a + y * n, *pg = g + (y + offY) * w + offX;
        for (int q = 0; q < n; q += 16) {
            for (int v = 0; v < 4; v++) {
                for (int k = 0; k < 4; k++) {
                    float gv = pg[q + 4 * v + k];
                    ab[v][k] += pa[q + 4 * v + k] * gv;
                    if (all) {
                        b[v][k] += gv;
                        bb[v][k] += gv * gv;
                    }
                }
            }
        }
    }
    out[0] = lanes(ab[0], ab[1], ab[2], ab[3]);
    if (all) {
        out[1] = lanes(b[0], b[1], b[2], b[3]);
        out[2] = lanes(bb[0], bb[1], bb[2], bb[3]);
    }
}

#if defined(__x86_64__) || defined(__i386__)
/// `lanes` of s0|s1 and s2|s3.
__attribute__((target("avx2"))) static inline double lanes_avx(__m256 s01, __m256 s23) {
    __m128 t = _mm_add_ps(_mm_add_ps(_mm256_castps256_ps128(s01), _mm256_extractf128_ps(s01, 1)),
                          _mm_add_ps(_mm256_castps256_ps128(s23), _mm256_extractf128_ps(s23, 1)));
    float sum = -0.0f;
    sum += _mm_cvtss_f32(t);
    sum += _mm_cvtss_f32(_mm_shuffle_ps(t, t, 1));
    sum += _mm_cvtss_f32(_mm_shuffle_ps(t, t, 2));
    sum += _mm_cvtss_f32(_mm_shuffle_ps(t, t, 3));
    return (double)sum;
}

/// sums_plain's Σ a·g of four shifts of one row range at once (offX[k]; the rows and offY
/// shared), with eight lanes: one 256-bit accumulator holds two of the four-lane ones (columns
/// 0–7 are s0|s1, 8–15 are s2|s3), each lane added to in the same order. Four shifts make four
/// independent chains of additions: one shift's chain (an addition's latency a row) was its cost.
__attribute__((target("avx2"))) static inline void cross4_avx2(const float *a, const float *g, int n, int w, int y0, int y1, const int offX[4], int offY,
                                                               double out[4]) {
    __m256 lo0 = _mm256_setzero_ps(), hi0 = lo0, lo1 = lo0, hi1 = lo0, lo2 = lo0, hi2 = lo0, lo3 = lo0, hi3 = lo0;
    for (int y = y0; y < y1; y++) {
        const float *pa = a + y * n, *pg = g + (y + offY) * w;
        for (int q = 0; q < n; q += 16) {
            __m256 a0 = _mm256_loadu_ps(pa + q), a1 = _mm256_loadu_ps(pa + q + 8);
            lo0 = _mm256_add_ps(lo0, _mm256_mul_ps(a0, _mm256_loadu_ps(pg + offX[0] + q)));
            hi0 = _mm256_add_ps(hi0, _mm256_mul_ps(a1, _mm256_loadu_ps(pg + offX[0] + q + 8)));
            lo1 = _mm256_add_ps(lo1, _mm256_mul_ps(a0, _mm256_loadu_ps(pg + offX[1] + q)));
            hi1 = _mm256_add_ps(hi1, _mm256_mul_ps(a1, _mm256_loadu_ps(pg + offX[1] + q + 8)));
            lo2 = _mm256_add_ps(lo2, _mm256_mul_ps(a0, _mm256_loadu_ps(pg + offX[2] + q)));
            hi2 = _mm256_add_ps(hi2, _mm256_mul_ps(a1, _mm256_loadu_ps(pg + offX[2] + q + 8)));
            lo3 = _mm256_add_ps(lo3, _mm256_mul_ps(a0, _mm256_loadu_ps(pg + offX[3] + q)));
            hi3 = _mm256_add_ps(hi3, _mm256_mul_ps(a1, _mm256_loadu_ps(pg + offX[3] + q + 8)));
        }
    }
    out[0] = lanes_avx(lo0, hi0);
    out[1] = lanes_avx(lo1, hi1);
    out[2] = lanes_avx(lo2, hi2);
    out[3] = lanes_avx(lo3, hi3);
}

/// sums_plain with `all` for two shifts at once, as cross4_avx2.
__attribute__((target("avx2"))) static inline void rows2_avx2(const float *a, const float *g, int n, int w, int y0, int y1, const int offX[2], int offY,
                                                              double out[2][3]) {
    __m256 ab0l = _mm256_setzero_ps(), ab0h = ab0l, b0l = ab0l, b0h = ab0l, bb0l = ab0l, bb0h = ab0l;
    __m256 ab1l = ab0l, ab1h = ab0l, b1l = ab0l, b1h = ab0l, bb1l = ab0l, bb1h = ab0l;
    for (int y = y0; y < y1; y++) {
        const float *pa = a + y * n, *pg = g + (y + offY) * w;
        for (int q = 0; q < n; q += 16) {
            __m256 a0 = _mm256_loadu_ps(pa + q), a1 = _mm256_loadu_ps(pa + q + 8);
            __m256 g0 = _mm256_loadu_ps(pg + offX[0] + q), g1 = _mm256_loadu_ps(pg + offX[0] + q + 8);
            ab0l = _mm256_add_ps(ab0l, _mm256_mul_ps(a0, g0));
            ab0h = _mm256_add_ps(ab0h, _mm256_mul_ps(a1, g1));
            b0l = _mm256_add_ps(b0l, g0);
            b0h = _mm256_add_ps(b0h, g1);
            bb0l = _mm256_add_ps(bb0l, _mm256_mul_ps(g0, g0));
            bb0h = _mm256_add_ps(bb0h, _mm256_mul_ps(g1, g1));
            g0 = _mm256_loadu_ps(pg + offX[1] + q);
            g1 = _mm256_loadu_ps(pg + offX[1] + q + 8);
            ab1l = _mm256_add_ps(ab1l, _mm256_mul_ps(a0, g0));
            ab1h = _mm256_add_ps(ab1h, _mm256_mul_ps(a1, g1));
            b1l = _mm256_add_ps(b1l, g0);
            b1h = _mm256_add_ps(b1h, g1);
            bb1l = _mm256_add_ps(bb1l, _mm256_mul_ps(g0, g0));
            bb1h = _mm256_add_ps(bb1h, _mm256_mul_ps(g1, g1));
        }
    }
    out[0][0] = lanes_avx(ab0l, ab0h);
    out[0][1] = lanes_avx(b0l, b0h);
    out[0][2] = lanes_avx(bb0l, bb0h);
    out[1][0] = lanes_avx(ab1l, ab1h);
    out[1][1] = lanes_avx(b1l, b1h);
    out[1][2] = lanes_avx(bb1l, bb1h);
}

static int has_avx2(void) {
    static int avx2 = 0;
    return SS_CPU_HAS("avx2", avx2);
}
#endif

/// A shift that keeps enough overlap, with its rectangle of `a` (x0..<x1, y0..<y1).
typedef struct {
    int sx, offX, x0, x1, count;
    float overlap;
} shift;

/// The shifts of row `sy` that keep more than 16 pixels and `minimum_overlap` of the plane, in
/// order of dx, with the rows y0..<y1 they share; returns how many.
static inline int shifts_of_row(const ss_zoom *z, int sy, int *y0, int *y1, shift *out) {
    const int n = z->n, offY = z->dy_hi - sy;
    const float total = (float)(n * n);
    *y0 = z->rows_lo - offY;
    *y1 = z->rows_hi - offY + 1;
    if (*y0 < 0) *y0 = 0;
    if (*y1 > n) *y1 = n;
    int m = 0;
    for (int sx = z->dx_lo; sx <= z->dx_hi; sx++) {
        // The pixels of `a` whose grid cell samples inside the plane.
        int offX = z->dx_hi - sx, x0 = z->cols_lo - offX, x1 = z->cols_hi - offX + 1;
        if (x0 < 0) x0 = 0;
        if (x1 > n) x1 = n;
        int count = (x1 > x0 ? x1 - x0 : 0) * (*y1 > *y0 ? *y1 - *y0 : 0);
        float overlap = (float)count / total;
        if (count <= 16 || !(overlap >= z->minimum_overlap)) continue;
        out[m++] = (shift){sx, offX, x0, x1, count, overlap};
    }
    return m;
}

/// Pearson r of one shift from its sums (the Swift definition's double arithmetic, in order).
static inline float pearson(const ss_zoom *z, const shift *t, int y0, int y1, int offY, double sab, double sb, double sbb, int tables) {
    const int n = z->n;
    double sa = rect(z->a_sums, n, t->x0, y0, t->x1, y1), saa = rect(z->a_squares, n, t->x0, y0, t->x1, y1);
    if (tables) {
        sb = rect(z->g_sums, z->width, t->x0 + t->offX, y0 + offY, t->x1 + t->offX, y1 + offY);
        sbb = rect(z->g_squares, z->width, t->x0 + t->offX, y0 + offY, t->x1 + t->offX, y1 + offY);
    }
    double inverse = 1 / (double)t->count;
    double ma = sa * inverse, mb = sb * inverse;
    double cov = sab * inverse - ma * mb;
    double va = saa * inverse - ma * ma, vb = sbb * inverse - mb * mb;
    return va > 1e-4 && vb > 1e-4 ? (float)(cov / __builtin_sqrt(va * vb)) : 0;
}

static size_t correlations_plain(const ss_zoom *z, int32_t *dxOut, int32_t *dyOut, float *rOut, float *overlapOut) {
    const int n = z->n, tables = z->g_sums != NULL;
    shift row[z->dx_hi - z->dx_lo + 1];
    size_t found = 0;
    for (int sy = z->dy_lo; sy <= z->dy_hi; sy++) {
        int y0, y1, offY = z->dy_hi - sy, m = shifts_of_row(z, sy, &y0, &y1, row);
        for (int k = 0; k < m; k++) {
            double s[3];
            sums_plain(z->a, z->grid, n, z->width, y0, y1, row[k].offX, offY, !tables, s);
            dxOut[found] = row[k].sx;
            dyOut[found] = sy;
            rOut[found] = pearson(z, &row[k], y0, y1, offY, s[0], s[1], s[2], tables);
            overlapOut[found] = row[k].overlap;
            found++;
        }
    }
    return found;
}

#if defined(__x86_64__) || defined(__i386__)
/// correlations_plain with the shifts of a row summed four (with tables) or two (without) at once.
__attribute__((target("avx2"))) static size_t correlations_avx2(const ss_zoom *z, int32_t *dxOut, int32_t *dyOut, float *rOut, float *overlapOut) {
    const int n = z->n, tables = z->g_sums != NULL, group = tables ? 4 : 2;
    shift row[z->dx_hi - z->dx_lo + 1];
    size_t found = 0;
    for (int sy = z->dy_lo; sy <= z->dy_hi; sy++) {
        int y0, y1, offY = z->dy_hi - sy, m = shifts_of_row(z, sy, &y0, &y1, row);
        for (int k = 0; k < m; k += group) {
            // A group short of shifts repeats its last (the sums of the repeats are dropped).
            int offX[4];
            for (int j = 0; j < group; j++) offX[j] = row[k + j < m ? k + j : m - 1].offX;
            double s[4][3];
            if (tables) {
                double sab[4];
                cross4_avx2(z->a, z->grid, n, z->width, y0, y1, offX, offY, sab);
                for (int j = 0; j < 4; j++) s[j][0] = sab[j], s[j][1] = 0, s[j][2] = 0;
            } else {
                rows2_avx2(z->a, z->grid, n, z->width, y0, y1, offX, offY, s);
            }
            for (int j = 0; j < group && k + j < m; j++) {
                const shift *t = &row[k + j];
                dxOut[found] = t->sx;
                dyOut[found] = sy;
                rOut[found] = pearson(z, t, y0, y1, offY, s[j][0], s[j][1], s[j][2], tables);
                overlapOut[found] = t->overlap;
                found++;
            }
        }
    }
    return found;
}
#endif

size_t ss_correlations(const ss_zoom *z, int plain, int32_t *dx, int32_t *dy, float *r, float *overlap) {
#if defined(__x86_64__) || defined(__i386__)
    if (!plain && has_avx2()) return correlations_avx2(z, dx, dy, r, overlap);
#else
    (void)plain;
#endif
    return correlations_plain(z, dx, dy, r, overlap);
}
