// libpng's simplified API (png.h, "SIMPLIFIED API") does its own setjmp internally,
// so nothing here longjmps across Swift.
#include "snapsort_png.h"
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void copy_msg(char message[SS_PNG_MSG], png_image *image) {
    snprintf(message, SS_PNG_MSG, "%s", image->message[0] ? image->message : "libpng error");
}

int ss_png_read_header(const unsigned char *data, size_t len, int *width, int *height, int *has_alpha,
                       char message[SS_PNG_MSG]) {
    png_image image;
    memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_memory(&image, data, len)) {
        copy_msg(message, &image);
        png_image_free(&image);
        return -1;
    }
    *width = (int)image.width;
    *height = (int)image.height;
    *has_alpha = (image.format & PNG_FORMAT_FLAG_ALPHA) ? 1 : 0;
    png_image_free(&image);
    return 0;
}

int ss_png_decode(const unsigned char *data, size_t len, int components, long long max_pixels,
                  unsigned char **out, int *width, int *height, char message[SS_PNG_MSG]) {
    png_image image;
    memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    *out = NULL;
    if (!png_image_begin_read_from_memory(&image, data, len)) {
        copy_msg(message, &image);
        png_image_free(&image);
        return -1;
    }
    *width = (int)image.width;
    *height = (int)image.height;
    if ((long long)image.width * (long long)image.height > max_pixels) {
        snprintf(message, SS_PNG_MSG, "image is %ux%u, over the %lld pixel limit", image.width,
                 image.height, max_pixels);
        png_image_free(&image);
        return -2;
    }
    image.format = components == 1 ? PNG_FORMAT_GRAY : components == 4 ? PNG_FORMAT_RGBA : PNG_FORMAT_RGB;
    png_color white = {255, 255, 255};
    size_t size = PNG_IMAGE_SIZE(image);
    unsigned char *buffer = malloc(size ? size : 1);
    if (!buffer) {
        snprintf(message, SS_PNG_MSG, "out of memory");
        png_image_free(&image);
        return -1;
    }
    if (!png_image_finish_read(&image, &white, buffer, 0, NULL)) {
        copy_msg(message, &image);
        free(buffer);
        png_image_free(&image);
        return -1;
    }
    *out = buffer;
    return 0;
}

int ss_png_encode(const unsigned char *pixels, int width, int height, int components,
                  unsigned char **out, size_t *out_len, char message[SS_PNG_MSG]) {
    png_image image;
    memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    image.width = (png_uint_32)width;
    image.height = (png_uint_32)height;
    image.format = components == 1 ? PNG_FORMAT_GRAY : components == 4 ? PNG_FORMAT_RGBA : PNG_FORMAT_RGB;
    *out = NULL;
    png_alloc_size_t size = 0;
    if (!png_image_write_to_memory(&image, NULL, &size, 0, pixels, 0, NULL)) {
        copy_msg(message, &image);
        return -1;
    }
    unsigned char *buffer = malloc(size);
    if (!buffer) {
        snprintf(message, SS_PNG_MSG, "out of memory");
        return -1;
    }
    if (!png_image_write_to_memory(&image, buffer, &size, 0, pixels, 0, NULL)) {
        copy_msg(message, &image);
        free(buffer);
        return -1;
    }
    *out = buffer;
    *out_len = size;
    return 0;
}

void ss_png_free(void *p) { free(p); }
