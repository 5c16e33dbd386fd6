// libFuzzer harness: the JPEG shim (header read, DCT-scaled decode with the analyzer's limits)
// and its own 1/4- and 1/8-scale decoder, differentially (jpeg_quarter_check.h).
#include "jpeg_quarter_check.h"
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    ss_jpeg_info info;
    if (ss_jpeg_read_header(data, size, &info) != 0) return 0;
    unsigned char *out = 0;
    // The analyzer's header limit; a small output limit keeps executions fast.
    for (int scale = 1; scale <= 8; scale *= 8) {
        if (ss_jpeg_decode(data, size, scale, 0, 500000000LL, 4000000LL, &out, &info) == 0) ss_jpeg_free(out);
        out = 0;
    }
    for (int mode = 0; mode < 3; mode++) check_reduced(data, size, info.width, info.height, 2 - mode % 2, mode);
    return 0;
}
