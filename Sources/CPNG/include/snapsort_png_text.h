#ifndef SNAPSORT_PNG_TEXT_H
#define SNAPSORT_PNG_TEXT_H
#include <stddef.h>

#define SS_PNG_TEXT_MSG 200

/// Encodes 8-bit gray (1), RGB (3) or RGBA (4) pixels to a malloc'd PNG with tEXt chunks
/// (`keys[i]` = `values[i]`, Latin-1 keywords of 1–79 bytes), e.g. the freedesktop thumbnail
/// spec's Thumb::URI and Thumb::MTime. Returns 0, or -1 with a message. Free with ss_png_free.
int ss_png_encode_text(const unsigned char *pixels, int width, int height, int components,
                       const char *const *keys, const char *const *values, int count,
                       unsigned char **out, size_t *out_len, char message[SS_PNG_TEXT_MSG]);
#endif
