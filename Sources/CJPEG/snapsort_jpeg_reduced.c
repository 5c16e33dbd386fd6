// A decoder for the scan's one hot case: a clean baseline JPEG decoded at 1/4 scale (a 12-24 MP
// photo) or 1/8 (48 MP and up) to RGB, RGBX or gray, with the pixels libjpeg-turbo gives for the
// same request (scale 2/8 or 1/8, ISLOW, no fancy upsampling). It exists for speed alone: libjpeg-turbo spends ~80 % of that decode
// in its Huffman decoder, which reads the stream a byte at a time, checks every byte for a
// marker and takes a coefficient's code and its extra bits in two steps. Here the entropy-coded
// segment is unstuffed once, read 64 bits at a time, and a small coefficient (code and value
// within FAST_BITS) is decoded in one table look-up.
//
// Anything it does not take exactly as libjpeg would — progressive, arithmetic, 12-bit,
// restart markers out of step, an Adobe or RGB-labelled file, a JFIF version libjpeg warns
// about, bytes between markers, a stream cut short, leftover bytes, a bad code — returns
// SS_JPEGQ_DECLINED and the caller decodes the file through libjpeg as before, which also
// gives the warnings its damaged-file reasons come from. So a file decoded here is one libjpeg
// would have decoded without a warning, to the same pixels (the reduced IDCTs below are
// libjpeg's jidctred.c 2×2 and 4×4 in integer arithmetic, the colour conversion jdcolor.c's;
// `JPEGReducedTests` compares the two byte for byte).
//
// No setjmp, no allocation failure left unchecked; every length is checked against the
// buffer before it is read. Fuzzed in fuzz/ with the JPEG harness.
#include "snapsort_jpeg.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define FAST_BITS 11

// A fast entry: the bits a symbol and its value bits take together (bits 0-4), for an AC table
// how far the symbol moves along the block (bits 5-10: run + 1, 16 for ZRL, 0 for end of
// block), and the coefficient or DC difference (bits 16-31, signed); 0 when the code with its
// value bits is longer than FAST_BITS.
#define FAST_LEN(e) ((e) & 31)
#define FAST_ADVANCE(e) (((e) >> 5) & 63)
#define FAST_VALUE(e) ((int32_t)(e) >> 16)

typedef struct {
    uint8_t fast[1 << FAST_BITS];      // index into values/sizes, 255 = longer than FAST_BITS
    uint32_t fastv[1 << FAST_BITS];    // see FAST_LEN
    uint32_t maxcode[18];             // left-aligned to 16 bits, per code length
    int delta[17];                    // value index minus code, per code length
    uint8_t sizes[257];
    uint8_t values[256];
    int defined;
} huff;

typedef struct {
    int id, h, v, tq, td, ta;
    int pred;  // the DC prediction
    uint8_t *plane;  // one MCU row of output samples
    int stride;      // of `plane`
    int scaled;      // output samples per block side: 1, 2 or 4 (libjpeg's DCT_scaled_size)
    int sums;        // the IDCT sums a block has (ACC1, ACC2 or ACC4)
} comp;

typedef struct {
    const uint8_t *p;    // next byte to load
    uint64_t bits;       // MSB first
    int n;               // valid bits in `bits`
} bitreader;

// The zigzag order.
static const uint8_t zigzag[64] = {
    0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5, 12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13, 6, 7, 14, 21, 28,
    35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51, 58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63};

static int build_huffman(huff *h, const uint8_t counts[16]) {
    int k = 0, code = 0;
    for (int j = 0; j < 16; j++)
        for (int i = 0; i < counts[j]; i++) {
            if (k >= 256) return -1;
            h->sizes[k++] = (uint8_t)(j + 1);
        }
    h->sizes[k] = 0;
    int total = k, longest = total ? h->sizes[total - 1] : 0;
    uint16_t codes[256];
    k = 0;
    for (int j = 1; j <= 16; j++) {
        h->delta[j] = k - code;
        while (k < total && h->sizes[k] == j) codes[k++] = (uint16_t)code++;
        // As jdhuff.c: the next code must still fit in j bits (no code is all ones).
        if (j <= longest && code >= (1 << j)) return -1;
        h->maxcode[j] = (uint32_t)code << (16 - j);
        code <<= 1;
    }
    h->maxcode[17] = 0xffffffffu;
    memset(h->fast, 255, sizeof h->fast);
    for (int i = 0; i < total; i++) {
        int s = h->sizes[i];
        if (s <= FAST_BITS) {
            int c = codes[i] << (FAST_BITS - s), m = 1 << (FAST_BITS - s);
            for (int j = 0; j < m; j++) h->fast[c + j] = (uint8_t)i;
        }
    }
    return 0;
}

// A value of s bits as JPEG codes it (F.2.2.1: the low half stands for the negatives).
static inline int extend(int v, int s) { return v < (1 << (s - 1)) ? v - (1 << s) + 1 : v; }

