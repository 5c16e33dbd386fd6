// libFuzzer harness: the HEIF shim (libheif read, thumbnail choice, EXIF item, decode with limits).
#include "snapsort_heif.h"
#include <stdint.h>
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    ss_heif_result r;
    ss_heif_analyze(data, size, 1, 960, 500000000LL, 4000000LL, &r);
    if (r.pixels) { volatile unsigned char c = r.pixels[(size_t)r.out_width * r.out_height * 3 - 1]; (void)c; }
    if (r.exif && r.exif_len) { volatile unsigned char c = r.exif[r.exif_len - 1]; (void)c; }
    ss_heif_release(&r);
    return 0;
}
