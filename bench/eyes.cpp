// bench/eyes.cpp — the faces' landmarks from the boxes the helper could give dlib's 68-point
// shape predictor; built and run by bench/eyes.py (read it first).
//   eyes [--map DX DY SW SH] IMAGE…   one JSON line per image on stdout
// Each image is decoded upright (OpenCV applies the EXIF orientation), scaled to a 1024 px long
// side as `VisionImage` sends the helper, and looked at by
// - YuNet as the helper runs it (`snapsort_faces_yunet.cpp`; SIDE: its input's long side,
//   default 512), raw boxes kept;
// - dlib's HOG frontal face detector (the boxes the landmark model was trained on), no upsampling
//   and once upsampled 2× for faces under its 80 px window.
// For each YuNet face from MIN_SCORE (default 0.8, the People threshold) it runs the shape predictor on
//   raw    the YuNet box as it is;
//   square the square the helper gives since the YuNet came in (centred, side the mean of the sides);
//   map    (with --map) the square centred at (cx + DX·w, cy + DY·h) of side SW·w + SH·h, where
//          (cx, cy, w, h) is the YuNet box — the linear map to HOG's framing eyes.py fits;
//   hog    the HOG box overlapping the YuNet box most, when there is one.
// and prints each variant's 68 points and eye aspect ratios.
#include <dlib/image_processing.h>
#include <dlib/image_processing/frontal_face_detector.h>
#include <opencv2/core.hpp>
#include <opencv2/dnn.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

struct Box {
    double x0, y0, x1, y1, score;
    // YuNet's keypoints: the eyes' midpoint and the mouth corners' midpoint (x, y each).
    double ex = 0, ey = 0, mx = 0, my = 0;
};

cv::dnn::Net net;
// The People threshold (`VisionRules.minFaceScore`; MIN_SCORE overrides it).
double min_score = 0.8;

double iou(const Box &a, const Box &b) {
    const double x0 = std::max(a.x0, b.x0), y0 = std::max(a.y0, b.y0), x1 = std::min(a.x1, b.x1), y1 = std::min(a.y1, b.y1);
    if (x1 <= x0 || y1 <= y0) return 0;
    const double inter = (x1 - x0) * (y1 - y0);
    return inter / ((a.x1 - a.x0) * (a.y1 - a.y0) + (b.x1 - b.x0) * (b.y1 - b.y0) - inter);
}

