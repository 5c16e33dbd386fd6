// libwebp's advanced decoding API (WebPDecoderConfig is set up by an inline function, so it
// lives in C). See: webp/decode.h.
#include "snapsort_webp.h"
#include <webp/decode.h>
#include <webp/encode.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *status_text(VP8StatusCode s) {
    switch (s) {
    case VP8_STATUS_OUT_OF_MEMORY: return "out of memory";
    case VP8_STATUS_INVALID_PARAM: return "invalid parameter";
    case VP8_STATUS_BITSTREAM_ERROR: return "bitstream error";
    case VP8_STATUS_UNSUPPORTED_FEATURE: return "unsupported feature";
    case VP8_STATUS_SUSPENDED: return "suspended";
    case VP8_STATUS_USER_ABORT: return "aborted";
    case VP8_STATUS_NOT_ENOUGH_DATA: return "not enough data (truncated)";
    default: return "error";
    }
}

int ss_webp_info_read(const unsigned char *data, size_t len, ss_webp_info *info, char message[SS_WEBP_MSG]) {
    memset(info, 0, sizeof *info);
    WebPBitstreamFeatures f;
    VP8StatusCode s = WebPGetFeatures(data, len, &f);
    if (s != VP8_STATUS_OK) { snprintf(message, SS_WEBP_MSG, "not a readable WebP: %s", status_text(s)); return -1; }
    info->width = f.width;
    info->height = f.height;
    info->has_alpha = f.has_alpha;
    info->has_animation = f.has_animation;
    info->format = f.format;
    return 0;
}

int ss_webp_decode(const unsigned char *data, size_t len, int max_long_side, long long max_header_pixels,
                   long long max_decode_pixels, unsigned char **out, int *out_width, int *out_height,
                   char message[SS_WEBP_MSG]) {
    *out = NULL;
    WebPDecoderConfig cfg;
    if (!WebPInitDecoderConfig(&cfg)) { snprintf(message, SS_WEBP_MSG, "libwebp version mismatch"); return -1; }
    VP8StatusCode s = WebPGetFeatures(data, len, &cfg.input);
    if (s != VP8_STATUS_OK) { snprintf(message, SS_WEBP_MSG, "not a readable WebP: %s", status_text(s)); return -1; }
    int w = cfg.input.width, h = cfg.input.height;
    if (w <= 0 || h <= 0) { snprintf(message, SS_WEBP_MSG, "the header has no size"); return -1; }
    if ((long long)w * h > max_header_pixels) {
        snprintf(message, SS_WEBP_MSG, "image is %dx%d, over the %lld pixel limit", w, h, max_header_pixels);
        return -2;
    }
    // libwebp's scaler works on the full-size rows as they are decoded: the work (not the memory)
    // grows with the full canvas, so a 60-byte VP8L stream claiming 16383x16383 takes seconds.
    // Found by fuzz/ (webp); see RESULTS.md.
    if ((long long)w * h > max_decode_pixels) {
        snprintf(message, SS_WEBP_MSG, "image is %dx%d, over the %lld pixel decode limit", w, h, max_decode_pixels);
        return -2;
    }
    int ow = w, oh = h;
    int long_side = w > h ? w : h;
    if (max_long_side > 0 && long_side > max_long_side) {
        ow = (int)((long long)w * max_long_side / long_side);
        oh = (int)((long long)h * max_long_side / long_side);
        if (ow < 1) ow = 1;
        if (oh < 1) oh = 1;
        cfg.options.use_scaling = 1;
        cfg.options.scaled_width = ow;
        cfg.options.scaled_height = oh;
    }
    if ((long long)ow * oh > max_decode_pixels) {
        snprintf(message, SS_WEBP_MSG, "decoded size %dx%d is over the %lld pixel limit", ow, oh, max_decode_pixels);
        return -2;
    }
    unsigned char *buf = malloc((size_t)ow * (size_t)oh * 3);
    if (!buf) { snprintf(message, SS_WEBP_MSG, "out of memory"); return -1; }
    cfg.output.colorspace = MODE_RGB;
    cfg.output.is_external_memory = 1;
    cfg.output.u.RGBA.rgba = buf;
    cfg.output.u.RGBA.stride = ow * 3;
    cfg.output.u.RGBA.size = (size_t)ow * (size_t)oh * 3;
    s = WebPDecode(data, len, &cfg);
    WebPFreeDecBuffer(&cfg.output);
    if (s != VP8_STATUS_OK) {
        free(buf);
        snprintf(message, SS_WEBP_MSG, "WebP decode: %s", status_text(s));
        return s == VP8_STATUS_NOT_ENOUGH_DATA ? -3 : -1;
    }
    *out = buf;
    *out_width = ow;
    *out_height = oh;
    return 0;
}

int ss_webp_encode(const unsigned char *rgb, int width, int height, float quality, unsigned char **out,
                   size_t *out_len) {
    uint8_t *o = NULL;
    size_t n = quality < 0 ? WebPEncodeLosslessRGB(rgb, width, height, width * 3, &o)
                           : WebPEncodeRGB(rgb, width, height, width * 3, quality, &o);
    if (n == 0) { WebPFree(o); *out = NULL; *out_len = 0; return -1; }
    *out = malloc(n);
    if (!*out) { WebPFree(o); return -1; }
    memcpy(*out, o, n);
    WebPFree(o);
    *out_len = n;
    return 0;
}

void ss_webp_free(void *p) { free(p); }
