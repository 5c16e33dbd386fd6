#include "snapsort_qr.h"
#include "snapsort_lazylib.h"
#include <pthread.h>
#include <string.h>
#include <zbar.h>

// zbar is opened on first use (see snapsort_lazylib.h): it pulls in libv4l, X11 and D-Bus
// client libraries (~3.5 ms of every process's start), and only photos that pass the QR gate
// need it.
#define ZBAR_FUNCTIONS(X) \
    X(zbar_image_scanner_create) \
    X(zbar_image_scanner_destroy) \
    X(zbar_image_scanner_set_config) \
    X(zbar_image_create) \
    X(zbar_image_destroy) \
    X(zbar_image_set_format) \
    X(zbar_image_set_size) \
    X(zbar_image_set_data) \
    X(zbar_scan_image) \
    X(zbar_image_first_symbol) \
    X(zbar_symbol_get_data) \
    X(zbar_symbol_get_data_length)
static struct { ZBAR_FUNCTIONS(SS_LAZY_FIELD) } zb;
static const char *const zbar_functions[] = {ZBAR_FUNCTIONS(SS_LAZY_NAME)};
static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static int zbar_loaded = 0;

static void load_zbar(void) {
    static const char *const sonames[] = {"libzbar.so.0"};
    char error[200];
    zbar_loaded = ss_lazy_open(sonames, 1, zbar_functions, sizeof zbar_functions / sizeof *zbar_functions,
                               (void **)&zb, error, sizeof error) != NULL;
}
_Static_assert(sizeof zb == sizeof zbar_functions, "one pointer per function");

int ss_qr_scan(const uint8_t *gray, int width, int height, char *out, size_t out_len) {
    if (out && out_len) out[0] = 0;
    pthread_once(&load_once, load_zbar);
    if (!zbar_loaded) return -2;
    zbar_image_scanner_t *scanner = zb.zbar_image_scanner_create();
    if (!scanner) return -1;
    // QR codes only: the 1-D symbologies find false positives in textures.
    zb.zbar_image_scanner_set_config(scanner, ZBAR_NONE, ZBAR_CFG_ENABLE, 0);
    zb.zbar_image_scanner_set_config(scanner, ZBAR_QRCODE, ZBAR_CFG_ENABLE, 1);
    zbar_image_t *image = zb.zbar_image_create();
    if (!image) {
        zb.zbar_image_scanner_destroy(scanner);
        return -1;
    }
    zb.zbar_image_set_format(image, zbar_fourcc('Y', '8', '0', '0'));
    zb.zbar_image_set_size(image, (unsigned)width, (unsigned)height);
    // zbar does not take ownership (no cleanup handler); the caller keeps `gray` alive.
    zb.zbar_image_set_data(image, gray, (unsigned long)width * (unsigned long)height, NULL);
    int n = zb.zbar_scan_image(scanner, image);
    if (n > 0 && out && out_len) {
        const zbar_symbol_t *symbol = zb.zbar_image_first_symbol(image);
        if (symbol) {
            const char *data = zb.zbar_symbol_get_data(symbol);
            unsigned len = zb.zbar_symbol_get_data_length(symbol);
            size_t k = len < out_len - 1 ? len : out_len - 1;
            memcpy(out, data, k);
            out[k] = 0;
        }
    }
    zb.zbar_image_destroy(image);
    zb.zbar_image_scanner_destroy(scanner);
    return n < 0 ? -1 : n;
}