// YuNet as the helper runs it (`snapsort_faces_yunet.cpp`: 512 px on the long side, zero
// padding to multiples of 32, B, G, R bytes, score sqrt(sigmoid(cls) · sigmoid(obj)), boxes
// from 0.3, suppression at an overlap of 0.45), raw boxes kept.
std::vector<Box> dnn_faces(const cv::Mat &rgb) {
    const char *side_env = std::getenv("SIDE");
    const double k = (side_env ? std::atof(side_env) : 512.0) / std::max(rgb.cols, rgb.rows);
    const int w = std::max(1, int(std::lround(rgb.cols * k))), h = std::max(1, int(std::lround(rgb.rows * k)));
    cv::Mat padded = cv::Mat::zeros((h + 31) / 32 * 32, (w + 31) / 32 * 32, CV_8UC3), scaled;
    cv::resize(rgb, scaled, cv::Size(w, h), 0, 0, k < 1 ? cv::INTER_AREA : cv::INTER_LINEAR);
    cv::cvtColor(scaled, padded(cv::Rect(0, 0, w, h)), cv::COLOR_RGB2BGR);
    net.setInput(cv::dnn::blobFromImage(padded));
    std::vector<cv::Mat> maps;
    net.forward(maps, std::vector<cv::String>{"cls_8", "obj_8", "bbox_8", "kps_8", "cls_16", "obj_16", "bbox_16", "kps_16", "cls_32",
                                              "obj_32", "bbox_32", "kps_32"});
    std::vector<cv::Rect2d> boxes;
    std::vector<float> scores;
    std::vector<cv::Vec4d> features;
    for (int level = 0; level < 3; level++) {
        const int rows = maps[level * 4].size[2], cols = maps[level * 4].size[3], plane = rows * cols;
        const float *c = maps[level * 4].ptr<float>(), *o = maps[level * 4 + 1].ptr<float>(), *b = maps[level * 4 + 2].ptr<float>();
        const float *p = maps[level * 4 + 3].ptr<float>();
        const float stride = float(8 << level);
        for (int i = 0; i < plane; i++) {
            const float score = std::sqrt(1 / (1 + std::exp(-c[i])) / (1 + std::exp(-o[i])));
            if (score < 0.3f) continue;
            const float cx = (float(i % cols) + b[i]) * stride, cy = (float(i / cols) + b[plane + i]) * stride;
            const float bw = std::exp(b[2 * plane + i]) * stride, bh = std::exp(b[3 * plane + i]) * stride;
            boxes.emplace_back((cx - bw / 2) / k, (cy - bh / 2) / k, bw / k, bh / k);
            scores.push_back(score);
            auto point = [&](int n, int axis) { return ((axis == 0 ? double(i % cols) : double(i / cols)) + p[(2 * n + axis) * plane + i]) * stride / k; };
            features.emplace_back(0.5 * (point(0, 0) + point(1, 0)), 0.5 * (point(0, 1) + point(1, 1)), 0.5 * (point(3, 0) + point(4, 0)),
                                  0.5 * (point(3, 1) + point(4, 1)));
        }
    }
    std::vector<int> keep;
    cv::dnn::NMSBoxes(boxes, scores, 0.3f, 0.45f, keep, 1.f, 1000);
    std::vector<Box> found;
    for (int i : keep) {
        const cv::Rect2d &r = boxes[size_t(i)];
        const cv::Vec4d &e = features[size_t(i)];
        found.push_back({std::max(0.0, r.x), std::max(0.0, r.y), std::min(double(rgb.cols), r.x + r.width), std::min(double(rgb.rows), r.y + r.height),
                         scores[size_t(i)], e[0], e[1], e[2], e[3]});
    }
    return found;
}

struct Shape {
    std::vector<double> x, y;
};

double dist(const Shape &s, int a, int b) { return std::hypot(s.x[a] - s.x[b], s.y[a] - s.y[b]); }

double ear(const Shape &s, int first) {
    const double w = dist(s, first, first + 3);
    if (w <= 0) return -1;
    return (dist(s, first + 1, first + 5) + dist(s, first + 2, first + 4)) / (2 * w);
}

// The predictor's 68 points from the box (x0, y0)–(x1, y1) of `gray`; with `side` > 0, on a crop
// around the box scaled so that the box is `side` px wide (dlib's points are whole pixels of
// the image it is given: a small face's eye is a few of them high).
Shape predict(const dlib::shape_predictor &sp, const dlib::array2d<unsigned char> &gray, double x0, double y0, double x1, double y1,
              double side) {
    Shape out;
    if (side <= 0 || x1 - x0 >= side) {
        const dlib::full_object_detection s = sp(gray, dlib::rectangle(long(x0), long(y0), long(x1) - 1, long(y1) - 1));
        for (unsigned long i = 0; i < s.num_parts(); i++) {
            out.x.push_back(double(s.part(i).x()));
            out.y.push_back(double(s.part(i).y()));
        }
        return out;
    }
    const double k = side / (x1 - x0);
    const double m = 0.5 * (x1 - x0);
    const long cx0 = std::max(0L, long(std::floor(x0 - m))), cy0 = std::max(0L, long(std::floor(y0 - m)));
    const long cx1 = std::min(long(gray.nc()), long(std::ceil(x1 + m))), cy1 = std::min(long(gray.nr()), long(std::ceil(y1 + m)));
    dlib::array2d<unsigned char> crop(cy1 - cy0, cx1 - cx0);
    for (long y = cy0; y < cy1; y++)
        for (long x = cx0; x < cx1; x++) crop[y - cy0][x - cx0] = gray[y][x];
    dlib::array2d<unsigned char> big(long(std::lround((cy1 - cy0) * k)), long(std::lround((cx1 - cx0) * k)));
    dlib::resize_image(crop, big);
    const double kx = double(big.nc()) / double(cx1 - cx0), ky = double(big.nr()) / double(cy1 - cy0);
    const dlib::rectangle box(long((x0 - cx0) * kx), long((y0 - cy0) * ky), long((x1 - cx0) * kx) - 1, long((y1 - cy0) * ky) - 1);
    const dlib::full_object_detection s = sp(big, box);
    for (unsigned long i = 0; i < s.num_parts(); i++) {
        out.x.push_back(cx0 + (double(s.part(i).x()) + 0.5) / kx - 0.5);
        out.y.push_back(cy0 + (double(s.part(i).y()) + 0.5) / ky - 0.5);
    }
    return out;
}