// The fast entries: every code whose value bits fit in FAST_BITS with it, decoded in one look-up.
static void build_fast_values(huff *h, int ac) {
    for (int i = 0; i < (1 << FAST_BITS); i++) {
        int fast = h->fast[i];
        h->fastv[i] = 0;
        if (fast == 255) continue;
        int rs = h->values[fast], len = h->sizes[fast];
        int run = ac ? (rs >> 4) & 15 : 0, magbits = ac ? rs & 15 : rs;
        if (len + magbits > FAST_BITS) continue;
        int v = 0;
        if (magbits) v = extend(((i << len) & ((1 << FAST_BITS) - 1)) >> (FAST_BITS - magbits), magbits);
        int advance = 0;
        if (ac) advance = magbits ? run + 1 : rs == 0xF0 ? 16 : 0;  // other zero-size symbols: no entry
        if (ac && !magbits && rs != 0xF0 && rs != 0x00) continue;
        h->fastv[i] = ((uint32_t)(v * 65536)) | (uint32_t)(advance << 5) | (uint32_t)(len + magbits);
    }
}

// Tops the reader up to 56-63 bits from the next 8 bytes (the segment is padded): the bits
// below the count are the stream's own, so reloading them is harmless.
static inline void refill(bitreader *b) {
    uint64_t w;
    memcpy(&w, b->p, 8);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    w = __builtin_bswap64(w);
#endif
    b->bits |= w >> b->n;
    b->p += (63 - b->n) >> 3;
    b->n |= 56;
}

static inline int get_bits(bitreader *b, int s) {
    int v = (int)(b->bits >> (64 - s));
    b->bits <<= s;
    b->n -= s;
    return v;
}

// A symbol of `h`, or -1 for a code no table holds. Needs 16 bits in the reader.
static inline int decode_symbol(bitreader *b, const huff *h) {
    int k = h->fast[b->bits >> (64 - FAST_BITS)];
    if (k < 255) {
        int s = h->sizes[k];
        b->bits <<= s;
        b->n -= s;
        return h->values[k];
    }
    uint32_t t = (uint32_t)(b->bits >> 48);
    int len = FAST_BITS + 1;
    while (t >= h->maxcode[len]) len++;
    if (len > 16) return -1;
    int c = (int)(t >> (16 - len)) + h->delta[len];
    if (c < 0 || c >= 256 || h->sizes[c] != len) return -1;
    b->bits <<= len;
    b->n -= len;
    return h->values[c];
}

#define CONST_BITS 13
#define PASS1_BITS 2

// The IDCTs run in 32-bit unsigned arithmetic, which wraps instead of overflowing (C leaves
// signed overflow undefined); `sra` shifts the wrapped sum as the signed value it stands for.
// Within the range real pictures give (a dequantized coefficient of 8-bit samples stays within
// ±2^12), no intermediate leaves 32 bits, so the results are jidctred.c's (which computes in
// 64 bits); a crafted stream with larger values gets other pixels, never undefined behaviour.
typedef uint32_t u32;
static inline int32_t sra(u32 v, int n) { return (int32_t)v >> n; }
#define K(x) ((u32)(int32_t)(x))
#define FIX_0_211164243 1730
#define FIX_0_509795579 4176
#define FIX_0_601344887 4926
#define FIX_0_720959822 5906
#define FIX_0_765366865 6270
#define FIX_0_850430095 6967
#define FIX_0_899976223 7373
#define FIX_1_061594337 8697
#define FIX_1_272758580 10426
#define FIX_1_451774981 11893
#define FIX_1_847759065 15137
#define FIX_2_172734803 17799
#define FIX_2_562915447 20995
#define FIX_3_624509785 29692

// The reduced IDCTs of jidctred.c, taken apart: both passes are sums of coefficient times
// constant, so each coefficient is added into the sums it takes part in as it is decoded (no
// coefficient block to clear, dequantize and walk), and the passes finish from those sums.
// The sums are the ones jpeg_idct_2x2 and jpeg_idct_4x4 form (additions in another order give
// the same 32-bit result), then rounded and shifted as there, so the pixels are libjpeg's.
//
// A `plan` holds, for each zigzag position of a component's block, the sum(s) its coefficient
// goes to and its weight there (quantizer times IDCT constant). A position no output needs
// goes to a spare sum, never read (unsigned sums wrap).
//
// 2×2 (luma, and chroma at libjpeg's minimum size): rows and columns 0, 1, 3, 5, 7 count.
// For the 5 columns: A = row 0 · 2^15, T = rows 1, 3, 5, 7 times their constants.
// 4×4 (chroma of a 2×2-subsampled file): rows and columns 0-3, 5-7 count. For the 7 columns:
// A = row 0 · 2^14, E = rows 2 and 6, O0 and O2 = the odd rows' two sums.
#define ACC1 1
#define ACC2 10
#define ACC4 28

typedef struct {
    u32 w1[64], w2[64];
    int32_t off1[64], off2[64];  // slot × blocks across: where in the row's sums (see finish_2x2)
} plan;

