#ifndef SNAPSORT_PNG_REDUCED_H
#define SNAPSORT_PNG_REDUCED_H
#include <stddef.h>

#define SS_PNG_REDUCED_MSG 200

/// Decodes a non-interlaced PNG to 8-bit RGB (alpha composited on white), area-averaged while
/// reading so its long side is at most max_long_side (0: full size): memory is a few rows of
/// the source and the reduced picture, whatever the source's size. Refuses (-2) a header over
/// max_pixels, and an interlaced PNG; -1 with a message on a decode error. *out is malloc'd;
/// free with ss_png_free.
int ss_png_decode_reduced(const unsigned char *data, size_t len, int max_long_side, long long max_pixels,
                          unsigned char **out, int *out_width, int *out_height, char message[SS_PNG_REDUCED_MSG]);
#endif
