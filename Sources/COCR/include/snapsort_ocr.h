#ifndef SNAPSORT_OCR_H
#define SNAPSORT_OCR_H
#include <stddef.h>
#include <stdint.h>

#define SS_OCR_MSG 256

/// Recognizes text in an 8-bit gray image with Tesseract (English) through its C API.
/// One engine is created on first use and shared under a mutex (loading the model is slow).
/// `words` receives the number of words recognized with confidence >= min_confidence that hold
/// at least two letters or digits; `text` (may be NULL) up to `text_len` - 1 bytes of the text.
/// Returns 0 on success, -1 when the engine cannot start (message in `msg`).
int ss_ocr_recognize(const uint8_t *gray, int width, int height, int min_confidence,
                     int *words, char *text, size_t text_len, char msg[SS_OCR_MSG]);

/// OpenMP's max-active-levels on the calling thread (0 once ss_ocr_recognize ran on it: Tesseract's
/// parallel regions then run on that thread alone), or -1 when OpenMP is not loaded.
int ss_ocr_max_active_levels(void);

#endif
