#ifndef SNAPSORT_JPEG_H
#define SNAPSORT_JPEG_H
#include <stddef.h>

#define SS_JPEG_MSG 200

/// What a header read or a decode learned about a JPEG stream.
typedef struct {
    int width, height;          ///< full size from the SOF marker
    int out_width, out_height;  ///< size after DCT scaling
    int components;             ///< components in the output buffer (1, 3 or 4)
    int progressive;            ///< 1 for a progressive (SOF2) stream
    int warnings;               ///< corrupt-data warnings libjpeg emitted (truncation, bad Huffman codes)
    int reduced;                ///< 1 when ss_jpeg_reduced_into decoded it (not libjpeg)
    char message[SS_JPEG_MSG];  ///< the first warning or the fatal error
} ss_jpeg_info;

/// Reads the header only. Returns 0, or -1 with info->message set.
int ss_jpeg_read_header(const unsigned char *data, size_t len, ss_jpeg_info *info);

/// Output layouts of ss_jpeg_decode: RGB (3 bytes a pixel), gray (1), RGBX (4: RGB and a pad
/// byte, libjpeg-turbo's JCS_EXT_RGBX, so a pixel is one aligned 32-bit word).
#define SS_JPEG_RGB 0
#define SS_JPEG_GRAY 1
#define SS_JPEG_RGBX 2
/// OR'ed into a layout: libjpeg's default chroma upsampling (smooth, "fancy"), the pixels
/// viewers and exporters see; without it chroma is replicated, ~10 % faster.
#define SS_JPEG_FANCY 8
/// OR'ed into a layout: decode through libjpeg even where ss_jpeg_reduced_into would (tests
/// and benches comparing the two).
#define SS_JPEG_LIBJPEG 16

/// Decodes scaled by scale_num/8 (1...8) to the layout `mode` (SS_JPEG_RGB, _GRAY or _RGBX,
/// optionally | SS_JPEG_FANCY).
/// Refuses (-2) when the output would exceed max_out_pixels or the header exceeds
/// max_header_pixels, before allocating. On success (0) *out is a malloc'd buffer of
/// out_width*out_height*components bytes, owned by the caller (free with ss_jpeg_free).
int ss_jpeg_decode(const unsigned char *data, size_t len, int scale_num, int mode,
                   long long max_header_pixels, long long max_out_pixels,
                   unsigned char **out, ss_jpeg_info *info);

/// ss_jpeg_decode reading the JPEG from the open descriptor `fd` (from its current offset)
/// through a 64 KiB buffer: a file too large to hold in memory is decoded scaled. A file that
/// ends early decodes with a warning, as one in memory does.
int ss_jpeg_decode_fd(int fd, int scale_num, int mode, long long max_header_pixels, long long max_out_pixels,
                      unsigned char **out, ss_jpeg_info *info);
/// ss_jpeg_read_header reading from the open descriptor `fd` (from its current offset).
int ss_jpeg_read_header_fd(int fd, ss_jpeg_info *info);

/// ss_jpeg_decode into the caller's buffer: `dest` must hold exactly the decoded
/// out_width*out_height*components bytes (dest_len), else -3 with a message and nothing written.
/// At scale 1 or 2 without SS_JPEG_FANCY a clean baseline stream is decoded by
/// ss_jpeg_reduced_into (the same pixels, faster; info->reduced = 1), anything else by libjpeg.
int ss_jpeg_decode_into(const unsigned char *data, size_t len, int scale_num, int mode,
                        long long max_header_pixels, long long max_out_pixels,
                        unsigned char *dest, size_t dest_len, ss_jpeg_info *info);

/// The 1/8- (scale_num 1) or 1/4-scale (2) decode of a clean baseline JPEG
/// (snapsort_jpeg_reduced.c) into `dest` (exactly ceil(w·scale_num/8)·ceil(h·scale_num/8)·channels
/// bytes for `mode` SS_JPEG_RGB, _RGBX or _GRAY): 0 and the picture's full size, or
/// SS_JPEGQ_DECLINED for anything it does not take exactly as libjpeg would (the caller then
/// decodes through libjpeg). `dest` may be partly written when declined.
#define SS_JPEGQ_DECLINED 1
int ss_jpeg_reduced_into(const unsigned char *data, size_t len, int scale_num, int mode, unsigned char *dest, size_t dest_len,
                         int *width, int *height);

/// Encodes 8-bit pixels (components 1 or 3). exif (may be NULL) is written as an APP1 segment
/// ("Exif\0\0" + TIFF). Returns 0 and a malloc'd *out of *out_len bytes, or -1 with message.
int ss_jpeg_encode(const unsigned char *pixels, int width, int height, int components, int quality,
                   int progressive, const unsigned char *exif, size_t exif_len,
                   unsigned char **out, unsigned long *out_len, char message[SS_JPEG_MSG]);

void ss_jpeg_free(void *p);
#endif
