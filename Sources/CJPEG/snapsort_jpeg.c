// libjpeg's error_exit must not return: it longjmps back here, inside C, so no Swift frame
// is ever unwound by longjmp. See libjpeg.txt, "Error handling".
#include "snapsort_jpeg.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <errno.h>
#include <unistd.h>
#include <jpeglib.h>
#include <jerror.h>

typedef struct {
    struct jpeg_error_mgr pub;
    jmp_buf jump;
    ss_jpeg_info *info;
    char *message;
} ss_err;

static void ss_error_exit(j_common_ptr cinfo) {
    ss_err *err = (ss_err *)cinfo->err;
    if (err->message) (*cinfo->err->format_message)(cinfo, err->message);
    longjmp(err->jump, 1);
}

static void ss_emit_message(j_common_ptr cinfo, int level) {
    ss_err *err = (ss_err *)cinfo->err;
    if (level < 0) {  // a warning: corrupt data, premature end of data segment
        cinfo->err->num_warnings++;
        if (err->info && err->info->warnings == 0)
            (*cinfo->err->format_message)(cinfo, err->info->message);
        if (err->info) err->info->warnings++;
    }
}

static void ss_output_message(j_common_ptr cinfo) { (void)cinfo; }

static void setup_err(struct jpeg_decompress_struct *cinfo, ss_err *err, ss_jpeg_info *info) {
    cinfo->err = jpeg_std_error(&err->pub);
    err->pub.error_exit = ss_error_exit;
    err->pub.emit_message = ss_emit_message;
    err->pub.output_message = ss_output_message;
    err->info = info;
    err->message = info->message;
}

// What a read header says, into `info` (both header readers: memory and file).
static void fill_header(const struct jpeg_decompress_struct *cinfo, ss_jpeg_info *info) {
    info->width = (int)cinfo->image_width;
    info->height = (int)cinfo->image_height;
    info->progressive = cinfo->progressive_mode ? 1 : 0;
    info->components = cinfo->num_components;
}

int ss_jpeg_read_header(const unsigned char *data, size_t len, ss_jpeg_info *info) {
    struct jpeg_decompress_struct cinfo;
    ss_err err;
    memset(info, 0, sizeof *info);
    setup_err(&cinfo, &err, info);
    if (setjmp(err.jump)) {
        jpeg_destroy_decompress(&cinfo);
        return -1;
    }
    jpeg_create_decompress(&cinfo);
    jpeg_mem_src(&cinfo, data, (unsigned long)len);
    jpeg_read_header(&cinfo, TRUE);
    fill_header(&cinfo, info);
    jpeg_destroy_decompress(&cinfo);
    return 0;
}

// A source manager reading a file descriptor through a fixed buffer (libjpeg.txt, "Compressed
// data handling"; as jdatasrc.c's stdio source, without stdio): a large file is decoded without
// being held in memory. At the end of the file it warns and inserts an EOI, as jdatasrc.c does.
#define SS_FD_BUFFER 65536
typedef struct {
    struct jpeg_source_mgr pub;
    int fd;
    JOCTET buffer[SS_FD_BUFFER];
} ss_fd_source;

static void fd_init_source(j_decompress_ptr cinfo) { (void)cinfo; }

static boolean fd_fill_input_buffer(j_decompress_ptr cinfo) {
    ss_fd_source *src = (ss_fd_source *)cinfo->src;
    ssize_t n;
    do {
        n = read(src->fd, src->buffer, SS_FD_BUFFER);
    } while (n < 0 && errno == EINTR);
    if (n <= 0) {
        WARNMS(cinfo, JWRN_JPEG_EOF);
        src->buffer[0] = (JOCTET)0xFF;
        src->buffer[1] = (JOCTET)JPEG_EOI;
        n = 2;
    }
    src->pub.next_input_byte = src->buffer;
    src->pub.bytes_in_buffer = (size_t)n;
    return TRUE;
}

static void fd_skip_input_data(j_decompress_ptr cinfo, long num_bytes) {
    struct jpeg_source_mgr *src = cinfo->src;
    if (num_bytes <= 0) return;
    while (num_bytes > (long)src->bytes_in_buffer) {
        num_bytes -= (long)src->bytes_in_buffer;
        (void)fd_fill_input_buffer(cinfo);
    }
    src->next_input_byte += (size_t)num_bytes;
    src->bytes_in_buffer -= (size_t)num_bytes;
}

static void fd_term_source(j_decompress_ptr cinfo) { (void)cinfo; }

static void fd_src(j_decompress_ptr cinfo, ss_fd_source *src, int fd) {
    memset(src, 0, sizeof *src);
    src->fd = fd;
    src->pub.init_source = fd_init_source;
    src->pub.fill_input_buffer = fd_fill_input_buffer;
    src->pub.skip_input_data = fd_skip_input_data;
    src->pub.resync_to_restart = jpeg_resync_to_restart;
    src->pub.term_source = fd_term_source;
    cinfo->src = &src->pub;
}

