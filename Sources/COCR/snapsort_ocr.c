#include "snapsort_ocr.h"
#include "snapsort_lazylib.h"
#include <ctype.h>
#include <dlfcn.h>
#include <leptonica/allheaders.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tesseract/capi.h>
#include <unistd.h>

// Tesseract (and Leptonica under it) is opened on first use (see snapsort_lazylib.h): with
// what it pulls in (libcurl, GnuTLS, libarchive, libgomp, image codecs: some sixty libraries)
// it cost every snapsort process ~16 ms to load, and most runs (status bars polling
// `snapsort status`, report, decide, a scan of ordinary photos) never read text.
#define TESSERACT_FUNCTIONS(X) \
    X(TessBaseAPICreate) \
    X(TessBaseAPIDelete) \
    X(TessBaseAPIInit3) \
    X(TessBaseAPISetVariable) \
    X(TessBaseAPISetPageSegMode) \
    X(TessBaseAPISetImage) \
    X(TessBaseAPISetSourceResolution) \
    X(TessBaseAPIRecognize) \
    X(TessBaseAPIClear) \
    X(TessBaseAPIGetIterator) \
    X(TessResultIteratorGetPageIterator) \
    X(TessResultIteratorGetUTF8Text) \
    X(TessResultIteratorConfidence) \
    X(TessResultIteratorDelete) \
    X(TessPageIteratorNext) \
    X(TessDeleteText) \
    X(setMsgSeverity)
static struct { TESSERACT_FUNCTIONS(SS_LAZY_FIELD) } tess;
static const char *const tesseract_functions[] = {TESSERACT_FUNCTIONS(SS_LAZY_NAME)};
_Static_assert(sizeof tess == sizeof tesseract_functions, "one pointer per function");
// libgomp's, looked up through Tesseract's handle; optional (a build without OpenMP).
static void (*omp_set_levels)(int);
static int (*omp_get_levels)(void);
static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static int tess_loaded = 0;
static char load_error[200];

static void load_tesseract(void) {
    // Debian 12's soname first; the names are tried in order.
    static const char *const sonames[] = {"libtesseract.so.5", "libtesseract.so"};
    void *h = ss_lazy_open(sonames, 2, tesseract_functions, sizeof tesseract_functions / sizeof *tesseract_functions,
                           (void **)&tess, load_error, sizeof load_error);
    if (!h) return;
    omp_set_levels = (void (*)(int))dlsym(h, "omp_set_max_active_levels");
    omp_get_levels = (int (*)(void))dlsym(h, "omp_get_max_active_levels");
    tess_loaded = 1;
}

// 1 once Tesseract's library is open (the first call opens it), else 0 with `load_error` set.
static int tesseract_loaded(void) {
    pthread_once(&load_once, load_tesseract);
    return tess_loaded;
}

// A small pool of engines: one per thread recognizing at the same time, started on demand
// (~0.15 s and ~17 MB each), at most `max_engines`. One engine behind a mutex made a folder of
// scanned pages read on one core however many workers the scan had.
#define SS_OCR_POOL 8
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t released = PTHREAD_COND_INITIALIZER;
static TessBaseAPI *engines[SS_OCR_POOL];
static int busy[SS_OCR_POOL];
static int created = 0;      // slots in use; a slot whose engine is still starting is busy
static int max_engines = 0;  // 0: not set yet (the online cores, at most 4)
static int engine_failed = 0;
static int exit_registered = 0;

// Deletes the engines at exit: Tesseract's model cache otherwise reports every still
// referenced model as a leak on stderr when its static destructors run.
static void delete_engines(void) {
    pthread_mutex_lock(&lock);
    for (int i = 0; i < created; i++) {
        if (engines[i] && !busy[i]) {
            tess.TessBaseAPIDelete(engines[i]);
            engines[i] = NULL;
        }
    }
    engine_failed = 1;
    pthread_mutex_unlock(&lock);
}

static TessBaseAPI *start_engine(void) {
    TessBaseAPI *e = tess.TessBaseAPICreate();
    if (!e) return NULL;
    tess.TessBaseAPISetVariable(e, "debug_file", "/dev/null");
    // NULL datapath: TESSDATA_PREFIX or the packaged tessdata folder.
    if (tess.TessBaseAPIInit3(e, NULL, "eng") != 0) {
        tess.TessBaseAPIDelete(e);
        return NULL;
    }
    // Tesseract 5 reads every line whose recognition is weak a second time, inverted, in case
    // it is light text on dark; receipts, pages and notes are dark on light, and the second
    // pass costs a third of the time on a page that reads badly.
    tess.TessBaseAPISetVariable(e, "tessedit_do_invert", "0");
    return e;
}

