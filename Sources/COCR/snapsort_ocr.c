#include "snapsort_ocr.h"
#include <ctype.h>
#include <dlfcn.h>
#include <leptonica/allheaders.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tesseract/capi.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static TessBaseAPI *engine = NULL;
static int engine_failed = 0;

// Deletes the shared engine at exit: Tesseract's model cache otherwise reports every still
// referenced model as a leak on stderr when its static destructors run.
static void delete_engine(void) {
    pthread_mutex_lock(&lock);
    if (engine) TessBaseAPIDelete(engine);
    engine = NULL;
    engine_failed = 1;
    pthread_mutex_unlock(&lock);
}

// libgomp's omp_set_max_active_levels / omp_get_max_active_levels, looked up at run time: a
// Tesseract built without OpenMP does not load libgomp, and then there is nothing to limit.
static void (*set_max_active_levels)(int) = NULL;
static int (*get_max_active_levels)(void) = NULL;
static int looked_up_openmp = 0;

static void look_up_openmp(void) {
    if (looked_up_openmp) return;
    set_max_active_levels = (void (*)(int))dlsym(RTLD_DEFAULT, "omp_set_max_active_levels");
    get_max_active_levels = (int (*)(void))dlsym(RTLD_DEFAULT, "omp_get_max_active_levels");
    looked_up_openmp = 1;
}

// Debian's Tesseract runs OpenMP teams of four threads (`num_threads(4)` in its LSTM) whose idle
// members spin between parallel regions: time taken from the scan's other workers, and a
// background agent should never spin. With max-active-levels 0 no parallel region is active, so
// each runs on the calling thread alone and no team is ever started (OpenMP 5.1, 2.6.1; libgomp's
// gomp_resolve_num_threads). The variable is per task in libgomp >= 11 (the calling thread
// here), so it is set on every call, on the thread that is about to recognize.
static void no_openmp_teams(void) {
    look_up_openmp();
    if (set_max_active_levels) set_max_active_levels(0);
}

int ss_ocr_max_active_levels(void) {
    pthread_mutex_lock(&lock);
    look_up_openmp();
    int levels = get_max_active_levels ? get_max_active_levels() : -1;
    pthread_mutex_unlock(&lock);
    return levels;
}

static int enough_letters(const char *w) {
    int n = 0;
    for (; *w; w++) if (isalnum((unsigned char)*w)) n++;
    return n >= 2;
}

int ss_ocr_recognize(const uint8_t *gray, int width, int height, int min_confidence,
                     int *words, char *text, size_t text_len, char msg[SS_OCR_MSG]) {
    msg[0] = 0;
    *words = 0;
    if (text && text_len) text[0] = 0;
    pthread_mutex_lock(&lock);
    if (!engine && !engine_failed) {
        // Leptonica reports recoverable problems of the layout analysis on stderr
        // ("Error in boxClipToRectangle: box outside rectangle"); recognition goes on, and a
        // photo library is no place for them. Tesseract's own notes ("Detected N diacritics")
        // go to its debug_file. See leptonica utils1.c, setMsgSeverity.
        setMsgSeverity(L_SEVERITY_NONE);
        engine = TessBaseAPICreate();
        if (engine) TessBaseAPISetVariable(engine, "debug_file", "/dev/null");
        // NULL datapath: TESSDATA_PREFIX or the packaged tessdata folder.
        if (!engine || TessBaseAPIInit3(engine, NULL, "eng") != 0) {
            if (engine) TessBaseAPIDelete(engine);
            engine = NULL;
            engine_failed = 1;
        } else {
            // Tesseract 5 reads every line whose recognition is weak a second time, inverted, in
            // case it is light text on dark; receipts, pages and notes are dark on light, and the
            // second pass costs a third of the time on a page that reads badly.
            TessBaseAPISetVariable(engine, "tessedit_do_invert", "0");
            atexit(delete_engine);
        }
    }
    if (!engine) {
        pthread_mutex_unlock(&lock);
        snprintf(msg, SS_OCR_MSG, "Tesseract could not start (is tesseract-ocr-eng installed?)");
        return -1;
    }
    no_openmp_teams();
    TessBaseAPISetPageSegMode(engine, PSM_AUTO);
    TessBaseAPISetImage(engine, gray, width, height, 1, width);
    TessBaseAPISetSourceResolution(engine, 300);
    if (TessBaseAPIRecognize(engine, NULL) != 0) {
        TessBaseAPIClear(engine);
        pthread_mutex_unlock(&lock);
        snprintf(msg, SS_OCR_MSG, "Tesseract recognition failed");
        return -1;
    }
    size_t used = 0;
    TessResultIterator *it = TessBaseAPIGetIterator(engine);
    if (it) {
        TessPageIterator *pi = TessResultIteratorGetPageIterator(it);
        do {
            char *w = TessResultIteratorGetUTF8Text(it, RIL_WORD);
            if (!w) continue;
            float conf = TessResultIteratorConfidence(it, RIL_WORD);
            if (conf >= (float)min_confidence && enough_letters(w)) {
                (*words)++;
                size_t n = strlen(w);
                if (text && used + n + 2 < text_len) {
                    if (used) text[used++] = ' ';
                    memcpy(text + used, w, n);
                    used += n;
                    text[used] = 0;
                }
            }
            TessDeleteText(w);
        } while (TessPageIteratorNext(pi, RIL_WORD));
        TessResultIteratorDelete(it);
    }
    TessBaseAPIClear(engine);
    pthread_mutex_unlock(&lock);
    return 0;
}
