// Faces through YuNet (Wu, Peng & Yu 2023, "YuNet: A Tiny Millisecond-level Face Detector"; the
// network of libfacedetection, as `share/models/face_detection_yunet.onnx`, see its README), run
// by OpenCV DNN, behind plain C functions like the rest of the shim. Debian 12's OpenCV 4.6 has
// `cv::FaceDetectorYN`, but it decodes the 2021–2022 YuNet's prior-box outputs (`loc`, `conf`,
// `iou`); this model has the anchor-free heads of the 2023 one (per stride 8, 16 and 32: `cls`,
// `obj`, `bbox`, `kps`), which OpenCV decodes from 4.8 on. So the decoding is here: a score
// of sqrt(sigmoid(cls) · sigmoid(obj)), a box of centre (col + d0, row + d1) · stride and sides
// exp(d2, d3) · stride, then non-maximum suppression, as libfacedetection does. The eye term
// still uses dlib's 68-point landmarks (`ssv_eye_ratios`), placed from the square dlib's HOG
// detector gives the same face.
#include "snapsort_vision.h"
#include "snapsort_vision_internal.hpp"

#include <opencv2/core.hpp>
#include <opencv2/dnn.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

namespace {
using ssv_internal::set_message;

std::unique_ptr<cv::dnn::Net> face_net;

// The network's input: the picture scaled whole (aspect kept) to this long side, padded with
// black to multiples of 32 (the network's coarsest stride). YuNet finds faces from ~10 px to
// ~300 px at its input; at 512 px a 4:3 picture's faces from 3 % of its short side (the
// smallest People counts is 8 %: 31 px) up to three quarters of it are in that range, and a
// portrait that fills the frame is found too (the stride-32 head's boxes grow with exp(d)).
// On DEV (seed 1) the faces of People's photos score 0.89 and up at 512 px, the rest at most
// 0.72 (a squirrel); at 320 px DEV's faces of 8–10 % scored 0.80–0.81 and the squirrel 0.75, no
// room for a threshold; at 640 px 0.88 and 0.67, in 1.6 times the time of 512 px.
constexpr int input_long_side = 512;
// Detections under this are not reported (the People rule asks for more, `VisionRules`).
constexpr float report_floor = 0.3f;
// Two boxes overlapping more than this (intersection over union) are one face: the surer one.
constexpr float nms_overlap = 0.45f;
// At most this many candidates go into the suppression (libfacedetection keeps 1000).
constexpr int top_k = 1000;
constexpr int strides[3] = {8, 16, 32};

// The square dlib's HOG gives a face YuNet found (bench/eyes.py, `--fit`, on the real photos
// with faces in Debian's packages): its centre on the line from the eyes' midpoint to the mouth
// corners' midpoint (YuNet's own keypoints), `shape_along` of the way down (0.47; across it
// 0.01 ± 0.09), its side `shape_scale` times the mean of YuNet's box sides (0.98; ± 9 %). From
// the keypoints the centre misses HOG's by 5.5 % of the side on average, from the box (4 % of
// its height lower) by 8.4 %, and the eyes of a turned or tilted face then fall off the
// predictor's places (a rendered film's open eyes read shut).
constexpr float shape_along = 0.47f;
constexpr float shape_scale = 0.98f;

float sigmoid(float v) { return 1.f / (1.f + std::exp(-std::clamp(v, -88.f, 88.f))); }

}  // namespace

extern "C" int ssv_load_face_detector(const char *model, char *msg, size_t msg_len) {
    return ssv_internal::load_net([&] { return cv::dnn::readNetFromONNX(model); }, face_net, "the face detector", msg, msg_len);
}

