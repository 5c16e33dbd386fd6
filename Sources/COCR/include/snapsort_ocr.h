#ifndef SNAPSORT_OCR_H
#define SNAPSORT_OCR_H
#include <stddef.h>
#include <stdint.h>

#define SS_OCR_MSG 256

/// Recognizes text in an 8-bit gray image with Tesseract (English) through its C API.
/// Engines are pooled: a thread takes a free one, starts one while fewer than the pool's size
/// exist (the online cores, at most 4, unless set), else waits for one.
/// `words` receives the number of words recognized with confidence >= min_confidence that hold
/// at least two letters or digits; `text` (may be NULL) up to `text_len` - 1 bytes of the text.
/// Returns 0 on success, -1 when the engine cannot start (message in `msg`).
int ss_ocr_recognize(const uint8_t *gray, int width, int height, int min_confidence,
                     int *words, char *text, size_t text_len, char msg[SS_OCR_MSG]);

/// The most engines the pool may start (1–8); waiting threads are woken to look again.
void ss_ocr_set_max_engines(int n);

/// How many engines are alive.
int ss_ocr_engines(void);

/// Deletes the engines no thread is using (their memory goes back; the next recognition starts
/// one again, ~0.15 s). Returns how many.
int ss_ocr_release_idle(void);

/// Takes an engine out of the pool (as a recognizing thread would) until ss_ocr_release:
/// the handle, or -1 when Tesseract cannot start. For tests of the pool.
int ss_ocr_hold(void);
void ss_ocr_release(int held);

/// OpenMP's max-active-levels on the calling thread (0 once ss_ocr_recognize ran on it: Tesseract's
/// parallel regions then run on that thread alone), or -1 when OpenMP is not loaded.
int ss_ocr_max_active_levels(void);

#endif
