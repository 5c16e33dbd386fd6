// libpng's error and warning callbacks shared by the shims that use libpng's full API (the
// simplified API has its own): an error is copied into the caller's message buffer, then
// libpng longjmps back to the setjmp in the shim's own function. Private to CPNG (not in
// include/, so not part of the Swift module).
#ifndef SNAPSORT_PNG_ERRORS_H
#define SNAPSORT_PNG_ERRORS_H
#include <png.h>
#include <stdio.h>

typedef struct {
    char *message;
    size_t size;
} error_state;

static void on_error(png_structp png, png_const_charp msg) {
    error_state *e = png_get_error_ptr(png);
    snprintf(e->message, e->size, "%s", msg ? msg : "libpng error");
    png_longjmp(png, 1);
}

static void on_warning(png_structp png, png_const_charp msg) {
    (void)png;
    (void)msg;
}
#endif