static void make_plan(plan *p, const uint16_t q[64], int scaled, int n) {
    uint8_t slot1[64], slot2[64];
    int four = scaled == 4;
    for (int j = 0; j < 64; j++) {
        int zz = zigzag[j], r = zz >> 3, c = zz & 7;
        u32 qv = q[zz];
        slot1[j] = slot2[j] = scaled == 4 ? ACC4 : scaled == 2 ? ACC2 : ACC1;
        p->w1[j] = p->w2[j] = 0;
        if (scaled == 1) {
            // jpeg_idct_1x1: the DC alone.
            if (j == 0) {
                slot1[j] = 0;
                p->w1[j] = qv;
            }
        } else if (!four) {
            static const int slot[8] = {0, 1, -1, 2, -1, 3, -1, 4};
            static const int k[8] = {0, FIX_3_624509785, 0, -FIX_1_272758580, 0, FIX_0_850430095, 0, -FIX_0_720959822};
            if (slot[c] < 0 || (r != 0 && k[r] == 0)) continue;
            if (r == 0) {
                slot1[j] = (uint8_t)slot[c];
                p->w1[j] = qv << (CONST_BITS + 2);
            } else {
                slot1[j] = (uint8_t)(5 + slot[c]);
                p->w1[j] = qv * K(k[r]);
            }
        } else {
            if (c == 4 || r == 4) continue;
            int sl = c < 4 ? c : c - 1;
            static const int odd0[8] = {0, FIX_1_061594337, 0, -FIX_2_172734803, 0, FIX_1_451774981, 0, -FIX_0_211164243};
            static const int odd2[8] = {0, FIX_2_562915447, 0, FIX_0_899976223, 0, -FIX_0_601344887, 0, -FIX_0_509795579};
            if (r == 0) {
                slot1[j] = (uint8_t)sl;
                p->w1[j] = qv << (CONST_BITS + 1);
            } else if (r == 2 || r == 6) {
                slot1[j] = (uint8_t)(7 + sl);
                p->w1[j] = qv * K(r == 2 ? FIX_1_847759065 : -FIX_0_765366865);
            } else {
                slot1[j] = (uint8_t)(14 + sl);
                p->w1[j] = qv * K(odd0[r]);
                slot2[j] = (uint8_t)(21 + sl);
                p->w2[j] = qv * K(odd2[r]);
            }
        }
    }
    for (int j = 0; j < 64; j++) {
        p->off1[j] = slot1[j] * n;
        p->off2[j] = slot2[j] * n;
    }
}

// One block: its coefficients added into its column of the row's sums (`acc`: slot s at
// s × blocks across, zeroed by the caller). 0, or -1 on bad data. The reader's state is kept in
// locals (registers) and written back once.
static inline __attribute__((always_inline)) int decode_block(bitreader *reader, const plan *pl, int four, u32 *acc,
                                                              const huff *dc, const huff *ac, int *pred) {
    bitreader b = *reader;
    refill(&b);
    uint32_t e = dc->fastv[b.bits >> (64 - FAST_BITS)];
    int diff;
    if (e) {
        b.bits <<= FAST_LEN(e);
        b.n -= FAST_LEN(e);
        diff = FAST_VALUE(e);
    } else {
        int t = decode_symbol(&b, dc);
        if (t < 0 || t > 11) return -1;
        diff = 0;
        if (t) {
            refill(&b);
            diff = extend(get_bits(&b, t), t);
        }
    }
    *pred += diff;
    if (*pred < -32768 || *pred > 32767) return -1;
    acc[pl->off1[0]] += (u32)*pred * pl->w1[0];
    // A refill leaves at least 56 bits and a fast symbol takes at most FAST_BITS (11), so four
    // fast symbols are read between refills: a refill for every symbol would put its load on
    // the path from one symbol to the next, and testing the bits left mispredicts.
    int k = 1, budget = 0;
    const uint32_t *fastv = ac->fastv;
    do {
        if (budget == 0) {
            refill(&b);
            budget = 4;
        }
        budget--;
        e = fastv[b.bits >> (64 - FAST_BITS)];
        int v;
        if (e) {
            b.bits <<= FAST_LEN(e);
            b.n -= FAST_LEN(e);
            int advance = FAST_ADVANCE(e);
            if (advance == 0) break;  // end of block
            k += advance;
            if (k > 64) return -1;
            v = FAST_VALUE(e);  // 0 for a ZRL: adds nothing
        } else {
            refill(&b);  // a long code and its value bits take up to 27
            budget = 0;
            int rs = decode_symbol(&b, ac);
            if (rs < 0) return -1;
            int sz = rs & 15, run = rs >> 4;
            if (sz == 0) {
                if (rs != 0xF0) break;
                k += 16;
                if (k > 64) return -1;
                continue;
            }
            k += run + 1;
            if (k > 64) return -1;
            refill(&b);
            v = extend(get_bits(&b, sz), sz);
        }
        int j = k - 1;
        acc[pl->off1[j]] += (u32)v * pl->w1[j];
        if (four) acc[pl->off2[j]] += (u32)v * pl->w2[j];
    } while (k < 64);
    *reader = b;
    return 0;
}

