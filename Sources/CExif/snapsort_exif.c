#include "snapsort_exif.h"
#include <libexif/exif-data.h>
#include <libexif/exif-utils.h>
#include <stdlib.h>
#include <string.h>

static ExifEntry *find(ExifData *d, ExifIfd ifd, unsigned tag) {
    if (!d->ifd[ifd]) return NULL;
    return exif_content_get_entry(d->ifd[ifd], (ExifTag)tag);
}

static void copy_ascii(ExifEntry *e, char *dst, size_t cap) {
    dst[0] = 0;
    if (!e || !e->data || e->size == 0) return;
    if (e->format != EXIF_FORMAT_ASCII && e->format != EXIF_FORMAT_UNDEFINED) return;
    size_t n = e->size < cap - 1 ? e->size : cap - 1;
    memcpy(dst, e->data, n);
    dst[n] = 0;
    // Trim trailing spaces and stop at the first NUL or control character.
    for (size_t i = 0; i < n; i++) {
        if (dst[i] == 0) break;
        if ((unsigned char)dst[i] < 0x20) { dst[i] = 0; break; }
    }
    size_t l = strlen(dst);
    while (l > 0 && dst[l - 1] == ' ') dst[--l] = 0;
}

static long read_uint(ExifEntry *e, ExifByteOrder order) {
    if (!e || !e->data || e->components < 1) return -1;
    if (e->format == EXIF_FORMAT_SHORT && e->size >= 2) return exif_get_short(e->data, order);
    if (e->format == EXIF_FORMAT_LONG && e->size >= 4) return (long)exif_get_long(e->data, order);
    return -1;
}

static void count_entry(ExifEntry *e, void *user) { (void)e; (*(int *)user)++; }
static void count_content(ExifContent *c, void *user) { exif_content_foreach_entry(c, count_entry, user); }

// A well-formed TIFF block whose first IFD holds no entry (some editors write one): an empty
// EXIF, not a damaged one. The header's byte order and magic, and IFD0's count inside the block.
static int is_empty_tiff(const unsigned char *data, size_t len) {
    if (len >= 6 && memcmp(data, "Exif\0\0", 6) == 0) { data += 6; len -= 6; }
    if (len < 10) return 0;
    int le = data[0] == 'I' && data[1] == 'I' && data[2] == 42 && data[3] == 0;
    int be = data[0] == 'M' && data[1] == 'M' && data[2] == 0 && data[3] == 42;
    if (!le && !be) return 0;
    unsigned long off = le ? (unsigned long)data[4] | (unsigned long)data[5] << 8 | (unsigned long)data[6] << 16 | (unsigned long)data[7] << 24
                           : (unsigned long)data[7] | (unsigned long)data[6] << 8 | (unsigned long)data[5] << 16 | (unsigned long)data[4] << 24;
    if (off < 8 || off > len - 2) return 0;
    return data[off] == 0 && data[off + 1] == 0;
}

int ss_exif_parse(const unsigned char *data, size_t len, ss_exif *out) {
    memset(out, 0, sizeof *out);
    out->rating = -1;
    if (!data || len < 8) return -1;
    ExifData *d = exif_data_new();
    if (!d) return -1;
    // Read what is there; do not "fix" or add mandatory tags.
    exif_data_unset_option(d, EXIF_DATA_OPTION_FOLLOW_SPECIFICATION);
    exif_data_unset_option(d, EXIF_DATA_OPTION_IGNORE_UNKNOWN_TAGS);
    if (len >= 6 && memcmp(data, "Exif\0\0", 6) == 0) {
        exif_data_load_data(d, data, (unsigned)len);
    } else {
        // libexif wants the "Exif\0\0" prefix for a bare TIFF block.
        unsigned char *tmp = malloc(len + 6);
        if (!tmp) { exif_data_unref(d); return -1; }
        memcpy(tmp, "Exif\0\0", 6);
        memcpy(tmp + 6, data, len);
        exif_data_load_data(d, tmp, (unsigned)(len + 6));
        free(tmp);
    }
    exif_data_foreach_content(d, count_content, &out->entries);
    ExifByteOrder order = exif_data_get_byte_order(d);
    copy_ascii(find(d, EXIF_IFD_EXIF, 0x9003), out->datetime_original, sizeof out->datetime_original);
    copy_ascii(find(d, EXIF_IFD_EXIF, 0x9291), out->subsec_original, sizeof out->subsec_original);
    copy_ascii(find(d, EXIF_IFD_EXIF, 0x9011), out->offset_time_original, sizeof out->offset_time_original);
    copy_ascii(find(d, EXIF_IFD_0, 0x0132), out->datetime, sizeof out->datetime);
    copy_ascii(find(d, EXIF_IFD_0, 0x010f), out->make, sizeof out->make);
    copy_ascii(find(d, EXIF_IFD_0, 0x0110), out->model, sizeof out->model);
    copy_ascii(find(d, EXIF_IFD_EXIF, 0xa434), out->lens, sizeof out->lens);
    copy_ascii(find(d, EXIF_IFD_0, 0x0131), out->software, sizeof out->software);
    long o = read_uint(find(d, EXIF_IFD_0, 0x0112), order);
    out->orientation = (o >= 1 && o <= 8) ? (int)o : 0;
    long px = read_uint(find(d, EXIF_IFD_EXIF, 0xa002), order);
    long py = read_uint(find(d, EXIF_IFD_EXIF, 0xa003), order);
    out->pixel_x = px > 0 && px < 1000000 ? (int)px : 0;
    out->pixel_y = py > 0 && py < 1000000 ? (int)py : 0;
    long r = read_uint(find(d, EXIF_IFD_0, 0x4746), order);
    out->rating = (r >= 0 && r <= 5) ? (int)r : -1;
    out->has_gps = find(d, EXIF_IFD_GPS, 0x0002) != NULL ? 1 : 0;
    if (d->data && d->size > 0 && d->size < 1024 * 1024) {
        out->thumbnail = malloc(d->size);
        if (out->thumbnail) {
            memcpy(out->thumbnail, d->data, d->size);
            out->thumbnail_len = d->size;
        }
    }
    exif_data_unref(d);
    return out->entries > 0 || is_empty_tiff(data, len) ? 0 : -1;
}

