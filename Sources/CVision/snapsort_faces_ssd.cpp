// Faces through OpenCV's DNN face detector (a ResNet-10 SSD, `res10_300x300_ssd_iter_140000`,
// run by OpenCV DNN), behind plain C functions like the rest of the shim. It finds frontal and
// three-quarter faces, grey and colour, from ~7 % of the picture's short side, and scores them
// 0…1 with a wide gap between faces and texture, where dlib's HOG scored real faces 0.02–0.12
// when they were grey, small, upscaled or turned. The eye term still uses dlib's 68-point
// landmarks (`ssv_eye_ratios`), placed from the square HOG gives the same face.
#include "snapsort_vision.h"
#include "snapsort_vision_internal.hpp"

#include <opencv2/core.hpp>
#include <opencv2/dnn.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>
#include <memory>
#include <vector>

namespace {
using ssv_internal::set_message;

std::unique_ptr<cv::dnn::Net> face_net;

// The network's input: the picture scaled whole (aspect kept) to this long side. The SSD was
// trained at 300×300; 384 on the long side keeps a 4:3 picture's faces from 7 % of its short
// side (the smallest People counts is 8 %) at ~30 px, where it still scores them surely.
constexpr int input_long_side = 384;
// Detections under this are not reported (the People rule asks for more, `VisionRules`).
constexpr float report_floor = 0.2f;
// A second look: a detection from this score up is looked at again in a square crop of
// `verify_margin` times its box, at the 300×300 the network was trained at, and its score is
// the second look's. A face seen at its own scale scores 0.99–1 there; the textures and animal
// faces the whole-picture pass scored 0.6–0.8 (a leaf, a squirrel) stay at 0.3–0.8.
constexpr float verify_floor = 0.5f;
constexpr float verify_margin = 1.6f;
constexpr int verify_max = 4;
// The square dlib's HOG gives a face the SSD boxed, as the mean over the 75 faces both
// detectors find in Debian's real photos with faces (bench/eyes.py: dlib's example faces,
// OpenCV's documentation): HOG's centre lies 5 % of the SSD box's height below the SSD's (the
// SSD's box reaches up the forehead), its side is 0.94 of the mean of the SSD's sides. On the
// faces of a film clip that blink and close their eyes (opencv-doc's Megamind.avi), landmarks
// placed from this square tell closed eyes from open ones with an AUC of 0.96, from the SSD's
// square 0.83 (open eyes read under the keeper's 0.25: 0 of 208 faces, from 17).
constexpr float shape_drop = 0.05f;
constexpr float shape_scale = 0.94f;

float overlap(const ssv_face &a, const ssv_face &b) {
    const float x0 = std::max(a.x, b.x), y0 = std::max(a.y, b.y);
    const float x1 = std::min(a.x + a.width, b.x + b.width), y1 = std::min(a.y + a.height, b.y + b.height);
    if (x1 <= x0 || y1 <= y0) return 0;
    const float inter = (x1 - x0) * (y1 - y0);
    return inter / (a.width * a.height + b.width * b.height - inter);
}

// Runs the network on `image` scaled to `size`; the rows (image, class, confidence, x0, y0, x1,
// y1), corners in 0…1 of `image`.
cv::Mat detect(const cv::Mat &image, const cv::Size &size) {
    // The Caffe model's preprocessing: BGR, mean (104, 177, 123), no scaling. swapRB turns our
    // RGB into BGR (the mean is given in the network's order).
    const cv::Mat blob = cv::dnn::blobFromImage(image, 1.0, size, cv::Scalar(104, 177, 123), true, false);
    face_net->setInput(blob);
    const cv::Mat result = face_net->forward();
    // 1×1×N×7.
    return cv::Mat(result.size[2], result.size[3], CV_32F, const_cast<float *>(result.ptr<float>())).clone();
}

// The second look's score for a face whose box is (x0, y0)–(x1, y1) in `image`: the best
// detection in the crop whose centre falls inside the first box.
float second_look(const cv::Mat &image, float x0, float y0, float x1, float y1) {
    const float cx = 0.5f * (x0 + x1), cy = 0.5f * (y0 + y1);
    const float side = std::max(x1 - x0, y1 - y0) * verify_margin;
    cv::Rect roi(int(std::lround(cx - side / 2)), int(std::lround(cy - side / 2)), int(std::lround(side)), int(std::lround(side)));
    roi &= cv::Rect(0, 0, image.cols, image.rows);
    if (roi.width < 2 || roi.height < 2) return 0;
    const cv::Mat rows = detect(image(roi), cv::Size(300, 300));
    float best = 0;
    for (int r = 0; r < rows.rows; r++) {
        const float *d = rows.ptr<float>(r);
        const float ex = float(roi.x) + 0.5f * (d[3] + d[5]) * float(roi.width);
        const float ey = float(roi.y) + 0.5f * (d[4] + d[6]) * float(roi.height);
        if (std::abs(ex - cx) < 0.5f * (x1 - x0) && std::abs(ey - cy) < 0.5f * (y1 - y0)) best = std::max(best, d[2]);
    }
    return best;
}

}  // namespace