// The last steps of the IDCTs, from the sums, for a row of blocks at once: the sums of block b
// are stored apart (slot s of block b at s·n + b), so the same arithmetic runs over neighbouring
// blocks in vector lanes. The shortcuts jidctred.c takes for zero columns and rows give the
// same values as the general formula (the rounding constant is below the shifted-out bits),
// so there are none.
//
// A sample: the sum rounded and shifted, then libjpeg's range limit (its table indexed by the
// value's low 10 bits: the value taken modulo 1024 into −512…511, plus 128, clamped to 0…255),
// computed so it vectorizes.
static inline uint8_t out_sample(u32 v, int sh) {
    int32_t x = sra(v + (1u << (sh - 1)), sh);
    x = (int32_t)((u32)(x + 512) & 1023) - 512 + 128;
    return (uint8_t)(x < 0 ? 0 : x > 255 ? 255 : x);
}

// 1×1 (jpeg_idct_1x1): the block's mean, from its DC.
static inline __attribute__((always_inline)) void finish_1x1(const u32 *restrict S, int n, uint8_t *restrict o) {
    for (int b = 0; b < n; b++) o[b] = out_sample(S[b], 3);
}

// 2×2 (jpeg_idct_2x2): each output sample is the mean of a 4×4 quarter of the block.
static inline __attribute__((always_inline)) void finish_2x2(const u32 *restrict S, int n, uint8_t *restrict o0, uint8_t *restrict o1) {
    const int sh1 = CONST_BITS - PASS1_BITS + 2, sh = CONST_BITS + PASS1_BITS + 3 + 2;
    for (int b = 0; b < n; b++) {
        u32 w0[5], w1[5];
        for (int i = 0; i < 5; i++) {
            u32 a = S[i * n + b], t = S[(5 + i) * n + b];
            w0[i] = (u32)sra(a + t + (1u << (sh1 - 1)), sh1);
            w1[i] = (u32)sra(a - t + (1u << (sh1 - 1)), sh1);
        }
        u32 t10 = w0[0] << (CONST_BITS + 2);
        u32 t0 = w0[4] * K(-FIX_0_720959822) + w0[3] * K(FIX_0_850430095) + w0[2] * K(-FIX_1_272758580) + w0[1] * K(FIX_3_624509785);
        o0[2 * b] = out_sample(t10 + t0, sh);
        o0[2 * b + 1] = out_sample(t10 - t0, sh);
        t10 = w1[0] << (CONST_BITS + 2);
        t0 = w1[4] * K(-FIX_0_720959822) + w1[3] * K(FIX_0_850430095) + w1[2] * K(-FIX_1_272758580) + w1[1] * K(FIX_3_624509785);
        o1[2 * b] = out_sample(t10 + t0, sh);
        o1[2 * b + 1] = out_sample(t10 - t0, sh);
    }
}

// 4×4 (jpeg_idct_4x4), into rows o0…o3. Pass 1 overwrites each column slot's four sums (A, E,
// O0, O2) with its four pass-1 values (output rows 0-3), so each pass is one loop over blocks.
static inline __attribute__((always_inline)) void finish_4x4(u32 *restrict S, int n, uint8_t *restrict o0, uint8_t *restrict o1,
                                                             uint8_t *restrict o2, uint8_t *restrict o3) {
    const int sh1 = CONST_BITS - PASS1_BITS + 1, sh = CONST_BITS + PASS1_BITS + 3 + 1;
    for (int i = 0; i < 7; i++) {
        u32 *A = S + (size_t)i * n, *E = S + (size_t)(7 + i) * n, *P = S + (size_t)(14 + i) * n, *Q = S + (size_t)(21 + i) * n;
        for (int b = 0; b < n; b++) {
            u32 t10 = A[b] + E[b], t12 = A[b] - E[b], odd0 = P[b], odd2 = Q[b];
            A[b] = (u32)sra(t10 + odd2 + (1u << (sh1 - 1)), sh1);  // row 0
            E[b] = (u32)sra(t12 + odd0 + (1u << (sh1 - 1)), sh1);  // row 1
            P[b] = (u32)sra(t12 - odd0 + (1u << (sh1 - 1)), sh1);  // row 2
            Q[b] = (u32)sra(t10 - odd2 + (1u << (sh1 - 1)), sh1);  // row 3
        }
    }
    uint8_t *o[4] = {o0, o1, o2, o3};
    for (int r = 0; r < 4; r++) {
        // Row r's pass-1 values of column slots 0-6 (columns 0-3, 5-7).
        const u32 *w0 = S + (size_t)(7 * r + 0) * n, *w1 = S + (size_t)(7 * r + 1) * n, *w2 = S + (size_t)(7 * r + 2) * n;
        const u32 *w3 = S + (size_t)(7 * r + 3) * n, *w5 = S + (size_t)(7 * r + 4) * n, *w6 = S + (size_t)(7 * r + 5) * n;
        const u32 *w7 = S + (size_t)(7 * r + 6) * n;
        uint8_t *restrict out = o[r];
        for (int b = 0; b < n; b++) {
            u32 t0 = w0[b] << (CONST_BITS + 1);
            u32 t2 = w2[b] * K(FIX_1_847759065) + w6[b] * K(-FIX_0_765366865);
            u32 t10 = t0 + t2, t12 = t0 - t2;
            u32 z1 = w7[b], z2 = w5[b], z3 = w3[b], z4 = w1[b];
            t0 = z1 * K(-FIX_0_211164243) + z2 * K(FIX_1_451774981) + z3 * K(-FIX_2_172734803) + z4 * K(FIX_1_061594337);
            t2 = z1 * K(-FIX_0_509795579) + z2 * K(-FIX_0_601344887) + z3 * K(FIX_0_899976223) + z4 * K(FIX_2_562915447);
            out[4 * b] = out_sample(t10 + t2, sh);
            out[4 * b + 1] = out_sample(t12 + t0, sh);
            out[4 * b + 2] = out_sample(t12 - t0, sh);
            out[4 * b + 3] = out_sample(t10 - t2, sh);
        }
    }
}

