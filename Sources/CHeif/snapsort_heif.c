// libheif behind a status-code shim: libheif reports errors as struct heif_error values (no
// longjmp); the shim turns them into an int and a message, and owns every handle it opens.
// See: libheif/heif.h.
#include "snapsort_heif.h"
#include "snapsort_lazylib.h"
#include <libheif/heif.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// libheif is opened on first use (see snapsort_lazylib.h): with its codecs (libde265, x265,
// dav1d, libaom) it cost every snapsort process ~6 ms to load, and only HEIC files need it.
#define HEIF_FUNCTIONS(X) \
    X(heif_image_handle_get_list_of_metadata_block_IDs) \
    X(heif_image_handle_get_list_of_thumbnail_IDs) \
    X(heif_context_add_exif_metadata) \
    X(heif_context_alloc) \
    X(heif_context_encode_image) \
    X(heif_context_encode_thumbnail) \
    X(heif_context_free) \
    X(heif_context_get_encoder_for_format) \
    X(heif_context_get_primary_image_handle) \
    X(heif_context_read_from_memory_without_copy) \
    X(heif_context_write) \
    X(heif_decode_image) \
    X(heif_encoder_release) \
    X(heif_encoder_set_lossy_quality) \
    X(heif_have_encoder_for_format) \
    X(heif_image_add_plane) \
    X(heif_image_create) \
    X(heif_image_get_height) \
    X(heif_image_get_plane) \
    X(heif_image_get_plane_readonly) \
    X(heif_image_get_width) \
    X(heif_image_handle_get_height) \
    X(heif_image_handle_get_metadata) \
    X(heif_image_handle_get_metadata_size) \
    X(heif_image_handle_get_number_of_thumbnails) \
    X(heif_image_handle_get_thumbnail) \
    X(heif_image_handle_get_width) \
    X(heif_image_handle_has_alpha_channel) \
    X(heif_image_handle_release) \
    X(heif_image_release)
static struct { HEIF_FUNCTIONS(SS_LAZY_FIELD) } hf;
static const char *const heif_functions[] = {HEIF_FUNCTIONS(SS_LAZY_NAME)};
static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static int heif_loaded = 0;

static void load_heif(void) {
    static const char *const sonames[] = {"libheif.so.1"};
    char error[200];
    heif_loaded = ss_lazy_open(sonames, 1, heif_functions, sizeof heif_functions / sizeof *heif_functions,
                               (void **)&hf, error, sizeof error) != NULL;
}
_Static_assert(sizeof hf == sizeof heif_functions, "one pointer per function");

// 1 once libheif is open (the first call opens it).
static int have_heif(void) {
    pthread_once(&load_once, load_heif);
    return heif_loaded;
}

#define SS_NO_HEIF "libheif is not installed (libheif.so.1)"

static int fail(char *msg, struct heif_error e, const char *what) {
    snprintf(msg, SS_HEIF_MSG, "%s: %s", what, e.message ? e.message : "error");
    return -1;
}

// Copies an interleaved RGB image out of libheif (rows may be padded: use the stride).
static int copy_rgb(const struct heif_image *img, ss_heif_result *out) {
    int stride = 0;
    const uint8_t *p = hf.heif_image_get_plane_readonly(img, heif_channel_interleaved, &stride);
    int w = hf.heif_image_get_width(img, heif_channel_interleaved);
    int h = hf.heif_image_get_height(img, heif_channel_interleaved);
    if (!p || w <= 0 || h <= 0 || stride < w * 3) {
        snprintf(out->message, SS_HEIF_MSG, "decoded image has no RGB plane");
        return -1;
    }
    out->pixels = malloc((size_t)w * (size_t)h * 3);
    if (!out->pixels) { snprintf(out->message, SS_HEIF_MSG, "out of memory"); return -1; }
    for (int y = 0; y < h; y++) memcpy(out->pixels + (size_t)y * (size_t)w * 3, p + (size_t)y * (size_t)stride, (size_t)w * 3);
    out->out_width = w;
    out->out_height = h;
    return 0;
}