std::string shape_json(const dlib::shape_predictor &sp, const dlib::array2d<unsigned char> &gray, double x0, double y0, double x1,
                       double y1, double side = 0) {
    // The predictor's time (µs, the best of 5), to tell whether a box costs more than another.
    double best = 1e18;
    Shape s;
    for (int r = 0; r < 5; r++) {
        const auto t0 = std::chrono::steady_clock::now();
        s = predict(sp, gray, x0, y0, x1, y1, side);
        best = std::min(best, std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
    }
    char buf[64];
    std::string out = "{\"box\":[" + std::to_string(x0) + "," + std::to_string(y0) + "," + std::to_string(x1) + "," + std::to_string(y1) +
                      "],\"ear\":[" + std::to_string(ear(s, 36)) + "," + std::to_string(ear(s, 42)) + "],\"us\":" + std::to_string(best) +
                      ",\"pts\":[";
    for (size_t i = 0; i < s.x.size(); i++) {
        std::snprintf(buf, sizeof buf, "%s%.2f,%.2f", i ? "," : "", s.x[i], s.y[i]);
        out += buf;
    }
    return out + "]}";
}

}  // namespace

int main(int argc, char **argv) {
    const char *here = std::getenv("MODELS");
    const std::string models = here ? here : "share/models";
    if (const char *m = std::getenv("MIN_SCORE")) min_score = std::atof(m);
    net = cv::dnn::readNetFromONNX(models + "/face_detection_yunet.onnx");
    net.setPreferableBackend(cv::dnn::DNN_BACKEND_OPENCV);
    cv::setNumThreads(1);
    dlib::shape_predictor sp;
    dlib::deserialize("/usr/share/dlib/shape_predictor_68_face_landmarks.dat") >> sp;
    dlib::frontal_face_detector hog = dlib::get_frontal_face_detector();
    const char *up_env = std::getenv("UP");
    const double up = up_env ? std::atof(up_env) : 200;
    const char *crops = std::getenv("CROPS");
    int crop_index = 0;
    bool mapped = false;
    double dx = 0, dy = 0, sw = 0, sh = 0;
    int first = 1;
    if (argc > 5 && std::strcmp(argv[1], "--map") == 0) {
        mapped = true;
        dx = std::atof(argv[2]);
        dy = std::atof(argv[3]);
        sw = std::atof(argv[4]);
        sh = std::atof(argv[5]);
        first = 6;
    }
    for (int a = first; a < argc; a++) {
        cv::Mat bgr = cv::imread(argv[a], cv::IMREAD_COLOR);
        if (bgr.empty()) continue;
        cv::Mat rgb;
        cv::cvtColor(bgr, rgb, cv::COLOR_BGR2RGB);
        const double k = 1024.0 / std::max(rgb.cols, rgb.rows);
        cv::Mat scaled;
        cv::resize(rgb, scaled, cv::Size(int(std::lround(rgb.cols * k)), int(std::lround(rgb.rows * k))), 0, 0,
                   k < 1 ? cv::INTER_AREA : cv::INTER_LINEAR);
        dlib::array2d<unsigned char> gray(scaled.rows, scaled.cols);
        for (int y = 0; y < scaled.rows; y++)
            for (int x = 0; x < scaled.cols; x++) {
                const cv::Vec3b p = scaled.at<cv::Vec3b>(y, x);
                gray[y][x] = (unsigned char)((299 * p[0] + 587 * p[1] + 114 * p[2] + 500) / 1000);
            }
        const std::vector<Box> ssd = dnn_faces(scaled);
        std::vector<Box> hogs;
        if (std::any_of(ssd.begin(), ssd.end(), [](const Box &f) { return f.score >= min_score; })) {
            std::vector<dlib::rect_detection> found;
            hog(gray, found, 0.0);
            for (const auto &d : found)
                hogs.push_back({double(d.rect.left()), double(d.rect.top()), double(d.rect.right() + 1), double(d.rect.bottom() + 1),
                                d.detection_confidence});
            // Upsampled only for faces under HOG's 80 px window (slow on a 1024 px picture).
            const bool small = std::any_of(ssd.begin(), ssd.end(), [](const Box &f) { return f.score >= min_score && f.x1 - f.x0 < 110; });
            if (small) {
                dlib::array2d<unsigned char> twice(gray.nr() * 2, gray.nc() * 2);
                dlib::resize_image(gray, twice);
                found.clear();
                hog(twice, found, 0.0);
                for (const auto &d : found) {
                    Box b{d.rect.left() / 2.0, d.rect.top() / 2.0, (d.rect.right() + 1) / 2.0, (d.rect.bottom() + 1) / 2.0, d.detection_confidence};
                    if (std::none_of(hogs.begin(), hogs.end(), [&](const Box &g) { return iou(b, g) > 0.3; })) hogs.push_back(b);
                }
            }
        }
        std::printf("{\"path\":\"%s\",\"w\":%d,\"h\":%d,\"faces\":[", argv[a], scaled.cols, scaled.rows);
        bool comma = false;
        for (const Box &f : ssd) {
            if (f.score < min_score) continue;
            const double w = f.x1 - f.x0, h = f.y1 - f.y0, cx = (f.x0 + f.x1) / 2, cy = (f.y0 + f.y1) / 2;
            std::string line = "{\"score\":" + std::to_string(f.score) + ",\"raw\":" + shape_json(sp, gray, f.x0, f.y0, f.x1, f.y1);
            if (crops) {
                // The face for a person to look at (bench/eyes.py's contact sheets): 1.2× the box, 160 px.
                const double c = 0.6 * std::max(w, h);
                cv::Rect roi(int(cx - c), int(cy - c), int(2 * c), int(2 * c));
                roi &= cv::Rect(0, 0, scaled.cols, scaled.rows);
                cv::Mat face, bgr_face;
                cv::resize(scaled(roi), face, cv::Size(160, 160), 0, 0, cv::INTER_AREA);
                cv::cvtColor(face, bgr_face, cv::COLOR_RGB2BGR);
                char name[64];
                std::snprintf(name, sizeof name, "/%06d.png", crop_index);
                cv::imwrite(std::string(crops) + name, bgr_face);
                line += ",\"crop\":" + std::to_string(crop_index++);
            }
            const double side = (w + h) / 2;
            // The helper's square: centred 0.47 of the way from the eyes' midpoint to the mouth's,
            // side 0.98 of the mean side (snapsort_faces_yunet.cpp); the keypoints for the fit.
            {
                const double kx = f.ex + 0.47 * (f.mx - f.ex), ky = f.ey + 0.47 * (f.my - f.ey), ks = 0.98 * side;
                char kp[160];
                std::snprintf(kp, sizeof kp, ",\"kp\":[%.2f,%.2f,%.2f,%.2f]", f.ex, f.ey, f.mx, f.my);
                line += kp;
                line += ",\"kps\":" + shape_json(sp, gray, kx - ks / 2, ky - ks / 2, kx + ks / 2, ky + ks / 2);
            }
            line += ",\"square\":" + shape_json(sp, gray, cx - side / 2, cy - side / 2, cx + side / 2, cy + side / 2);
            line += ",\"square_up\":" + shape_json(sp, gray, cx - side / 2, cy - side / 2, cx + side / 2, cy + side / 2, up);
            if (mapped) {
                const double s = sw * w + sh * h, mx = cx + dx * w, my = cy + dy * h;
                line += ",\"map\":" + shape_json(sp, gray, mx - s / 2, my - s / 2, mx + s / 2, my + s / 2);
                line += ",\"map_up\":" + shape_json(sp, gray, mx - s / 2, my - s / 2, mx + s / 2, my + s / 2, up);
                // hogcrop: HOG run on the face's own neighbourhood only (a square of twice the
                // side around it, scaled so the face is ~100 px: HOG's window is 80), its box
                // where it finds the face there (the detection nearest the mapped square), the
                // mapped square where it does not; "hogcrop_ms" its cost.
                const auto t0 = std::chrono::steady_clock::now();
                const double c = side;
                const long qx0 = std::max(0L, long(cx - c)), qy0 = std::max(0L, long(cy - c));
                const long qx1 = std::min(long(gray.nc()), long(cx + c)), qy1 = std::min(long(gray.nr()), long(cy + c));
                const double k = 100.0 / side;
                dlib::array2d<unsigned char> crop(qy1 - qy0, qx1 - qx0);
                for (long y = qy0; y < qy1; y++)
                    for (long x = qx0; x < qx1; x++) crop[y - qy0][x - qx0] = gray[y][x];
                dlib::array2d<unsigned char> small_crop(std::max(1L, long((qy1 - qy0) * k)), std::max(1L, long((qx1 - qx0) * k)));
                dlib::resize_image(crop, small_crop);
                std::vector<dlib::rect_detection> near;
                hog(small_crop, near, 0.0);
                const double kx = double(small_crop.nc()) / double(qx1 - qx0), ky = double(small_crop.nr()) / double(qy1 - qy0);
                const Box want{mx - s / 2, my - s / 2, mx + s / 2, my + s / 2, 0};
                Box got = want;
                double best_iou = 0.3;
                for (const auto &d : near) {
                    Box b{qx0 + d.rect.left() / kx, qy0 + d.rect.top() / ky, qx0 + (d.rect.right() + 1) / kx, qy0 + (d.rect.bottom() + 1) / ky, 0};
                    if (iou(b, want) > best_iou) {
                        best_iou = iou(b, want);
                        got = b;
                    }
                }
                const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
                line += ",\"hogcrop\":" + shape_json(sp, gray, got.x0, got.y0, got.x1, got.y1) + ",\"hogcrop_found\":" +
                        (best_iou > 0.3 ? "true" : "false") + ",\"hogcrop_ms\":" + std::to_string(ms);
            }
            const Box *best = nullptr;
            double bestIoU = 0.2;
            for (const Box &g : hogs)
                if (iou(f, g) > bestIoU) {
                    bestIoU = iou(f, g);
                    best = &g;
                }
            if (best)
                line += ",\"hog\":" + shape_json(sp, gray, best->x0, best->y0, best->x1, best->y1) +
                        ",\"hog_up\":" + shape_json(sp, gray, best->x0, best->y0, best->x1, best->y1, up) +
                        ",\"hog_score\":" + std::to_string(best->score);
            std::printf("%s%s}", comma ? "," : "", line.c_str());
            comma = true;
        }
        std::printf("]}\n");
        std::fflush(stdout);
    }
    return 0;
}
