// The vision helper's C++ edge: dlib's HOG face detector and 68-point landmarks, and an ImageNet
// classifier through OpenCV DNN, and two frames' geometric verification (ORB + RANSAC homography),
// behind plain C functions. Nothing here throws across the C
// boundary: every dlib or OpenCV exception becomes -1 + message.
#include "snapsort_vision.h"
#include "snapsort_vision_internal.hpp"

#include <dlib/image_processing.h>
#include <dlib/image_processing/frontal_face_detector.h>
#include <opencv2/calib3d.hpp>
#include <opencv2/core.hpp>
#include <opencv2/dnn.hpp>
#include <opencv2/features2d.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <exception>
#include <memory>
#include <vector>

namespace {
using ssv_internal::set_message;

std::unique_ptr<dlib::frontal_face_detector> detector;
std::unique_ptr<dlib::shape_predictor> landmarks;
// The last image's luma, for the landmarks of the faces found in it.
dlib::array2d<unsigned char> last_gray;
std::unique_ptr<cv::dnn::Net> classifier;

double distance(const dlib::point &a, const dlib::point &b) {
    const double dx = double(a.x() - b.x()), dy = double(a.y() - b.y());
    return std::sqrt(dx * dx + dy * dy);
}

// Eye aspect ratio over the six landmarks of one eye, starting at `first` (36: the subject's
// right eye, 42: the left): (|p2−p6| + |p3−p5|) / (2·|p1−p4|).
float eye_aspect_ratio(const dlib::full_object_detection &s, unsigned long first) {
    const double width = distance(s.part(first), s.part(first + 3));
    if (width <= 0) return -1;
    const double a = distance(s.part(first + 1), s.part(first + 5));
    const double b = distance(s.part(first + 2), s.part(first + 4));
    return float((a + b) / (2.0 * width));
}

}  // namespace

void ssv_internal::keep_luma(const uint8_t *rgb, int width, int height) {
    last_gray.set_size(height, width);
    for (int y = 0; y < height; y++) {
        const uint8_t *row = rgb + size_t(y) * size_t(width) * 3;
        for (int x = 0; x < width; x++) {
            const uint8_t *p = row + size_t(x) * 3;
            // BT.601 luma, as the rest of SnapSort measures.
            last_gray[y][x] = (unsigned char)((299 * p[0] + 587 * p[1] + 114 * p[2] + 500) / 1000);
        }
    }
}

extern "C" int ssv_load_landmarks(const char *path, char *msg, size_t msg_len) {
    return ssv_internal::guarded("unknown error loading the landmark model", msg, msg_len, [&]() -> int {
        auto model = std::make_unique<dlib::shape_predictor>();
        dlib::deserialize(path) >> *model;
        landmarks = std::move(model);
        return 0;
    });
}

extern "C" int ssv_detect_faces(const uint8_t *rgb, int width, int height, ssv_face *out, int max_faces, char *msg,
                                size_t msg_len) {
    if (!rgb || width <= 0 || height <= 0) {
        set_message(msg, msg_len, "empty image");
        return -1;
    }
    return ssv_internal::guarded("unknown error in face detection", msg, msg_len, [&]() -> int {
        if (!detector) detector = std::make_unique<dlib::frontal_face_detector>(dlib::get_frontal_face_detector());
        ssv_internal::keep_luma(rgb, width, height);
        std::vector<dlib::rect_detection> found;
        (*detector)(last_gray, found, 0.0);
        int n = 0;
        for (const auto &d : found) {
            if (n < max_faces && out) {
                ssv_face f{};
                f.x = float(d.rect.left());
                f.y = float(d.rect.top());
                f.width = float(d.rect.width());
                f.height = float(d.rect.height());
                f.score = float(d.detection_confidence);
                f.left_eye = -1;
                f.right_eye = -1;
                out[n] = f;
            }
            n++;
        }
        return n;
    });
}