static void read_exif(const struct heif_image_handle *h, ss_heif_result *out) {
    heif_item_id id;
    if (hf.heif_image_handle_get_list_of_metadata_block_IDs(h, "Exif", &id, 1) < 1) return;
    size_t n = hf.heif_image_handle_get_metadata_size(h, id);
    if (n < 4 + 8 || n > 4 * 1024 * 1024) return;
    unsigned char *buf = malloc(n);
    if (!buf) return;
    struct heif_error e = hf.heif_image_handle_get_metadata(h, id, buf);
    if (e.code != heif_error_Ok) { free(buf); return; }
    // ISO/IEC 23008-12 A.2.1: a 4-byte big-endian offset to the TIFF header, then the data
    // (often "Exif\0\0" + TIFF). Never trust the offset: bound it by the block.
    size_t off = ((size_t)buf[0] << 24) | ((size_t)buf[1] << 16) | ((size_t)buf[2] << 8) | buf[3];
    size_t start = 4 + off;
    if (off > n || start + 8 > n) {
        // No offset prefix (some writers): the block starts with the TIFF header or "Exif".
        int tiff = (buf[0] == 'I' && buf[1] == 'I') || (buf[0] == 'M' && buf[1] == 'M') || buf[0] == 'E';
        start = tiff ? 0 : 4;
    }
    out->exif = malloc(n - start);
    if (out->exif) { memcpy(out->exif, buf + start, n - start); out->exif_len = n - start; }
    free(buf);
}

int ss_heif_analyze(const unsigned char *data, size_t len, int decode, int min_thumb_long_side,
                    long long max_header_pixels, long long max_decode_pixels, ss_heif_result *out) {
    memset(out, 0, sizeof *out);
    if (!have_heif()) { snprintf(out->message, SS_HEIF_MSG, SS_NO_HEIF); return -1; }
    struct heif_context *ctx = hf.heif_context_alloc();
    struct heif_image_handle *primary = NULL, *thumb = NULL;
    struct heif_image *img = NULL;
    int rc = -1;
    if (!ctx) { snprintf(out->message, SS_HEIF_MSG, "out of memory"); return -1; }
    struct heif_error e = hf.heif_context_read_from_memory_without_copy(ctx, data, len, NULL);
    if (e.code != heif_error_Ok) { rc = fail(out->message, e, "not a readable HEIF"); goto done; }
    e = hf.heif_context_get_primary_image_handle(ctx, &primary);
    if (e.code != heif_error_Ok) { rc = fail(out->message, e, "no primary image"); goto done; }
    out->width = hf.heif_image_handle_get_width(primary);
    out->height = hf.heif_image_handle_get_height(primary);
    out->has_alpha = hf.heif_image_handle_has_alpha_channel(primary);
    read_exif(primary, out);
    if ((long long)out->width * (long long)out->height > max_header_pixels || out->width <= 0 || out->height <= 0) {
        snprintf(out->message, SS_HEIF_MSG, "image is %dx%d, over the %lld pixel limit", out->width, out->height, max_header_pixels);
        rc = out->width <= 0 || out->height <= 0 ? -1 : -2;
        goto done;
    }
    heif_item_id ids[16];
    int n = hf.heif_image_handle_get_list_of_thumbnail_IDs(primary, ids, 16);
    out->thumbnails = hf.heif_image_handle_get_number_of_thumbnails(primary);
    struct heif_image_handle *best = NULL;
    long long best_px = 0;
    for (int i = 0; i < n; i++) {
        struct heif_image_handle *t = NULL;
        if (hf.heif_image_handle_get_thumbnail(primary, ids[i], &t).code != heif_error_Ok) continue;
        long long px = (long long)hf.heif_image_handle_get_width(t) * hf.heif_image_handle_get_height(t);
        if (px > best_px && px <= max_decode_pixels) {
            if (best) hf.heif_image_handle_release(best);
            best = t;
            best_px = px;
        } else {
            hf.heif_image_handle_release(t);
        }
    }
    if (best) {
        out->thumb_width = hf.heif_image_handle_get_width(best);
        out->thumb_height = hf.heif_image_handle_get_height(best);
        int long_side = out->thumb_width > out->thumb_height ? out->thumb_width : out->thumb_height;
        if (long_side >= min_thumb_long_side) thumb = best; else hf.heif_image_handle_release(best);
    }
    if (!decode) { rc = 0; goto done; }
    struct heif_image_handle *which = thumb ? thumb : primary;
    if (!thumb && (long long)out->width * (long long)out->height > max_decode_pixels) {
        snprintf(out->message, SS_HEIF_MSG, "image is %dx%d, over the %lld pixel decode limit", out->width, out->height, max_decode_pixels);
        rc = -2;
        goto done;
    }
    e = hf.heif_decode_image(which, &img, heif_colorspace_RGB, heif_chroma_interleaved_RGB, NULL);
    if (e.code != heif_error_Ok) { rc = fail(out->message, e, "HEIF decode"); goto done; }
    out->from_thumbnail = thumb ? 1 : 0;
    rc = copy_rgb(img, out);
done:
    if (img) hf.heif_image_release(img);
    if (thumb) hf.heif_image_handle_release(thumb);
    if (primary) hf.heif_image_handle_release(primary);
    hf.heif_context_free(ctx);
    return rc;
}

