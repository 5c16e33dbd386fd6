// libFuzzer harness: the EXIF shim (libexif on an APP1 payload or a bare TIFF block).
#include "snapsort_exif.h"
#include <stdint.h>
#include <string.h>
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    ss_exif e;
    ss_exif_parse(data, size, &e);
    // Touch every string the Swift wrapper reads: they must be NUL-terminated.
    volatile size_t n = strlen(e.datetime_original) + strlen(e.subsec_original) + strlen(e.offset_time_original) +
                        strlen(e.datetime) + strlen(e.make) + strlen(e.model) + strlen(e.lens) + strlen(e.software);
    (void)n;
    if (e.thumbnail && e.thumbnail_len) { volatile unsigned char c = e.thumbnail[e.thumbnail_len - 1]; (void)c; }
    ss_exif_release(&e);
    return 0;
}