// The decode behind ss_jpeg_decode, ss_jpeg_decode_into and ss_jpeg_decode_fd: from `data`
// (len bytes) or, when data is NULL, from the descriptor `fd`; into `dest` (dest_len bytes,
// which must be the output's size) when given, else into a malloc'd buffer returned in *out.
static int decode(const unsigned char *data, size_t len, int fd, int scale_num, int mode,
                  long long max_header_pixels, long long max_out_pixels,
                  unsigned char *dest, size_t dest_len, unsigned char **out, ss_jpeg_info *info) {
    ss_fd_source *volatile fd_source = NULL;
    struct jpeg_decompress_struct cinfo;
    ss_err err;
    unsigned char *volatile buffer = NULL;
    memset(info, 0, sizeof *info);
    if (out) *out = NULL;
    int layout = mode & ~(SS_JPEG_FANCY | SS_JPEG_LIBJPEG);
    // The scan's decode (1/4 or 1/8, replicated chroma, into the caller's buffer) of a clean
    // baseline stream: the same pixels as below, without libjpeg's per-byte Huffman reader.
    if (data && dest && (scale_num == 1 || scale_num == 2) && !(mode & (SS_JPEG_FANCY | SS_JPEG_LIBJPEG))) {
        int w = 0, h = 0;
        if (ss_jpeg_reduced_into(data, len, scale_num, layout, dest, dest_len, &w, &h) == 0 &&
            (long long)w * (long long)h <= max_header_pixels) {
            info->width = w;
            info->height = h;
            info->out_width = (w * scale_num + 7) / 8;
            info->out_height = (h * scale_num + 7) / 8;
            info->components = layout == SS_JPEG_GRAY ? 1 : layout == SS_JPEG_RGBX ? 4 : 3;
            info->reduced = 1;
            return 0;
        }
    }
    if (!data) {
        fd_source = malloc(sizeof *fd_source);
        if (!fd_source) {
            snprintf(info->message, SS_JPEG_MSG, "out of memory");
            return -1;
        }
    }
    setup_err(&cinfo, &err, info);
    if (setjmp(err.jump)) {
        if (!dest) free(buffer);
        jpeg_destroy_decompress(&cinfo);
        free(fd_source);
        return -1;
    }
    jpeg_create_decompress(&cinfo);
    if (data)
        jpeg_mem_src(&cinfo, data, (unsigned long)len);
    else
        fd_src(&cinfo, fd_source, fd);
    jpeg_read_header(&cinfo, TRUE);
    info->width = (int)cinfo.image_width;
    info->height = (int)cinfo.image_height;
    info->progressive = cinfo.progressive_mode ? 1 : 0;
    if ((long long)cinfo.image_width * (long long)cinfo.image_height > max_header_pixels) {
        snprintf(info->message, SS_JPEG_MSG, "image is %ux%u, over the %lld pixel limit",
                 cinfo.image_width, cinfo.image_height, max_header_pixels);
        jpeg_destroy_decompress(&cinfo);
        free(fd_source);
        return -2;
    }
    if (scale_num < 1) scale_num = 1;
    if (scale_num > 8) scale_num = 8;
    cinfo.scale_num = (unsigned)scale_num;
    cinfo.scale_denom = 8;
    cinfo.out_color_space = layout == SS_JPEG_GRAY ? JCS_GRAYSCALE : layout == SS_JPEG_RGBX ? JCS_EXT_RGBX : JCS_RGB;
    cinfo.dct_method = JDCT_ISLOW;
    // The metrics do not need smooth chroma; it costs ~10 %.
    cinfo.do_fancy_upsampling = (mode & SS_JPEG_FANCY) ? TRUE : FALSE;
    jpeg_calc_output_dimensions(&cinfo);
    long long out_px = (long long)cinfo.output_width * (long long)cinfo.output_height;
    if (out_px > max_out_pixels) {
        snprintf(info->message, SS_JPEG_MSG, "decoded size %ux%u is over the %lld pixel limit",
                 cinfo.output_width, cinfo.output_height, max_out_pixels);
        jpeg_destroy_decompress(&cinfo);
        free(fd_source);
        return -2;
    }
    jpeg_start_decompress(&cinfo);
    info->out_width = (int)cinfo.output_width;
    info->out_height = (int)cinfo.output_height;
    info->components = cinfo.output_components;
    size_t stride = (size_t)cinfo.output_width * (size_t)cinfo.output_components;
    if (dest && stride * cinfo.output_height != dest_len) {
        snprintf(info->message, SS_JPEG_MSG, "decoded size %ux%ux%d is not the %zu bytes expected",
                 cinfo.output_width, cinfo.output_height, cinfo.output_components, dest_len);
        jpeg_destroy_decompress(&cinfo);
        free(fd_source);
        return -3;
    }
    buffer = dest ? dest : malloc(stride * cinfo.output_height + 1);
    if (!buffer) {
        snprintf(info->message, SS_JPEG_MSG, "out of memory");
        jpeg_destroy_decompress(&cinfo);
        free(fd_source);
        return -1;
    }
    while (cinfo.output_scanline < cinfo.output_height) {
        JSAMPROW rows[4];
        int n = 0;
        for (; n < 4 && cinfo.output_scanline + (unsigned)n < cinfo.output_height; n++)
            rows[n] = buffer + stride * (cinfo.output_scanline + (unsigned)n);
        if (jpeg_read_scanlines(&cinfo, rows, (JDIMENSION)n) == 0) break;
    }
    // A truncated stream "succeeds": libjpeg pads with grey and warns (counted above).
    if (cinfo.output_scanline < cinfo.output_height) {
        memset(buffer + stride * cinfo.output_scanline, 128,
               stride * (cinfo.output_height - cinfo.output_scanline));
        info->warnings++;
        jpeg_abort_decompress(&cinfo);
    } else {
        jpeg_finish_decompress(&cinfo);
    }
    jpeg_destroy_decompress(&cinfo);
    free(fd_source);
    if (out) *out = buffer;
    return 0;
}