void ss_heif_release(ss_heif_result *r) {
    free(r->pixels);
    free(r->exif);
    r->pixels = NULL;
    r->exif = NULL;
}

int ss_heif_can_encode(void) { return have_heif() && hf.heif_have_encoder_for_format(heif_compression_HEVC) ? 1 : 0; }

struct mem_writer { unsigned char *p; size_t n; };
static struct heif_error write_mem(struct heif_context *ctx, const void *data, size_t size, void *user) {
    (void)ctx;
    struct mem_writer *w = user;
    struct heif_error ok = {heif_error_Ok, heif_suberror_Unspecified, "ok"};
    unsigned char *p = malloc(size ? size : 1);
    if (!p) { struct heif_error e = {heif_error_Memory_allocation_error, heif_suberror_Unspecified, "oom"}; return e; }
    memcpy(p, data, size);
    free(w->p);
    w->p = p;
    w->n = size;
    return ok;
}

int ss_heif_encode(const unsigned char *rgb, int width, int height, int quality, int thumb_long_side,
                   const unsigned char *exif, size_t exif_len, unsigned char **out, size_t *out_len,
                   char message[SS_HEIF_MSG]) {
    *out = NULL;
    *out_len = 0;
    if (!have_heif()) { snprintf(message, SS_HEIF_MSG, SS_NO_HEIF); return -1; }
    struct heif_context *ctx = hf.heif_context_alloc();
    struct heif_encoder *enc = NULL;
    struct heif_image *img = NULL;
    struct heif_image_handle *h = NULL, *th = NULL;
    struct mem_writer w = {NULL, 0};
    int rc = -1;
    struct heif_error e = hf.heif_context_get_encoder_for_format(ctx, heif_compression_HEVC, &enc);
    if (e.code != heif_error_Ok) { rc = fail(message, e, "no HEVC encoder"); goto done; }
    hf.heif_encoder_set_lossy_quality(enc, quality);
    e = hf.heif_image_create(width, height, heif_colorspace_RGB, heif_chroma_interleaved_RGB, &img);
    if (e.code != heif_error_Ok) { rc = fail(message, e, "image"); goto done; }
    e = hf.heif_image_add_plane(img, heif_channel_interleaved, width, height, 8);
    if (e.code != heif_error_Ok) { rc = fail(message, e, "plane"); goto done; }
    int stride = 0;
    uint8_t *p = hf.heif_image_get_plane(img, heif_channel_interleaved, &stride);
    for (int y = 0; y < height; y++) memcpy(p + (size_t)y * (size_t)stride, rgb + (size_t)y * (size_t)width * 3, (size_t)width * 3);
    e = hf.heif_context_encode_image(ctx, img, enc, NULL, &h);
    if (e.code != heif_error_Ok) { rc = fail(message, e, "encode"); goto done; }
    if (thumb_long_side > 0) {
        e = hf.heif_context_encode_thumbnail(ctx, img, h, enc, NULL, thumb_long_side, &th);
        if (e.code != heif_error_Ok) { rc = fail(message, e, "thumbnail"); goto done; }
    }
    if (exif && exif_len > 0) {
        e = hf.heif_context_add_exif_metadata(ctx, h, exif, (int)exif_len);
        if (e.code != heif_error_Ok) { rc = fail(message, e, "exif"); goto done; }
    }
    struct heif_writer writer = {1, write_mem};
    e = hf.heif_context_write(ctx, &writer, &w);
    if (e.code != heif_error_Ok) { rc = fail(message, e, "write"); goto done; }
    *out = w.p;
    *out_len = w.n;
    w.p = NULL;
    rc = 0;
done:
    free(w.p);
    if (th) hf.heif_image_handle_release(th);
    if (h) hf.heif_image_handle_release(h);
    if (img) hf.heif_image_release(img);
    if (enc) hf.heif_encoder_release(enc);
    hf.heif_context_free(ctx);
    return rc;
}

void ss_heif_free(void *p) { free(p); }
