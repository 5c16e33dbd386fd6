#ifndef SNAPSORT_VISION_H
#define SNAPSORT_VISION_H
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// One face found by a detector, in pixels of the image passed in.
typedef struct {
    float x, y, width, height;
    /// The detector's confidence (HOG: 0 is its default threshold, higher is surer; YuNet: 0…1).
    float score;
    /// Eye aspect ratios from the 68-point landmarks (Soukupová & Čech 2016): open eyes ≈ 0.3,
    /// closed < 0.2; -1 when the landmark model is not loaded.
    float left_eye, right_eye;
    /// The square the landmark model is given (`ssv_eye_ratios`): its top-left corner and side.
    /// The model was trained on the boxes of dlib's HOG detector, so a detector that frames faces
    /// otherwise gives the square HOG would; a side of 0 means the face's own box.
    float shape_x, shape_y, shape_side;
} ssv_face;

/// Loads the 68-point landmark model (dlib's shape_predictor_68_face_landmarks.dat) once.
/// Returns 0, or -1 with a message in `msg`. The HOG detector needs no file.
int ssv_load_landmarks(const char *path, char *msg, size_t msg_len);

/// Finds faces in an 8-bit RGB image (rows of `width` * 3 bytes). Writes up to `max_faces` to
/// `out` (eyes -1) and returns how many were found (may exceed `max_faces`), or -1 with a
/// message. The detector is built on the first call (and kept); the image is kept for
/// `ssv_eye_ratios` until the next call.
int ssv_detect_faces(const uint8_t *rgb, int width, int height, ssv_face *out, int max_faces, char *msg, size_t msg_len);

/// Loads the DNN face detector (YuNet in ONNX, `share/models/face_detection_yunet.onnx`; one
/// thread, OpenCV's CPU backend). Returns 0, or -1 with a message in `msg`.
int ssv_load_face_detector(const char *model, char *msg, size_t msg_len);

/// Finds faces in an 8-bit RGB image with the DNN detector (`ssv_load_face_detector` first), as
/// `ssv_detect_faces` does: up to `max_faces` in `out`, surest first, as squares around the
/// detector's boxes (side the mean of their sides), the landmark model's squares in `shape_*`,
/// `score` the detector's confidence 0…1 (from 0.3); returns how many were found, or -1 with a
/// message. The image is kept for `ssv_eye_ratios`.
int ssv_detect_faces_dnn(const uint8_t *rgb, int width, int height, ssv_face *out, int max_faces, char *msg, size_t msg_len);

/// Fills the eye aspect ratios of the first `count` faces found by the last `ssv_detect_faces`
/// or `ssv_detect_faces_dnn` call whose side is at least `min_side` pixels (the others keep -1:
/// a small face's eye is a few pixels high, its ratio noise), with the landmark model
/// (`ssv_load_landmarks` first) placed from each face's `shape_*` square (its box when
/// `shape_side` is 0). Returns 0, or -1 with a message.
int ssv_eye_ratios(ssv_face *faces, int count, float min_side, char *msg, size_t msg_len);

/// Loads an ImageNet classifier in ONNX (OpenCV DNN, one thread) with two outputs, `scores`
/// (1000 probabilities) and `embedding`. Returns 0, or -1 with a message.
int ssv_load_classifier(const char *path, char *msg, size_t msg_len);

/// Classifies an 8-bit RGB image (resized whole to 224×224, (v − 127) / 128). Writes
/// `n_scores` probabilities and up to `n_embedding` embedding values; returns the embedding's
/// length, or -1 with a message.
int ssv_classify(const uint8_t *rgb, int width, int height, float *scores, int n_scores, float *embedding, int n_embedding,
                 char *msg, size_t msg_len);

/// What geometric verification found between two frames (`ssv_match_frames`).
typedef struct {
    /// ORB keypoints found in each frame.
    int keypoints_a, keypoints_b;
    /// Mutual nearest-neighbour descriptor matches passing the ratio test.
    int matches;
    /// Matches consistent with the RANSAC homography (0 when none was found).
    int inliers;
    /// The smaller of the two frames' shares that the other covers under the homography (0…1).
    float shared_area;
} ssv_match;

/// Matches two 8-bit grey frames (rows of `width` bytes) by ORB keypoints and a RANSAC
/// homography. Returns 0 (with `out` filled; no homography is not an error), or -1 with a message.
int ssv_match_frames(const uint8_t *gray_a, int width_a, int height_a, const uint8_t *gray_b, int width_b, int height_b,
                     ssv_match *out, char *msg, size_t msg_len);

/// A sheet of paper found in a photo (`ssv_find_page`).
typedef struct {
    /// 1 when a page was found; the other fields are 0 otherwise.
    int found;
    /// Its corners in pixels of the image passed in: top-left, top-right, bottom-right,
    /// bottom-left (x, y each).
    float corners[8];
    /// The page's share of the frame (its quadrilateral's area over the frame's).
    float share;
    /// Text lines across the page rectified to a rectangle: bands of rows with ink, each at most
    /// a tenth of the page high, counted along the page and across it; the larger count.
    int lines;
    /// The share of the rectified page's pixels that are ink (darker than their surroundings).
    float ink;
} ssv_page;

/// Looks for a sheet of paper in an 8-bit RGB image: regions of at least 8 % of the frame —
/// bright and colourless, or enclosed by edges — whose outline is a convex quadrilateral they
/// fill (a page seen at an angle is one, under perspective); rectifies each (a perspective warp
/// to a rectangle of its mean side lengths) and keeps the one with the most text lines (bands
/// of ink made of separate marks). Returns 0 (with `out` filled; no page is not an error), or
/// -1 with a message.
int ssv_find_page(const uint8_t *rgb, int width, int height, ssv_page *out, char *msg, size_t msg_len);

#ifdef __cplusplus
}
#endif
#endif
