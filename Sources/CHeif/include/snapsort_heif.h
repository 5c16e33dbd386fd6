#ifndef SNAPSORT_HEIF_H
#define SNAPSORT_HEIF_H
#include <stddef.h>

#define SS_HEIF_MSG 200

/// What one HEIF analysis learned, and the pixels it decoded.
typedef struct {
    int width, height;            ///< the primary image after its transformations (irot/imir)
    int has_alpha;
    int thumbnails;               ///< how many thumbnails the primary image carries
    int thumb_width, thumb_height;///< the largest one (0 when none)
    int from_thumbnail;           ///< 1 when `pixels` is the thumbnail, 0 the primary image
    int out_width, out_height;    ///< size of `pixels` (RGB, 3 bytes per pixel)
    unsigned char *pixels;        ///< malloc'd, free with ss_heif_release
    unsigned char *exif;          ///< the EXIF item's TIFF block (no offset prefix), malloc'd or NULL
    size_t exif_len;
    char message[SS_HEIF_MSG];
} ss_heif_result;

/// Reads a HEIF file from memory and decodes the largest thumbnail whose long side is at least
/// `min_thumb_long_side`, else the primary image (when `decode` is 0 nothing is decoded).
/// Refuses (-2) a primary image over `max_header_pixels` or a decode over `max_decode_pixels`
/// before decoding. Returns 0, or -1 with message. Always release with ss_heif_release.
int ss_heif_analyze(const unsigned char *data, size_t len, int decode, int min_thumb_long_side,
                    long long max_header_pixels, long long max_decode_pixels, ss_heif_result *out);
void ss_heif_release(ss_heif_result *r);

/// Whether this libheif can encode HEVC (an x265 plugin); tests skip encoding without one.
int ss_heif_can_encode(void);

/// Encodes RGB pixels as HEIC with an optional thumbnail (long side `thumb_long_side`, 0 none)
/// and an optional EXIF TIFF block. Returns 0 and a malloc'd *out, or -1 with message.
int ss_heif_encode(const unsigned char *rgb, int width, int height, int quality, int thumb_long_side,
                   const unsigned char *exif, size_t exif_len, unsigned char **out, size_t *out_len,
                   char message[SS_HEIF_MSG]);
void ss_heif_free(void *p);
#endif