extern "C" int ssv_detect_faces_dnn(const uint8_t *rgb, int width, int height, ssv_face *out, int max_faces, char *msg,
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
        const int w = std::max(1, int(std::lround(width * k))), h = std::max(1, int(std::lround(height * k)));
        // libfacedetection's input: B, G, R bytes as they are (no mean, no scale), zero padding.
        cv::Mat padded = cv::Mat::zeros((h + 31) / 32 * 32, (w + 31) / 32 * 32, CV_8UC3);
        cv::Mat scaled;
        cv::resize(image, scaled, cv::Size(w, h), 0, 0, k < 1 ? cv::INTER_AREA : cv::INTER_LINEAR);
        cv::cvtColor(scaled, padded(cv::Rect(0, 0, w, h)), cv::COLOR_RGB2BGR);
        face_net->setInput(cv::dnn::blobFromImage(padded));
        static const std::vector<cv::String> names = {"cls_8",  "obj_8",  "bbox_8",  "kps_8",  "cls_16", "obj_16",
                                                      "bbox_16", "kps_16", "cls_32", "obj_32", "bbox_32", "kps_32"};
        std::vector<cv::Mat> maps;
        face_net->forward(maps, names);
        if (maps.size() != names.size()) {
            set_message(msg, msg_len, "the face detector's outputs are not YuNet's heads");
            return -1;
        }
        std::vector<cv::Rect2d> boxes;
        std::vector<float> scores;
        // Per candidate: the eyes' midpoint and the mouth corners' midpoint (x, y each).
        std::vector<cv::Vec4f> features;
        for (int level = 0; level < 3; level++) {
            const cv::Mat &cls = maps[size_t(level * 4)], &obj = maps[size_t(level * 4 + 1)];
            const cv::Mat &bbox = maps[size_t(level * 4 + 2)], &kps = maps[size_t(level * 4 + 3)];
            const int rows = cls.size[2], cols = cls.size[3], plane = rows * cols;
            const float *c = cls.ptr<float>(), *o = obj.ptr<float>(), *b = bbox.ptr<float>(), *p = kps.ptr<float>();
            const float stride = float(strides[level]);
            for (int i = 0; i < plane; i++) {
                const float score = std::sqrt(sigmoid(c[i]) * sigmoid(o[i]));
                if (!(score >= report_floor)) continue;
                const float cx = (float(i % cols) + b[i]) * stride, cy = (float(i / cols) + b[plane + i]) * stride;
                const float bw = std::exp(std::min(b[2 * plane + i], 10.f)) * stride;
                const float bh = std::exp(std::min(b[3 * plane + i], 10.f)) * stride;
                // Back to the picture's pixels.
                boxes.emplace_back((cx - bw / 2) / k, (cy - bh / 2) / k, bw / k, bh / k);
                scores.push_back(score);
                // Keypoints: the subject's right eye, left eye, nose, right and left mouth corner,
                // each (col + dx, row + dy) · stride.
                auto point = [&](int n, int axis) {
                    return ((axis == 0 ? float(i % cols) : float(i / cols)) + p[(2 * n + axis) * plane + i]) * stride / float(k);
                };
                features.emplace_back(0.5f * (point(0, 0) + point(1, 0)), 0.5f * (point(0, 1) + point(1, 1)), 0.5f * (point(3, 0) + point(4, 0)),
                                      0.5f * (point(3, 1) + point(4, 1)));
            }
        }
        std::vector<int> keep;
        cv::dnn::NMSBoxes(boxes, scores, report_floor, nms_overlap, keep, 1.f, top_k);
        std::vector<ssv_face> found;
        for (int i : keep) {
            const cv::Rect2d &r = boxes[size_t(i)];
            const float x0 = std::max(0.f, float(r.x)), y0 = std::max(0.f, float(r.y));
            const float x1 = std::min(float(width), float(r.x + r.width)), y1 = std::min(float(height), float(r.y + r.height));
            if (x1 - x0 < 2 || y1 - y0 < 2) continue;
            // The face: a square centred on YuNet's box, of the mean of its sides (People's
            // size rule reads this side).
            const float side = 0.5f * ((x1 - x0) + (y1 - y0));
            const float cx = 0.5f * (x0 + x1), cy = 0.5f * (y0 + y1);
            ssv_face f{};
            f.x = cx - side / 2;
            f.y = cy - side / 2;
            f.width = side;
            f.height = side;
            // The landmarks' square: where dlib's HOG detector, whose boxes the 68-point model
            // was trained on, frames the same face (bench/eyes.py).
            const cv::Vec4f &e = features[size_t(i)];
            const float shape = shape_scale * side;
            f.shape_x = e[0] + shape_along * (e[2] - e[0]) - shape / 2;
            f.shape_y = e[1] + shape_along * (e[3] - e[1]) - shape / 2;
            f.shape_side = shape;
            f.score = scores[size_t(i)];
            f.left_eye = -1;
            f.right_eye = -1;
            found.push_back(f);
        }
        std::sort(found.begin(), found.end(), [](const ssv_face &a, const ssv_face &b) { return a.score > b.score; });
        const int n = int(found.size());
        for (int i = 0; i < n && i < max_faces && out; i++) out[i] = found[size_t(i)];
        return n;
    });
}
