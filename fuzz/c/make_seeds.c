// Writes seed files no tool on the machine makes: a HEIC (with thumbnail and EXIF) and EXIF blocks.
#include "snapsort_heif.h"
#include "snapsort_exif.h"
#include <stdio.h>
#include <stdlib.h>
static void save(const char *path, const unsigned char *p, size_t n) {
    FILE *f = fopen(path, "wb");
    if (!f) { perror(path); exit(1); }
    fwrite(p, 1, n, f);
    fclose(f);
}
int main(int argc, char **argv) {
    const char *dir = argc > 1 ? argv[1] : ".";
    char path[512];
    size_t n;
    unsigned char *exif = ss_exif_build("2024:05:01 10:00:00", "+02:00", "Canon", "EOS R6", "1.0", 6, &n);
    snprintf(path, sizeof path, "%s/exif/camera.tiff", dir);
    save(path, exif, n);
    int w = 64, h = 48;
    unsigned char *rgb = malloc((size_t)w * h * 3);
    for (int i = 0; i < w * h * 3; i++) rgb[i] = (unsigned char)(i * 7 + (i / (w * 3)) * 13);
    unsigned char *out; size_t len; char msg[SS_HEIF_MSG];
    if (ss_heif_encode(rgb, w, h, 50, 32, exif, n, &out, &len, msg) == 0) {
        snprintf(path, sizeof path, "%s/heif/small.heic", dir);
        save(path, out, len);
        ss_heif_free(out);
    } else {
        fprintf(stderr, "no HEIC seed: %s\n", msg);
    }
    ss_exif_free(exif);
    free(rgb);
    return 0;
}