// jdcolor.c's YCbCr → RGB (SCALEBITS 16), computed instead of looked up so the loop runs as
// vector code: its tables hold exactly these values.
#define CR_R 91881   // FIX(1.40200)
#define CB_B 116130  // FIX(1.77200)
#define CR_G 46802   // FIX(0.71414)
#define CB_G 22554   // FIX(0.34414)

static inline uint8_t clamp255(int v) { return (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v); }

// One output row: Y per pixel, chroma per pixel or (xshift 1) per pair of pixels.
static inline void ycc_row(const uint8_t *Y, const uint8_t *Cb, const uint8_t *Cr, int xshift, int width, int channels, uint8_t *d) {
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (channels == 4 && xshift == 0) {
        // A pixel as one little-endian word (R, G, B, 0xFF in memory order), eight at a time.
        for (int x = 0; x < width; x++) {
            int y = Y[x], cb = Cb[x] - 128, cr = Cr[x] - 128;
            int r = y + ((CR_R * cr + 32768) >> 16);
            int g = y + ((-CB_G * cb + 32768 - CR_G * cr) >> 16);
            int bl = y + ((CB_B * cb + 32768) >> 16);
            r = r < 0 ? 0 : r > 255 ? 255 : r;
            g = g < 0 ? 0 : g > 255 ? 255 : g;
            bl = bl < 0 ? 0 : bl > 255 ? 255 : bl;
            uint32_t px = (uint32_t)r | (uint32_t)g << 8 | (uint32_t)bl << 16 | 0xFF000000u;
            memcpy(d + 4 * x, &px, 4);
        }
        return;
    }
#endif
    for (int x = 0; x < width; x++) {
        int y = Y[x], cb = Cb[x >> xshift] - 128, cr = Cr[x >> xshift] - 128;
        d[0] = clamp255(y + ((CR_R * cr + 32768) >> 16));
        d[1] = clamp255(y + ((-CB_G * cb + 32768 - CR_G * cr) >> 16));
        d[2] = clamp255(y + ((CB_B * cb + 32768) >> 16));
        if (channels == 4) d[3] = 0xFF;
        d += channels;
    }
}

static inline int be16(const uint8_t *p) { return (p[0] << 8) | p[1]; }

