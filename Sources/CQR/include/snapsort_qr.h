#ifndef SNAPSORT_QR_H
#define SNAPSORT_QR_H
#include <stddef.h>
#include <stdint.h>

/// Looks for QR codes in an 8-bit gray image with zbar. Writes the first payload (truncated to
/// `out_len` - 1 bytes) to `out`; returns the number of codes found (0 none, -1 error, -2 zbar's
/// library libzbar.so.0 cannot be opened).
int ss_qr_scan(const uint8_t *gray, int width, int height, char *out, size_t out_len);

#endif
