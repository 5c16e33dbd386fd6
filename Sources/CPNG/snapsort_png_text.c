// libpng's full write API, for what the simplified API cannot do: tEXt chunks.
// libpng reports errors by longjmp; setjmp stays in this function and nothing here is Swift.
#include "snapsort_png_text.h"
#include <png.h>
#include "snapsort_png_errors.h"
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    unsigned char *data;
    size_t len;
    size_t cap;
    int failed;
} sink;

static void on_write(png_structp png, png_bytep data, png_size_t n) {
    sink *s = png_get_io_ptr(png);
    if (s->failed) return;
    if (s->len + n > s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 65536;
        while (cap < s->len + n) cap *= 2;
        unsigned char *t = realloc(s->data, cap);
        if (!t) {
            s->failed = 1;
            return;
        }
        s->data = t;
        s->cap = cap;
    }
    memcpy(s->data + s->len, data, n);
    s->len += n;
}

static void on_flush(png_structp png) { (void)png; }

int ss_png_encode_text(const unsigned char *pixels, int width, int height, int components,
                       const char *const *keys, const char *const *values, int count,
                       unsigned char **out, size_t *out_len, char message[SS_PNG_TEXT_MSG]) {
    *out = NULL;
    *out_len = 0;
    int color;
    switch (components) {
    case 1: color = PNG_COLOR_TYPE_GRAY; break;
    case 3: color = PNG_COLOR_TYPE_RGB; break;
    case 4: color = PNG_COLOR_TYPE_RGB_ALPHA; break;
    default:
        snprintf(message, SS_PNG_TEXT_MSG, "unsupported component count %d", components);
        return -1;
    }
    if (width <= 0 || height <= 0 || count < 0 || count > 32) {
        snprintf(message, SS_PNG_TEXT_MSG, "invalid image size or text count");
        return -1;
    }
    error_state err = {message, SS_PNG_TEXT_MSG};
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &err, on_error, on_warning);
    if (!png) {
        snprintf(message, SS_PNG_TEXT_MSG, "out of memory");
        return -1;
    }
    png_infop info = png_create_info_struct(png);
    // Volatile: read after a longjmp back into this frame.
    sink *volatile s = calloc(1, sizeof(sink));
    png_textp volatile text = calloc((size_t)(count ? count : 1), sizeof(png_text));
    if (!info || !s || !text) {
        snprintf(message, SS_PNG_TEXT_MSG, "out of memory");
        png_destroy_write_struct(&png, info ? &info : NULL);
        free(s);
        free(text);
        return -1;
    }
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        free(s->data);
        free(s);
        free(text);
        return -1;
    }
    png_set_write_fn(png, s, on_write, on_flush);
    png_set_IHDR(png, info, (png_uint_32)width, (png_uint_32)height, 8, color, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    for (int i = 0; i < count; i++) {
        text[i].compression = PNG_TEXT_COMPRESSION_NONE;
        text[i].key = (png_charp)keys[i];
        text[i].text = (png_charp)values[i];
        text[i].text_length = strlen(values[i]);
    }
    if (count > 0) png_set_text(png, info, text, count);
    png_write_info(png, info);
    size_t stride = (size_t)width * (size_t)components;
    for (int y = 0; y < height; y++) png_write_row(png, (png_const_bytep)(pixels + stride * (size_t)y));
    png_write_end(png, info);
    png_destroy_write_struct(&png, &info);
    free(text);
    if (s->failed) {
        snprintf(message, SS_PNG_TEXT_MSG, "out of memory");
        free(s->data);
        free(s);
        return -1;
    }
    *out = s->data;
    *out_len = s->len;
    free(s);
    return 0;
}