void ss_exif_release(ss_exif *exif) {
    free(exif->thumbnail);
    exif->thumbnail = NULL;
    exif->thumbnail_len = 0;
}

// A tiny TIFF writer: IFD0 (Make, Model, Orientation, Software, ExifIFD pointer) and an
// Exif IFD (DateTimeOriginal, OffsetTimeOriginal). Little endian.
typedef struct { unsigned char *b; size_t n, cap; } buf;
static void put(buf *b, const void *p, size_t n) {
    if (b->n + n > b->cap) {
        size_t cap = (b->cap + n) * 2;
        unsigned char *nb = realloc(b->b, cap);
        if (!nb) return;
        b->b = nb; b->cap = cap;
    }
    memcpy(b->b + b->n, p, n);
    b->n += n;
}
static void put16(buf *b, unsigned v) { unsigned char x[2] = {v & 255, (v >> 8) & 255}; put(b, x, 2); }
static void put32(buf *b, unsigned long v) {
    unsigned char x[4] = {v & 255, (v >> 8) & 255, (v >> 16) & 255, (v >> 24) & 255}; put(b, x, 4);
}
static void set32(buf *b, size_t at, unsigned long v) {
    b->b[at] = v & 255; b->b[at + 1] = (v >> 8) & 255; b->b[at + 2] = (v >> 16) & 255; b->b[at + 3] = (v >> 24) & 255;
}

typedef struct { unsigned tag, type; const char *s; unsigned v; } ent;

static void write_ifd(buf *b, ent *e, int n, size_t *next_fixup) {
    // Values longer than 4 bytes go after the IFD.
    size_t start = b->n;
    put16(b, (unsigned)n);
    size_t data_at = start + 2 + (size_t)n * 12 + 4;
    size_t extra = 0;
    size_t fix[16];
    for (int i = 0; i < n; i++) {
        put16(b, e[i].tag);
        put16(b, e[i].type);
        if (e[i].type == 2) {
            size_t len = strlen(e[i].s) + 1;
            put32(b, len);
            if (len <= 4) {
                unsigned char v[4] = {0};
                memcpy(v, e[i].s, len);
                put(b, v, 4);
            } else {
                put32(b, data_at + extra);
                extra += len + (len & 1);
            }
        } else if (e[i].type == 3) {
            put32(b, 1); put16(b, e[i].v); put16(b, 0);
        } else {
            put32(b, 1);
            fix[i] = b->n;
            put32(b, e[i].v);
        }
    }
    *next_fixup = b->n;
    put32(b, 0);
    for (int i = 0; i < n; i++) {
        if (e[i].type == 2) {
            size_t len = strlen(e[i].s) + 1;
            if (len > 4) { put(b, e[i].s, len); if (len & 1) { unsigned char z = 0; put(b, &z, 1); } }
        }
    }
    (void)fix;
}

unsigned char *ss_exif_build(const char *datetime_original, const char *offset_time_original,
                             const char *make, const char *model, const char *software,
                             int orientation, size_t *out_len) {
    buf b = {0};
    put(&b, "II", 2); put16(&b, 42); put32(&b, 8);
    ent ifd0[6]; int n0 = 0;
    if (make) ifd0[n0++] = (ent){0x010f, 2, make, 0};
    if (model) ifd0[n0++] = (ent){0x0110, 2, model, 0};
    if (orientation >= 1 && orientation <= 8) ifd0[n0++] = (ent){0x0112, 3, NULL, (unsigned)orientation};
    if (software) ifd0[n0++] = (ent){0x0131, 2, software, 0};
    int has_exif = datetime_original || offset_time_original;
    if (has_exif) ifd0[n0++] = (ent){0x8769, 4, NULL, 0};
    size_t fix;
    size_t ifd0_at = b.n;
    write_ifd(&b, ifd0, n0, &fix);
    if (has_exif) {
        // Patch the ExifIFD pointer (the last entry of IFD0).
        size_t ptr_at = ifd0_at + 2 + (size_t)(n0 - 1) * 12 + 8;
        set32(&b, ptr_at, (unsigned long)b.n);
        ent ex[2]; int ne = 0;
        if (datetime_original) ex[ne++] = (ent){0x9003, 2, datetime_original, 0};
        if (offset_time_original) ex[ne++] = (ent){0x9011, 2, offset_time_original, 0};
        size_t fix2;
        write_ifd(&b, ex, ne, &fix2);
    }
    *out_len = b.n;
    return b.b;
}

void ss_exif_free(void *p) { free(p); }