// Built twice, for AVX2 and for the x86-64 baseline (SSE2, which has no 32-bit vector
// multiply), and chosen at load time by the CPU; elsewhere once.
#if defined(__x86_64__) && defined(__linux__)
__attribute__((target_clones("avx2", "default")))
#endif
int ss_jpeg_reduced_into(const unsigned char *data, size_t len, int scale_num, int mode, unsigned char *dest, size_t dest_len,
                         int *image_width, int *image_height) {
    int layout = mode;
    if (layout != SS_JPEG_RGB && layout != SS_JPEG_RGBX && layout != SS_JPEG_GRAY) return SS_JPEGQ_DECLINED;
    if (scale_num != 1 && scale_num != 2) return SS_JPEGQ_DECLINED;
    if (len < 4 || data[0] != 0xFF || data[1] != 0xD8) return SS_JPEGQ_DECLINED;

    uint16_t qt[4][64];
    int qdefined[4] = {0, 0, 0, 0};
    huff *hts = calloc(8, sizeof(huff));  // DC 0-3, AC 0-3
    if (!hts) return SS_JPEGQ_DECLINED;
    int result = SS_JPEGQ_DECLINED;
    comp comps[3];
    int ncomp = 0, width = 0, height = 0, restart = 0, saw_frame = 0, saw_jfif = 0;
    uint8_t *seg = NULL, *planes = NULL;
    uint32_t *soabuf = NULL;
    size_t *rst = NULL;
    size_t pos = 2;

    // The markers up to the scan.
    for (;;) {
        if (pos + 4 > len || data[pos] != 0xFF) goto out;
        int m = data[pos + 1];
        if (m == 0xFF) goto out;  // fill bytes: libjpeg takes them, but no encoder writes them here
        int L = be16(data + pos + 2);
        if (L < 2 || pos + 2 + (size_t)L > len) goto out;
        const uint8_t *s = data + pos + 4;
        int n = L - 2;
        if (m == 0xE0) {
            if (n >= 5 && memcmp(s, "JFIF", 5) == 0) {
                if (n < 14 || s[5] != 1) goto out;  // libjpeg warns about other major versions
                saw_jfif = 1;
            }
        } else if (m == 0xEE) {
            if (n >= 5 && memcmp(s, "Adobe", 5) == 0) goto out;  // its transform flag decides the colours
        } else if ((m >= 0xE1 && m <= 0xEF) || m == 0xFE) {
            // other application segments and comments: skipped
        } else if (m == 0xDB) {
            while (n > 0) {
                int pq = s[0] >> 4, tq = s[0] & 15;
                if (pq > 1 || tq > 3 || n < 1 + 64 * (pq + 1)) goto out;
                for (int i = 0; i < 64; i++) {
                    int v = pq ? be16(s + 1 + 2 * i) : s[1 + i];
                    if (v == 0) goto out;  // libjpeg would divide by it nowhere, but no encoder writes 0
                    qt[tq][zigzag[i]] = (uint16_t)v;
                }
                qdefined[tq] = 1;
                s += 1 + 64 * (pq + 1);
                n -= 1 + 64 * (pq + 1);
            }
        } else if (m == 0xC4) {
            while (n > 0) {
                if (n < 17) goto out;
                int tc = s[0] >> 4, th = s[0] & 15;
                if (tc > 1 || th > 3) goto out;
                int total = 0;
                for (int i = 0; i < 16; i++) total += s[1 + i];
                if (total > 256 || n < 17 + total) goto out;
                huff *h = &hts[tc * 4 + th];
                if (build_huffman(h, s + 1) != 0) goto out;
                memcpy(h->values, s + 17, (size_t)total);
                if (tc == 0)
                    for (int i = 0; i < total; i++)
                        if (h->values[i] > 15) goto out;  // libjpeg refuses the table
                build_fast_values(h, tc == 1);
                h->defined = 1;
                s += 17 + total;
                n -= 17 + total;
            }
        } else if (m == 0xDD) {
            if (n != 2) goto out;
            restart = be16(s);
        } else if (m == 0xC0 || m == 0xC1) {
            if (saw_frame || n < 6 || s[0] != 8) goto out;
            height = be16(s + 1);
            width = be16(s + 3);
            ncomp = s[5];
            if (height == 0 || width == 0 || (ncomp != 1 && ncomp != 3) || n != 6 + 3 * ncomp) goto out;
            for (int i = 0; i < ncomp; i++) {
                comps[i].id = s[6 + 3 * i];
                comps[i].h = s[7 + 3 * i] >> 4;
                comps[i].v = s[7 + 3 * i] & 15;
                comps[i].tq = s[8 + 3 * i];
                if (comps[i].tq > 3 || comps[i].h < 1 || comps[i].v < 1 || comps[i].h > 4 || comps[i].v > 4) goto out;
            }
            if (ncomp == 3) {
                // Chroma at 1×1 under luma at 1×1, 2×1 or 2×2, or all three alike (what ffmpeg
                // writes: 1×2 each is 4:4:4 in MCUs of two blocks).
                int h = comps[0].h, v = comps[0].v;
                int chroma11 = comps[1].h == 1 && comps[1].v == 1 && comps[2].h == 1 && comps[2].v == 1;
                int subsampled = chroma11 && ((h == 1 && v == 1) || (h == 2 && v == 1) || (h == 2 && v == 2));
                // (An MCU holds at most 10 blocks, or libjpeg stops: alike 2×2 is out.)
                int alike = h * v <= 2 && comps[1].h == h && comps[1].v == v && comps[2].h == h && comps[2].v == v;
                if (!subsampled && !alike) goto out;
                // Without JFIF, libjpeg reads components named R, G, B as RGB.
                if (!saw_jfif && comps[0].id == 'R' && comps[1].id == 'G' && comps[2].id == 'B') goto out;
            } else {
                comps[0].h = comps[0].v = 1;  // a single-component scan is never interleaved
            }
            saw_frame = 1;
        } else if (m == 0xDA) {
            if (!saw_frame || n < 1) goto out;
            int ns = s[0];
            if (ns != ncomp || n != 4 + 2 * ns) goto out;
            for (int i = 0; i < ns; i++) {
                if (s[1 + 2 * i] != comps[i].id) goto out;
                comps[i].td = s[2 + 2 * i] >> 4;
                comps[i].ta = s[2 + 2 * i] & 15;
                if (comps[i].td > 3 || comps[i].ta > 3) goto out;
                if (!hts[comps[i].td].defined || !hts[4 + comps[i].ta].defined || !qdefined[comps[i].tq]) goto out;
            }
            if (s[1 + 2 * ns] != 0 || s[2 + 2 * ns] != 63 || s[3 + 2 * ns] != 0) goto out;
            pos += 2 + (size_t)L;
            break;
        } else {
            goto out;  // SOF2 and the other processes, DNL, EOI before a scan, anything else
        }
        pos += 2 + (size_t)L;
    }
    // The IDs must differ, or libjpeg would match scan components otherwise.
    if (ncomp == 3 && (comps[0].id == comps[1].id || comps[0].id == comps[2].id || comps[1].id == comps[2].id)) goto out;

    // libjpeg's output size: jdiv_round_up(side × scale_num, 8).
    int ow = (width * scale_num + 7) / 8, oh = (height * scale_num + 7) / 8;
    int channels = layout == SS_JPEG_GRAY ? 1 : layout == SS_JPEG_RGBX ? 4 : 3;
    if ((size_t)ow * (size_t)oh * (size_t)channels != dest_len) goto out;

    // The entropy-coded segment, unstuffed, with where each restart marker stood.
    {
        size_t avail = len - pos;
        seg = malloc(avail + 4096);
        size_t nrst_cap = restart ? 64 : 0, nrst = 0;
        if (restart) rst = malloc(nrst_cap * sizeof(size_t));
        if (!seg || (restart && !rst)) goto out;
        const uint8_t *src = data + pos, *end = data + len;
        size_t o = 0;
        int ended = 0;
        while (src < end) {
            const uint8_t *ff = memchr(src, 0xFF, (size_t)(end - src));
            size_t run = ff ? (size_t)(ff - src) : (size_t)(end - src);
            memcpy(seg + o, src, run);
            o += run;
            if (!ff) {
                src = end;
                break;
            }
            if (ff + 1 >= end) goto out;
            int m = ff[1];
            if (m == 0x00) {
                seg[o++] = 0xFF;
                src = ff + 2;
            } else if (m >= 0xD0 && m <= 0xD7 && restart) {
                if ((int)(nrst & 7) != m - 0xD0) goto out;
                if (nrst == nrst_cap) {
                    nrst_cap *= 2;
                    size_t *grown = realloc(rst, nrst_cap * sizeof(size_t));
                    if (!grown) goto out;
                    rst = grown;
                }
                rst[nrst++] = o;
                src = ff + 2;
            } else if (m == 0xD9) {
                ended = 1;
                break;
            } else {
                goto out;  // another marker inside or after the scan: libjpeg's business
            }
        }
        if (!ended) goto out;  // no end marker: libjpeg warns
        size_t seglen = o;
        memset(seg + o, 0, 4096);

        int hmax = comps[0].h, vmax = comps[0].v;
        int mcuw = 8 * hmax, mcuh = 8 * vmax;
        int mcux = (width + mcuw - 1) / mcuw, mcuy = (height + mcuh - 1) / mcuh;
        long long mcus = (long long)mcux * mcuy;
        if (restart) {
            long long expected = (mcus - 1) / restart;
            if ((long long)nrst != expected) goto out;
        } else if (nrst) {
            goto out;
        }
        // Output samples per block side: scale_num for luma; a subsampled chroma block is scaled
        // up by its IDCT as far as that spares upsampling (jdmaster.c's loop, below: to 4 under
        // 2×2 luma at 1/4, to 2 at 1/8).
        size_t plane_bytes = 0;
        for (int i = 0; i < ncomp; i++) {
            int sc = scale_num;
            while (sc < 8 && (hmax * scale_num) % (comps[i].h * sc * 2) == 0 && (vmax * scale_num) % (comps[i].v * sc * 2) == 0) sc *= 2;
            if (sc > 4) goto out;
            comps[i].scaled = sc;
            comps[i].sums = sc == 4 ? ACC4 : sc == 2 ? ACC2 : ACC1;
            // Each plane row is an output row (no vertical upsampling) and a chroma sample
            // stands for one or two pixels across (the layouts taken).
            if (vmax * scale_num != comps[i].v * sc) goto out;
            int across = hmax * scale_num / (comps[i].h * sc);
            if ((across != 1 && across != 2) || across * comps[i].h * sc != hmax * scale_num) goto out;
            comps[i].stride = mcux * comps[i].h * sc;
            comps[i].pred = 0;
            plane_bytes += (size_t)comps[i].stride * (size_t)(comps[i].v * sc);
        }
        // The sums of an MCU row's blocks, per component and block row (see finish_2x2).
        size_t soa_words = 0;
        for (int i = 0; i < ncomp; i++) soa_words += (size_t)comps[i].v * (size_t)(comps[i].sums + 1) * (size_t)(mcux * comps[i].h);
        planes = malloc(plane_bytes);
        soabuf = malloc(soa_words * sizeof(u32));
        if (!planes || !soabuf) goto out;
        u32 *soa[3], *sp = soabuf;
        for (int i = 0; i < ncomp; i++) {
            soa[i] = sp;
            sp += (size_t)comps[i].v * (size_t)(comps[i].sums + 1) * (size_t)(mcux * comps[i].h);
        }
        uint8_t *pp = planes;
        for (int i = 0; i < ncomp; i++) {
            comps[i].plane = pp;
            pp += (size_t)comps[i].stride * (size_t)(comps[i].v * comps[i].scaled);
        }

        bitreader br = {seg, 0, 0};
        refill(&br);
        plan plans[3];
        for (int i = 0; i < ncomp; i++) make_plan(&plans[i], qt[comps[i].tq], comps[i].scaled, mcux * comps[i].h);
        long long done = 0;
        size_t next_rst = 0;
        int rows_per_mcu = mcuh * scale_num / 8;  // output rows an MCU row makes
        for (int my = 0; my < mcuy; my++) {
            memset(soabuf, 0, soa_words * sizeof(u32));
            for (int mx = 0; mx < mcux; mx++) {
                if (restart && done > 0 && done % restart == 0) {
                    // The segment must end exactly at its marker (its last byte padded with 1s).
                    size_t consumed = (size_t)(br.p - seg) - (size_t)(br.n >> 3);
                    if (consumed != rst[next_rst]) goto out;
                    br.p = seg + rst[next_rst++];
                    br.bits = 0;
                    br.n = 0;
                    refill(&br);
                    for (int i = 0; i < ncomp; i++) comps[i].pred = 0;
                }
                for (int i = 0; i < ncomp; i++) {
                    comp *c = &comps[i];
                    const huff *dc = &hts[c->td], *ac = &hts[4 + c->ta];
                    int n = mcux * c->h;  // blocks across
                    for (int by = 0; by < c->v; by++)
                        for (int bx = 0; bx < c->h; bx++) {
                            int col = mx * c->h + bx;
                            u32 *sums = soa[i] + (size_t)by * (size_t)(c->sums + 1) * n + col;
                            if (c->scaled == 4) {
                                if (decode_block(&br, &plans[i], 1, sums, dc, ac, &c->pred) < 0) goto out;
                            } else {
                                if (decode_block(&br, &plans[i], 0, sums, dc, ac, &c->pred) < 0) goto out;
                            }
                        }
                }
                done++;
                if (br.p > seg + seglen + 8) goto out;  // ran past the data: libjpeg would warn
            }
            // The row's samples, from the sums.
            for (int i = 0; i < ncomp; i++) {
                comp *c = &comps[i];
                int n = mcux * c->h;
                for (int by = 0; by < c->v; by++) {
                    uint8_t *row = c->plane + (size_t)(by * c->scaled) * c->stride;
                    u32 *sums = soa[i] + (size_t)by * (size_t)(c->sums + 1) * n;
                    if (c->scaled == 1)
                        finish_1x1(sums, n, row);
                    else if (c->scaled == 2)
                        finish_2x2(sums, n, row, row + c->stride);
                    else
                        finish_4x4(sums, n, row, row + c->stride, row + 2 * c->stride, row + 3 * c->stride);
                }
            }
            // This MCU row's output rows, cropped to the picture.
            for (int r = 0; r < rows_per_mcu; r++) {
                int y = my * rows_per_mcu + r;
                if (y >= oh) break;
                uint8_t *d = dest + (size_t)y * (size_t)ow * (size_t)channels;
                const uint8_t *Y = comps[0].plane + (size_t)r * comps[0].stride;
                if (ncomp == 1 || layout == SS_JPEG_GRAY) {
                    if (channels == 1) {
                        memcpy(d, Y, (size_t)ow);
                    } else {
                        for (int x = 0; x < ow; x++) {
                            d[0] = d[1] = d[2] = Y[x];
                            if (channels == 4) d[3] = 0xFF;
                            d += channels;
                        }
                    }
                    continue;
                }
                // The chroma planes have as many rows as the output (2×2 files: chroma scaled
                // to 4×4 a block); 2×1 files replicate each chroma sample across two pixels
                // (libjpeg's h2v1 merged upsampling).
                const uint8_t *Cb = comps[1].plane + (size_t)r * comps[1].stride;
                const uint8_t *Cr = comps[2].plane + (size_t)r * comps[2].stride;
                int xshift = (hmax * scale_num) / (comps[1].h * comps[1].scaled) == 2 ? 1 : 0;
                ycc_row(Y, Cb, Cr, xshift, ow, channels, d);
            }
        }
        // The data must end where the scan does: leftover bytes make libjpeg warn.
        size_t consumed = (size_t)(br.p - seg) - (size_t)(br.n >> 3);
        if (consumed != seglen) goto out;
        *image_width = width;
        *image_height = height;
        result = 0;
    }
out:
    free(hts);
    free(seg);
    free(planes);
    free(soabuf);
    free(rst);
    return result;
}