int ss_jpeg_decode(const unsigned char *data, size_t len, int scale_num, int mode,
                   long long max_header_pixels, long long max_out_pixels,
                   unsigned char **out, ss_jpeg_info *info) {
    return decode(data, len, -1, scale_num, mode, max_header_pixels, max_out_pixels, NULL, 0, out, info);
}

int ss_jpeg_decode_into(const unsigned char *data, size_t len, int scale_num, int mode,
                        long long max_header_pixels, long long max_out_pixels,
                        unsigned char *dest, size_t dest_len, ss_jpeg_info *info) {
    return decode(data, len, -1, scale_num, mode, max_header_pixels, max_out_pixels, dest, dest_len, NULL, info);
}

int ss_jpeg_read_header_fd(int fd, ss_jpeg_info *info) {
    struct jpeg_decompress_struct cinfo;
    ss_err err;
    ss_fd_source *volatile src = malloc(sizeof *src);
    memset(info, 0, sizeof *info);
    if (!src) {
        snprintf(info->message, SS_JPEG_MSG, "out of memory");
        return -1;
    }
    setup_err(&cinfo, &err, info);
    if (setjmp(err.jump)) {
        jpeg_destroy_decompress(&cinfo);
        free(src);
        return -1;
    }
    jpeg_create_decompress(&cinfo);
    fd_src(&cinfo, src, fd);
    jpeg_read_header(&cinfo, TRUE);
    fill_header(&cinfo, info);
    jpeg_destroy_decompress(&cinfo);
    free(src);
    return 0;
}

int ss_jpeg_decode_fd(int fd, int scale_num, int mode, long long max_header_pixels, long long max_out_pixels,
                      unsigned char **out, ss_jpeg_info *info) {
    return decode(NULL, 0, fd, scale_num, mode, max_header_pixels, max_out_pixels, NULL, 0, out, info);
}

int ss_jpeg_encode(const unsigned char *pixels, int width, int height, int components, int quality,
                   int progressive, const unsigned char *exif, size_t exif_len,
                   unsigned char **out, unsigned long *out_len, char message[SS_JPEG_MSG]) {
    struct jpeg_compress_struct cinfo;
    ss_err err;
    ss_jpeg_info dummy;
    unsigned char *volatile mem = NULL;
    unsigned long mem_len = 0;
    memset(&dummy, 0, sizeof dummy);
    *out = NULL;
    *out_len = 0;
    cinfo.err = jpeg_std_error(&err.pub);
    err.pub.error_exit = ss_error_exit;
    err.pub.output_message = ss_output_message;
    err.info = &dummy;
    err.message = message;
    if (setjmp(err.jump)) {
        jpeg_destroy_compress(&cinfo);
        free(mem);
        return -1;
    }
    jpeg_create_compress(&cinfo);
    jpeg_mem_dest(&cinfo, (unsigned char **)&mem, &mem_len);
    cinfo.image_width = (JDIMENSION)width;
    cinfo.image_height = (JDIMENSION)height;
    cinfo.input_components = components;
    cinfo.in_color_space = components == 1 ? JCS_GRAYSCALE : JCS_RGB;
    jpeg_set_defaults(&cinfo);
    jpeg_set_quality(&cinfo, quality, TRUE);
    if (progressive) jpeg_simple_progression(&cinfo);
    jpeg_start_compress(&cinfo, TRUE);
    if (exif && exif_len > 0 && exif_len < 65530) {
        unsigned char *seg = malloc(exif_len + 6);
        if (seg) {
            memcpy(seg, "Exif\0\0", 6);
            memcpy(seg + 6, exif, exif_len);
            jpeg_write_marker(&cinfo, JPEG_APP0 + 1, seg, (unsigned)(exif_len + 6));
            free(seg);
        }
    }
    size_t stride = (size_t)width * (size_t)components;
    while (cinfo.next_scanline < cinfo.image_height) {
        JSAMPROW row = (JSAMPROW)(pixels + stride * cinfo.next_scanline);
        jpeg_write_scanlines(&cinfo, &row, 1);
    }
    jpeg_finish_compress(&cinfo);
    jpeg_destroy_compress(&cinfo);
    *out = mem;
    *out_len = mem_len;
    return 0;
}

void ss_jpeg_free(void *p) { free(p); }