extern "C" int ssv_eye_ratios(ssv_face *faces, int count, float min_side, char *msg, size_t msg_len) {
    if (!landmarks) {
        set_message(msg, msg_len, "the landmark model is not loaded");
        return -1;
    }
    return ssv_internal::guarded("unknown error in face landmarks", msg, msg_len, [&]() -> int {
        for (int i = 0; i < count; i++) {
            ssv_face &f = faces[i];
            if (f.width < min_side) continue;
            const bool square = f.shape_side > 0;
            const float x = square ? f.shape_x : f.x, y = square ? f.shape_y : f.y;
            const float w = square ? f.shape_side : f.width, h = square ? f.shape_side : f.height;
            const dlib::rectangle box(long(x), long(y), long(x + w) - 1, long(y + h) - 1);
            const dlib::full_object_detection shape = (*landmarks)(last_gray, box);
            if (shape.num_parts() == 68) {
                f.right_eye = eye_aspect_ratio(shape, 36);
                f.left_eye = eye_aspect_ratio(shape, 42);
            }
        }
        return 0;
    });
}

extern "C" int ssv_load_classifier(const char *path, char *msg, size_t msg_len) {
    return ssv_internal::load_net([&] { return cv::dnn::readNetFromONNX(path); }, classifier, "the classifier", msg, msg_len);
}

extern "C" int ssv_classify(const uint8_t *rgb, int width, int height, float *scores, int n_scores, float *embedding,
                            int n_embedding, char *msg, size_t msg_len) {
    if (!classifier) {
        set_message(msg, msg_len, "the classifier is not loaded");
        return -1;
    }
    if (!rgb || width <= 0 || height <= 0) {
        set_message(msg, msg_len, "empty image");
        return -1;
    }
    return ssv_internal::guarded("unknown error in classification", msg, msg_len, [&]() -> int {
        const cv::Mat image(height, width, CV_8UC3, const_cast<uint8_t *>(rgb));
        // EfficientNet-Lite's TF preprocessing: (v − 127) / 128, RGB, the whole frame.
        const cv::Mat blob = cv::dnn::blobFromImage(image, 1.0 / 128.0, cv::Size(224, 224), cv::Scalar(127, 127, 127), false, false);
        classifier->setInput(blob, "image");
        std::vector<cv::Mat> outs;
        classifier->forward(outs, std::vector<cv::String>{"scores", "embedding"});
        if (outs.size() != 2 || outs[0].total() < size_t(n_scores)) {
            set_message(msg, msg_len, "the classifier's outputs are not scores and embedding");
            return -1;
        }
        const float *s = outs[0].ptr<float>();
        for (int i = 0; i < n_scores; i++) scores[i] = s[i];
        const int dims = int(outs[1].total());
        const float *e = outs[1].ptr<float>();
        for (int i = 0; i < dims && i < n_embedding && embedding; i++) embedding[i] = e[i];
        return dims;
    });
}

namespace {

// The share of frame `a` (w×h) whose points land inside frame `b` (bw×bh) under `h` (a → b),
// sampled on a 24×24 grid of cell centres.
float covered_share(const cv::Mat &h, int w, int hgt, int bw, int bh) {
    constexpr int n = 24;
    std::vector<cv::Point2f> grid;
    grid.reserve(n * n);
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++) grid.emplace_back((i + 0.5f) * float(w) / n, (j + 0.5f) * float(hgt) / n);
    std::vector<cv::Point2f> mapped;
    cv::perspectiveTransform(grid, mapped, h);
    int inside = 0;
    for (const auto &p : mapped)
        if (p.x >= 0 && p.y >= 0 && p.x < float(bw) && p.y < float(bh)) inside++;
    return float(inside) / float(n * n);
}

}  // namespace

