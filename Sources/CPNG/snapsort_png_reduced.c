// libpng's row API, for what the simplified API cannot do: decode a PNG larger than the
// analysis's pixel budget (a stitched panorama, a long scrolling screenshot) straight to a
// reduced size, one row at a time, so memory stays a few rows however large the picture.
// libpng reports errors by longjmp; setjmp stays in this function and nothing here is Swift.
#include "snapsort_png_reduced.h"
#include <png.h>
#include "snapsort_png_errors.h"
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const unsigned char *data;
    size_t len;
    size_t at;
} source;

static void on_read(png_structp png, png_bytep out, png_size_t n) {
    source *s = png_get_io_ptr(png);
    if (n > s->len - s->at) png_error(png, "the PNG data is cut short");
    memcpy(out, s->data + s->at, n);
    s->at += n;
}

int ss_png_decode_reduced(const unsigned char *data, size_t len, int max_long_side, long long max_pixels,
                          unsigned char **out, int *out_width, int *out_height, char message[SS_PNG_REDUCED_MSG]) {
    *out = NULL;
    message[0] = 0;
    error_state err = {message, SS_PNG_REDUCED_MSG};
    source src = {data, len, 0};
    // Everything a longjmp may leave behind is volatile and freed after it.
    unsigned char *volatile row = NULL;
    uint32_t *volatile sums = NULL;
    int *volatile column = NULL;
    unsigned char *volatile result = NULL;
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &err, on_error, on_warning);
    if (!png) { snprintf(message, SS_PNG_REDUCED_MSG, "out of memory"); return -1; }
    png_infop info = png_create_info_struct(png);
    if (!info) { png_destroy_read_struct(&png, NULL, NULL); snprintf(message, SS_PNG_REDUCED_MSG, "out of memory"); return -1; }
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_read_struct(&png, &info, NULL);
        free(row); free(sums); free(column); free(result);
        if (!message[0]) snprintf(message, SS_PNG_REDUCED_MSG, "libpng error");
        return -1;
    }
    png_set_read_fn(png, &src, on_read);
    // The header's own limits are the caller's (max_pixels); libpng's default row limit
    // (1 000 000) would refuse a long screenshot.
    png_set_user_limits(png, 0x7fffffff, 0x7fffffff);
    png_read_info(png, info);
    png_uint_32 w = png_get_image_width(png, info), h = png_get_image_height(png, info);
    if ((long long)w * (long long)h > max_pixels) {
        png_destroy_read_struct(&png, &info, NULL);
        snprintf(message, SS_PNG_REDUCED_MSG, "image is %ux%u, over the %lld pixel limit", w, h, max_pixels);
        return -2;
    }
    if (png_get_interlace_type(png, info) != PNG_INTERLACE_NONE) {
        // Adam7 rows arrive in seven passes: reducing them needs the whole picture in memory.
        png_destroy_read_struct(&png, &info, NULL);
        snprintf(message, SS_PNG_REDUCED_MSG, "an interlaced PNG of %ux%u pixels is too large to read row by row", w, h);
        return -2;
    }
    // 8-bit RGB, alpha composited on white (as the simplified API's decode does).
    png_set_expand(png);
    png_set_strip_16(png);
    png_set_gray_to_rgb(png);
    png_color_16 white = {0, 255, 255, 255, 255};
    png_set_background(png, &white, PNG_BACKGROUND_GAMMA_SCREEN, 0, 1.0);
    png_read_update_info(png, info);
    if (png_get_rowbytes(png, info) != (size_t)w * 3) png_error(png, "unexpected row layout after the transformations");
    int long_side = w > h ? (int)w : (int)h;
    int tw = (int)w, th = (int)h;
    if (max_long_side > 0 && long_side > max_long_side) {
        double s = (double)max_long_side / long_side;
        tw = (int)(w * s + 0.5); th = (int)(h * s + 0.5);
        if (tw < 1) tw = 1;
        if (th < 1) th = 1;
    }
    row = malloc((size_t)w * 3);
    sums = calloc((size_t)tw * 3, sizeof(uint32_t));
    column = malloc(sizeof(int) * w);
    result = malloc((size_t)tw * th * 3);
    if (!row || !sums || !column || !result) png_error(png, "out of memory");
    // Each target pixel averages its box of source pixels: column x goes to x·tw/w, row y to y·th/h.
    for (png_uint_32 x = 0; x < w; x++) column[x] = (int)((unsigned long long)x * tw / w);
    int target = 0;
    uint32_t rows_in = 0;
    for (png_uint_32 y = 0; y < h; y++) {
        png_read_row(png, row, NULL);
        for (png_uint_32 x = 0; x < w; x++) {
            uint32_t *s = sums + column[x] * 3;
            s[0] += row[x * 3]; s[1] += row[x * 3 + 1]; s[2] += row[x * 3 + 2];
        }
        rows_in++;
        int next = y + 1 < h ? (int)((unsigned long long)(y + 1) * th / h) : th;
        if (next != target) {
            // The box's width: the source columns of each target column (boxes differ by one at most).
            for (int tx = 0; tx < tw; tx++) {
                unsigned long long x0 = ((unsigned long long)tx * w + tw - 1) / tw, x1 = ((unsigned long long)(tx + 1) * w + tw - 1) / tw;
                uint32_t n = (uint32_t)(x1 - x0) * rows_in;
                for (int c = 0; c < 3; c++) {
                    uint32_t v = n ? (sums[tx * 3 + c] + n / 2) / n : 0;
                    result[((size_t)target * tw + tx) * 3 + c] = (unsigned char)(v > 255 ? 255 : v);
                }
            }
            memset(sums, 0, (size_t)tw * 3 * sizeof(uint32_t));
            rows_in = 0;
            target = next;
        }
    }
    png_destroy_read_struct(&png, &info, NULL);
    free(row); free(sums); free(column);
    *out = result;
    *out_width = tw;
    *out_height = th;
    return 0;
}
