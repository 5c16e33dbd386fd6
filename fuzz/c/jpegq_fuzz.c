// libFuzzer harness: the 1/4- and 1/8-scale decoder alone (ss_jpeg_reduced_into), seeded with clean
// baseline streams of every layout, so mutations reach its accepting paths (entropy decoding,
// restart markers, the IDCT sums); checked differentially (jpeg_quarter_check.h).
#include "jpeg_quarter_check.h"
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    ss_jpeg_info info;
    if (ss_jpeg_read_header(data, size, &info) != 0) return 0;
    check_reduced(data, size, info.width, info.height, 1 + (int)(size / 3 % 2), (int)(size % 3));
    return 0;
}
