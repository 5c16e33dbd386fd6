#ifndef SNAPSORT_WEBP_H
#define SNAPSORT_WEBP_H
#include <stddef.h>

#define SS_WEBP_MSG 200

/// What a WebP header says (WebPGetFeatures).
typedef struct {
    int width, height;
    int has_alpha, has_animation;
    int format;  ///< 0 mixed/undefined, 1 lossy, 2 lossless
} ss_webp_info;

/// Reads the header. Returns 0 or -1 with message.
int ss_webp_info_read(const unsigned char *data, size_t len, ss_webp_info *info, char message[SS_WEBP_MSG]);

/// Decodes a still WebP to RGB, scaled down (libwebp's built-in scaler) so that its long side
/// is at most `max_long_side` (0 = full size). Refuses (-2) a header over `max_header_pixels` or an
/// output over `max_decode_pixels` before allocating. *out is malloc'd (ss_webp_free).
int ss_webp_decode(const unsigned char *data, size_t len, int max_long_side, long long max_header_pixels,
                   long long max_decode_pixels, unsigned char **out, int *out_width, int *out_height,
                   char message[SS_WEBP_MSG]);

/// Encodes RGB pixels (quality < 0: lossless). Returns 0 and a malloc'd *out.
int ss_webp_encode(const unsigned char *rgb, int width, int height, float quality, unsigned char **out,
                   size_t *out_len);
void ss_webp_free(void *p);
#endif
