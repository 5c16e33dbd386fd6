// The differential check both JPEG harnesses make of the reduced (1/4, 1/8) decoder: whatever
// ss_jpeg_reduced_into takes, libjpeg must decode without a warning to a picture of the same
// size (the decoder declines everything libjpeg would warn about or refuse), or abort.
#include "snapsort_jpeg.h"
#include <stdint.h>
#include <stdlib.h>

static void check_reduced(const uint8_t *data, size_t size, long long width, long long height, int scale, int mode) {
    static const int channels[3] = {3, 1, 4};  // SS_JPEG_RGB, _GRAY, _RGBX
    long long w = (width * scale + 7) / 8, h = (height * scale + 7) / 8;
    if (w <= 0 || h <= 0 || w * h > 1000000) return;
    size_t len = (size_t)(w * h * channels[mode]);
    unsigned char *mine = malloc(len), *ref = malloc(len);
    int iw = 0, ih = 0;
    if (mine && ref && ss_jpeg_reduced_into(data, size, scale, mode, mine, len, &iw, &ih) == 0) {
        ss_jpeg_info r;
        int rc = ss_jpeg_decode_into(data, size, scale, mode | SS_JPEG_LIBJPEG, 500000000LL, 4000000LL, ref, len, &r);
        if (rc != 0 || r.warnings != 0 || r.width != iw || r.height != ih) abort();
    }
    free(mine);
    free(ref);
}
