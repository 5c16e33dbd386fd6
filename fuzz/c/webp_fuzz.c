// libFuzzer harness: the WebP shim (features, scaled decode with limits).
#include "snapsort_webp.h"
#include <stdint.h>
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    ss_webp_info info;
    char msg[SS_WEBP_MSG];
    if (ss_webp_info_read(data, size, &info, msg) != 0) return 0;
    unsigned char *out = 0;
    int w, h;
    if (ss_webp_decode(data, size, 256, 500000000LL, 4000000LL, &out, &w, &h, msg) == 0) ss_webp_free(out);
    return 0;
}
