// libFuzzer harness: the PNG shim (header read, decode to RGB with a pixel limit, and the
// row-by-row reduced decode of pictures over the whole-decode budget).
#include "snapsort_png.h"
#include "snapsort_png_reduced.h"
#include <stdint.h>
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    int w, h, a;
    char msg[SS_PNG_MSG];
    if (ss_png_read_header(data, size, &w, &h, &a, msg) != 0) return 0;
    unsigned char *out = 0;
    if (ss_png_decode(data, size, 3, 4000000LL, &out, &w, &h, msg) == 0) ss_png_free(out);
    char rmsg[SS_PNG_REDUCED_MSG];
    out = 0;
    if (ss_png_decode_reduced(data, size, 64, 4000000LL, &out, &w, &h, rmsg) == 0) ss_png_free(out);
    return 0;
}
