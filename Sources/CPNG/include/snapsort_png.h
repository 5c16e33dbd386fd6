#ifndef SNAPSORT_PNG_H
#define SNAPSORT_PNG_H
#include <stddef.h>

#define SS_PNG_MSG 200

/// Reads the IHDR through libpng's simplified API. Returns 0 or -1 with message.
int ss_png_read_header(const unsigned char *data, size_t len, int *width, int *height, int *has_alpha,
                       char message[SS_PNG_MSG]);

/// Decodes to 8-bit gray (components 1) or RGB (3), alpha composited on white.
/// Refuses (-2) above max_pixels before allocating. *out is malloc'd; free with ss_png_free.
int ss_png_decode(const unsigned char *data, size_t len, int components, long long max_pixels,
                  unsigned char **out, int *width, int *height, char message[SS_PNG_MSG]);

/// Encodes 8-bit gray or RGB pixels to a malloc'd PNG.
int ss_png_encode(const unsigned char *pixels, int width, int height, int components,
                  unsigned char **out, size_t *out_len, char message[SS_PNG_MSG]);

void ss_png_free(void *p);
#endif