extern "C" int ssv_load_face_detector(const char *config, const char *weights, char *msg, size_t msg_len) {
    return ssv_internal::load_net([&] { return cv::dnn::readNetFromCaffe(config, weights); }, face_net, "the face detector", msg, msg_len);
}

extern "C" int ssv_detect_faces_ssd(const uint8_t *rgb, int width, int height, ssv_face *out, int max_faces, char *msg,
                                    size_t msg_len) {
    if (!face_net) {
        set_message(msg, msg_len, "the face detector is not loaded");
        return -1;
    }
    if (!rgb || width <= 0 || height <= 0) {
        set_message(msg, msg_len, "empty image");
        return -1;
    }
    return ssv_internal::guarded("unknown error in face detection", msg, msg_len, [&]() -> int {
        ssv_internal::keep_luma(rgb, width, height);
        const cv::Mat image(height, width, CV_8UC3, const_cast<uint8_t *>(rgb));
        const double k = double(input_long_side) / double(std::max(width, height));
        const cv::Size size(std::max(1, int(std::lround(width * k))), std::max(1, int(std::lround(height * k))));
        const cv::Mat rows = detect(image, size);
        std::vector<ssv_face> found;
        int looked = 0;
        for (int r = 0; r < rows.rows; r++) {
            const float *d = rows.ptr<float>(r);
            float score = d[2];
            if (!(score >= report_floor)) continue;
            const float x0 = std::clamp(d[3], 0.f, 1.f) * float(width), y0 = std::clamp(d[4], 0.f, 1.f) * float(height);
            const float x1 = std::clamp(d[5], 0.f, 1.f) * float(width), y1 = std::clamp(d[6], 0.f, 1.f) * float(height);
            if (x1 - x0 < 2 || y1 - y0 < 2) continue;
            if (score >= verify_floor && looked < verify_max) {
                score = second_look(image, x0, y0, x1, y1);
                looked++;
            }
            // The face: a square centred on the SSD's box, of the mean of its sides (the SSD's
            // box is taller than wide, forehead to chin; People's size rule reads this side).
            const float side = 0.5f * ((x1 - x0) + (y1 - y0));
            const float cx = 0.5f * (x0 + x1), cy = 0.5f * (y0 + y1);
            ssv_face f{};
            f.x = cx - side / 2;
            f.y = cy - side / 2;
            f.width = side;
            f.height = side;
            // The landmarks' square: where dlib's HOG detector, whose boxes the 68-point model
            // was trained on, frames the same face (brows to chin) — lower by `shape_drop` of
            // the SSD box's height and `shape_scale` times the side above (bench/eyes.py).
            const float shape = shape_scale * side;
            f.shape_x = cx - shape / 2;
            f.shape_y = cy + shape_drop * (y1 - y0) - shape / 2;
            f.shape_side = shape;
            f.score = score;
            f.left_eye = -1;
            f.right_eye = -1;
            // The network's own suppression leaves near copies of one face at some scales.
            const bool copy = std::any_of(found.begin(), found.end(), [&](const ssv_face &g) { return overlap(f, g) > 0.5f; });
            if (!copy) found.push_back(f);
        }
        std::sort(found.begin(), found.end(), [](const ssv_face &a, const ssv_face &b) { return a.score > b.score; });
        const int n = int(found.size());
        for (int i = 0; i < n && i < max_faces && out; i++) out[i] = found[size_t(i)];
        return n;
    });
}
