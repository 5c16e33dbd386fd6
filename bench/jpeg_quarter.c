// bench/jpeg_quarter.c — the scan's 1/4-scale JPEG decode, SnapSort's own decoder
// (ss_jpeg_reduced_into, through ss_jpeg_decode_into as the scan calls it) against libjpeg-turbo
// (the same call with SS_JPEG_LIBJPEG) on the same files in one run, one core: CPU time per file
// of each, their ratio, and whether every output is byte for byte the same. See README.md.
//   bench/jpeg_quarter.sh [FILES…]   (default: the DEV corpus's 12mp files)
#include "snapsort_jpeg.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double cpu(void) {
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
    int repeat = 5, files = 0, quarter = 0, differ = 0;
    double mine = 1e30, ref = 1e30;
    for (int r = 0; r < repeat; r++) {
        double tm = 0, tr = 0;
        for (int i = 1; i < argc; i++) {
            FILE *f = fopen(argv[i], "rb");
            if (!f) continue;
            fseek(f, 0, SEEK_END);
            long len = ftell(f);
            rewind(f);
            unsigned char *data = malloc((size_t)len);
            if (!data || fread(data, 1, (size_t)len, f) != (size_t)len) {
                fclose(f);
                free(data);
                continue;
            }
            fclose(f);
            ss_jpeg_info h;
            if (ss_jpeg_read_header(data, (size_t)len, &h) != 0) {
                free(data);
                continue;
            }
            size_t out = (size_t)((h.width + 3) / 4) * (size_t)((h.height + 3) / 4) * 4;
            unsigned char *a = malloc(out), *b = malloc(out);
            ss_jpeg_info ia, ib;
            // Touch both buffers first: page faults are not the decoders'.
            memset(a, 0, out);
            memset(b, 0, out);
            double t0 = cpu();
            int ra = ss_jpeg_decode_into(data, (size_t)len, 2, SS_JPEG_RGBX, 1LL << 40, 1LL << 40, a, out, &ia);
            double t1 = cpu();
            int rb = ss_jpeg_decode_into(data, (size_t)len, 2, SS_JPEG_RGBX | SS_JPEG_LIBJPEG, 1LL << 40, 1LL << 40, b, out, &ib);
            double t2 = cpu();
            tm += t1 - t0;
            tr += t2 - t1;
            if (r == 0) {
                files++;
                quarter += ia.reduced;
                if (ra != rb || ia.warnings != ib.warnings || (ra == 0 && memcmp(a, b, out) != 0)) {
                    differ++;
                    fprintf(stderr, "differs from libjpeg: %s\n", argv[i]);
                }
            }
            free(a);
            free(b);
            free(data);
        }
        if (tm < mine) mine = tm;
        if (tr < ref) ref = tr;
    }
    if (!files) return 1;
    printf("files                         %d\n", files);
    printf("taken_by_quarter_decoder      %d\n", quarter);
    printf("outputs_differing             %d\n", differ);
    printf("cpu_ms_per_file_libjpeg       %.2f\n", 1000 * ref / files);
    printf("cpu_ms_per_file_quarter       %.2f\n", 1000 * mine / files);
    printf("ratio_libjpeg_over_quarter    %.3f\n", ref / mine);
    return differ ? 1 : 0;
}
