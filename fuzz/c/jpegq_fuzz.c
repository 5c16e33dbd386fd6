// libFuzzer harness: the 1/4-scale decoder alone (ss_jpeg_quarter_into), seeded with clean
// baseline streams of every layout, so mutations reach its accepting paths (entropy decoding,
// restart markers, the IDCT sums). Whatever it takes, libjpeg must decode without a warning to
// a picture of the same size, or the harness aborts.
#include "snapsort_jpeg.h"
#include <stdint.h>
#include <stdlib.h>
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    ss_jpeg_info info;
    if (ss_jpeg_read_header(data, size, &info) != 0) return 0;
    long long w = (info.width + 3) / 4, h = (info.height + 3) / 4;
    if (w <= 0 || h <= 0 || w * h > 1000000) return 0;
    static const int channels[3] = {3, 1, 4};  // SS_JPEG_RGB, _GRAY, _RGBX
    int mode = (int)(size % 3);
    size_t len = (size_t)(w * h * channels[mode]);
    unsigned char *mine = malloc(len), *ref = malloc(len);
    int iw = 0, ih = 0;
    if (mine && ref && ss_jpeg_quarter_into(data, size, mode, mine, len, &iw, &ih) == 0) {
        ss_jpeg_info r;
        int rc = ss_jpeg_decode_into(data, size, 2, mode | SS_JPEG_LIBJPEG, 500000000LL, 4000000LL, ref, len, &r);
        if (rc != 0 || r.warnings != 0 || r.width != iw || r.height != ih) abort();
    }
    free(mine);
    free(ref);
    return 0;
}