extern "C" int ssv_match_frames(const uint8_t *gray_a, int width_a, int height_a, const uint8_t *gray_b, int width_b,
                                int height_b, ssv_match *out, char *msg, size_t msg_len) {
    if (!gray_a || !gray_b || width_a <= 0 || height_a <= 0 || width_b <= 0 || height_b <= 0 || !out) {
        set_message(msg, msg_len, "empty image");
        return -1;
    }
    return ssv_internal::guarded("unknown error in frame matching", msg, msg_len, [&]() -> int {
        cv::setNumThreads(1);
        *out = ssv_match{};
        cv::Mat a(height_a, width_a, CV_8UC1, const_cast<uint8_t *>(gray_a));
        cv::Mat b(height_b, width_b, CV_8UC1, const_cast<uint8_t *>(gray_b));
        // Matched at 256 px: a blur ladder's softest frames (a Gaussian of 1 % of the long
        // side, a shake of 3 %) keep corners there that they lose at 512 px (DEV: 115 of 116
        // same-set pairs matched at 256 px, 63 at 512). Larger frames are reduced (area).
        constexpr int side = 256;
        auto reduce = [](cv::Mat &m, int &w, int &h) {
            const int long_side = std::max(w, h);
            if (long_side <= side) return;
            const double f = double(side) / long_side;
            cv::Mat r;
            cv::resize(m, r, cv::Size(), f, f, cv::INTER_AREA);
            m = r;
            w = m.cols;
            h = m.rows;
        };
        reduce(a, width_a, height_a);
        reduce(b, width_b, height_b);
        // Local contrast equalized (CLAHE): a dark or blurred frame's corners pass FAST's
        // threshold as the sharp frame's do.
        auto clahe = cv::createCLAHE(2.0, cv::Size(8, 8));
        cv::Mat ea, eb;
        clahe->apply(a, ea);
        clahe->apply(b, eb);
        a = ea;
        b = eb;
        // ORB (Rublee et al. 2011): FAST corners with a rotation-aware BRIEF descriptor; a
        // shift, a few degrees of turn, a zoom and an exposure change leave it matching.
        // Patches of 15 px and a FAST threshold of 5 suit a 256 px frame.
        auto orb = cv::ORB::create(1000, 1.2f, 8, 15, 0, 2, cv::ORB::HARRIS_SCORE, 15, 5);
        std::vector<cv::KeyPoint> ka, kb;
        cv::Mat da, db;
        orb->detectAndCompute(a, cv::noArray(), ka, da);
        orb->detectAndCompute(b, cv::noArray(), kb, db);
        out->keypoints_a = int(ka.size());
        out->keypoints_b = int(kb.size());
        if (ka.size() < 8 || kb.size() < 8) return 0;
        // Lowe's ratio test both ways, then mutual best matches only.
        cv::BFMatcher matcher(cv::NORM_HAMMING);
        std::vector<std::vector<cv::DMatch>> ab, ba;
        matcher.knnMatch(da, db, ab, 2);
        matcher.knnMatch(db, da, ba, 2);
        std::vector<int> best_ba(kb.size(), -1);
        for (const auto &m : ba)
            if (m.size() == 2 && m[0].distance < 0.8f * m[1].distance) best_ba[m[0].queryIdx] = m[0].trainIdx;
        std::vector<cv::Point2f> pa, pb;
        for (const auto &m : ab) {
            if (m.size() < 2 || m[0].distance >= 0.8f * m[1].distance) continue;
            if (best_ba[m[0].trainIdx] != m[0].queryIdx) continue;
            pa.push_back(ka[m[0].queryIdx].pt);
            pb.push_back(kb[m[0].trainIdx].pt);
        }
        out->matches = int(pa.size());
        if (pa.size() < 8) return 0;
        // RANSAC with a reprojection threshold of 1 % of the long side; a fixed seed keeps
        // the verdict the same on every run.
        cv::theRNG().state = 0x5eed;
        const double threshold = 0.01 * std::max(width_a, height_a);
        std::vector<unsigned char> mask;
        const cv::Mat h = cv::findHomography(pa, pb, cv::RANSAC, threshold, mask, 2000, 0.995);
        if (h.empty()) return 0;
        int inliers = 0;
        for (unsigned char m : mask) inliers += m ? 1 : 0;
        out->inliers = inliers;
        const float ab_share = covered_share(h, width_a, height_a, width_b, height_b);
        const float ba_share = covered_share(h.inv(), width_b, height_b, width_a, height_a);
        out->shared_area = std::min(ab_share, ba_share);
        return 0;
    });
}
