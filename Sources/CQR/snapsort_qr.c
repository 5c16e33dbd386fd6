#include "snapsort_qr.h"
#include <dlfcn.h>
#include <pthread.h>
#include <string.h>
#include <zbar.h>

// zbar is opened on first use instead of linked: it pulls in libv4l, X11 and D-Bus client
// libraries (~3.5 ms of every process's start), and only photos that pass the QR gate need it.
// The pointers keep the types of the declarations in <zbar.h>.
#define SS_FN(name) __typeof__(&name) name
static struct {
    SS_FN(zbar_image_scanner_create);
    SS_FN(zbar_image_scanner_destroy);
    SS_FN(zbar_image_scanner_set_config);
    SS_FN(zbar_image_create);
    SS_FN(zbar_image_destroy);
    SS_FN(zbar_image_set_format);
    SS_FN(zbar_image_set_size);
    SS_FN(zbar_image_set_data);
    SS_FN(zbar_scan_image);
    SS_FN(zbar_image_first_symbol);
    SS_FN(zbar_symbol_get_data);
    SS_FN(zbar_symbol_get_data_length);
} zb;
static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static int zbar_loaded = 0;

static void load_zbar(void) {
    void *h = dlopen("libzbar.so.0", RTLD_LAZY | RTLD_LOCAL);
    if (!h) return;
#define SS_LOOK(name) \
    if (!(zb.name = (__typeof__(zb.name))dlsym(h, #name))) return;
    SS_LOOK(zbar_image_scanner_create)
    SS_LOOK(zbar_image_scanner_destroy)
    SS_LOOK(zbar_image_scanner_set_config)
    SS_LOOK(zbar_image_create)
    SS_LOOK(zbar_image_destroy)
    SS_LOOK(zbar_image_set_format)
    SS_LOOK(zbar_image_set_size)
    SS_LOOK(zbar_image_set_data)
    SS_LOOK(zbar_scan_image)
    SS_LOOK(zbar_image_first_symbol)
    SS_LOOK(zbar_symbol_get_data)
    SS_LOOK(zbar_symbol_get_data_length)
#undef SS_LOOK
    zbar_loaded = 1;
}

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