// A free engine, a new one while fewer than max_engines exist, else the next one released.
// -1 when Tesseract cannot start.
static int acquire(void) {
    if (!tesseract_loaded()) return -1;
    pthread_mutex_lock(&lock);
    if (max_engines == 0) {
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        max_engines = cores < 1 ? 1 : cores > 4 ? 4 : (int)cores;
    }
    for (;;) {
        if (engine_failed) break;
        for (int i = 0; i < created; i++) {
            if (engines[i] && !busy[i]) {
                busy[i] = 1;
                pthread_mutex_unlock(&lock);
                return i;
            }
        }
        // A slot whose engine was let go (ss_ocr_release_idle), else a new one under the cap.
        int i = -1;
        for (int k = 0; k < created && i < 0; k++) {
            if (!engines[k] && !busy[k]) i = k;
        }
        if (i < 0 && created < max_engines) i = created++;
        if (i >= 0) {
            busy[i] = 1;
            // Leptonica reports recoverable problems of the layout analysis on stderr ("Error in
            // boxClipToRectangle: box outside rectangle"); recognition goes on, and a photo
            // library is no place for them. Tesseract's own notes ("Detected N diacritics") go to
            // its debug_file. See leptonica utils1.c, setMsgSeverity.
            tess.setMsgSeverity(L_SEVERITY_NONE);
            pthread_mutex_unlock(&lock);
            TessBaseAPI *e = start_engine();  // slow: the others go on meanwhile
            pthread_mutex_lock(&lock);
            if (!e) {
                // No model: it will not appear later in this process.
                busy[i] = 0;
                engine_failed = 1;
                pthread_cond_broadcast(&released);
                break;
            }
            engines[i] = e;
            if (!exit_registered) {
                atexit(delete_engines);
                exit_registered = 1;
            }
            pthread_mutex_unlock(&lock);
            return i;
        }
        pthread_cond_wait(&released, &lock);
    }
    pthread_mutex_unlock(&lock);
    return -1;
}

static void release(int i) {
    pthread_mutex_lock(&lock);
    busy[i] = 0;
    pthread_cond_signal(&released);
    pthread_mutex_unlock(&lock);
}

void ss_ocr_set_max_engines(int n) {
    pthread_mutex_lock(&lock);
    max_engines = n < 1 ? 1 : n > SS_OCR_POOL ? SS_OCR_POOL : n;
    pthread_cond_broadcast(&released);
    pthread_mutex_unlock(&lock);
}

int ss_ocr_release_idle(void) {
    pthread_mutex_lock(&lock);
    int n = 0;
    for (int i = 0; i < created; i++) {
        if (engines[i] && !busy[i]) {
            tess.TessBaseAPIDelete(engines[i]);
            engines[i] = NULL;
            n++;
        }
    }
    pthread_mutex_unlock(&lock);
    return n;
}

int ss_ocr_engines(void) {
    pthread_mutex_lock(&lock);
    int n = 0;
    for (int i = 0; i < created; i++) n += engines[i] != NULL;
    pthread_mutex_unlock(&lock);
    return n;
}

int ss_ocr_hold(void) { return acquire(); }

void ss_ocr_release(int held) {
    if (held >= 0 && held < SS_OCR_POOL) release(held);
}

// Debian's Tesseract runs OpenMP teams of four threads (`num_threads(4)` in its LSTM) whose idle
// members spin between parallel regions: time taken from the scan's other workers, and a
// background agent should never spin. With max-active-levels 0 no parallel region is active, so
// each runs on the calling thread alone and no team is ever started (OpenMP 5.1, 2.6.1; libgomp's
// gomp_resolve_num_threads). The variable is per task in libgomp >= 11 (the calling thread
// here), so it is set on every call, on the thread that is about to recognize.
static void no_openmp_teams(void) {
    if (omp_set_levels) omp_set_levels(0);
}

int ss_ocr_max_active_levels(void) {
    if (!tesseract_loaded() || !omp_get_levels) return -1;
    return omp_get_levels();
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
    int slot = acquire();
    if (slot < 0) {
        if (!tesseract_loaded()) snprintf(msg, SS_OCR_MSG, "%s", load_error);
        else snprintf(msg, SS_OCR_MSG, "Tesseract could not start (is tesseract-ocr-eng installed?)");
        return -1;
    }
    TessBaseAPI *engine = engines[slot];
    no_openmp_teams();
    tess.TessBaseAPISetPageSegMode(engine, PSM_AUTO);
    tess.TessBaseAPISetImage(engine, gray, width, height, 1, width);
    tess.TessBaseAPISetSourceResolution(engine, 300);
    if (tess.TessBaseAPIRecognize(engine, NULL) != 0) {
        tess.TessBaseAPIClear(engine);
        release(slot);
        snprintf(msg, SS_OCR_MSG, "Tesseract recognition failed");
        return -1;
    }
    size_t used = 0;
    TessResultIterator *it = tess.TessBaseAPIGetIterator(engine);
    if (it) {
        TessPageIterator *pi = tess.TessResultIteratorGetPageIterator(it);
        do {
            char *w = tess.TessResultIteratorGetUTF8Text(it, RIL_WORD);
            if (!w) continue;
            float conf = tess.TessResultIteratorConfidence(it, RIL_WORD);
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
            tess.TessDeleteText(w);
        } while (tess.TessPageIteratorNext(pi, RIL_WORD));
        tess.TessResultIteratorDelete(it);
    }
    tess.TessBaseAPIClear(engine);
    release(slot);
    return 0;
}
