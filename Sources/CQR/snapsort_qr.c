#include "snapsort_qr.h"
#include <string.h>
#include <zbar.h>

int ss_qr_scan(const uint8_t *gray, int width, int height, char *out, size_t out_len) {
    if (out && out_len) out[0] = 0;
    zbar_image_scanner_t *scanner = zbar_image_scanner_create();
    if (!scanner) return -1;
    // QR codes only: the 1-D symbologies find false positives in textures.
    zbar_image_scanner_set_config(scanner, ZBAR_NONE, ZBAR_CFG_ENABLE, 0);
    zbar_image_scanner_set_config(scanner, ZBAR_QRCODE, ZBAR_CFG_ENABLE, 1);
    zbar_image_t *image = zbar_image_create();
    if (!image) {
        zbar_image_scanner_destroy(scanner);
        return -1;
    }
    zbar_image_set_format(image, zbar_fourcc('Y', '8', '0', '0'));
    zbar_image_set_size(image, (unsigned)width, (unsigned)height);
    // zbar does not take ownership (no cleanup handler); the caller keeps `gray` alive.
    zbar_image_set_data(image, gray, (unsigned long)width * (unsigned long)height, NULL);
    int n = zbar_scan_image(scanner, image);
    if (n > 0 && out && out_len) {
        const zbar_symbol_t *symbol = zbar_image_first_symbol(image);
        if (symbol) {
            const char *data = zbar_symbol_get_data(symbol);
            unsigned len = zbar_symbol_get_data_length(symbol);
            size_t k = len < out_len - 1 ? len : out_len - 1;
            memcpy(out, data, k);
            out[k] = 0;
        }
    }
    zbar_image_destroy(image);
    zbar_image_scanner_destroy(scanner);
    return n < 0 ? -1 : n;
}
