#ifndef SNAPSORT_EXIF_H
#define SNAPSORT_EXIF_H
#include <stddef.h>

/// The EXIF fields SnapSort keeps. Strings are NUL-terminated, empty when absent.
typedef struct {
    char datetime_original[32];
    char subsec_original[16];
    char offset_time_original[16];
    char datetime[32];
    char make[64];
    char model[64];
    char lens[96];
    char software[96];
    int orientation;      ///< 1...8, 0 when absent or invalid
    int has_gps;          ///< the GPS IFD has a latitude
    int pixel_x, pixel_y; ///< PixelXDimension / PixelYDimension, 0 when absent
    int rating;           ///< Microsoft Rating tag (0x4746), -1 when absent
    int entries;          ///< how many entries libexif loaded across all IFDs
    unsigned char *thumbnail;  ///< malloc'd copy of the IFD1 JPEG thumbnail, or NULL
    size_t thumbnail_len;
} ss_exif;

/// Parses EXIF data: either "Exif\0\0" followed by a TIFF header (a JPEG APP1 payload) or
/// a bare TIFF header. Returns 0 when at least one entry was found, -1 otherwise.
/// Release with ss_exif_release.
int ss_exif_parse(const unsigned char *data, size_t len, ss_exif *out);
void ss_exif_release(ss_exif *exif);

/// Builds a little-endian EXIF TIFF block (no "Exif\0\0" prefix) for tests and the demo
/// library. Any string may be NULL. Returns a malloc'd buffer of *out_len bytes.
unsigned char *ss_exif_build(const char *datetime_original, const char *offset_time_original,
                             const char *make, const char *model, const char *software,
                             int orientation, size_t *out_len);
void ss_exif_free(void *p);
#endif
