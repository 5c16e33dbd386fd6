// A sheet of paper in a photo: found as a bright, colourless convex quadrilateral, rectified by
// its perspective, and measured for text lines (Docs & Receipts for pages photographed at an
// angle, which OCR on the whole frame and the page look of the whole frame miss).
#include "snapsort_vision.h"
#include "snapsort_vision_internal.hpp"

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <exception>
#include <vector>

namespace {
using ssv_internal::set_message;

// The long side the outline is looked for at: a page of 8 % of the frame keeps a few dozen
// pixels a side, and a 3 % closing bridges its text lines.
constexpr int outline_side = 512;
// The smallest page, as a share of the frame.
constexpr double min_share = 0.08;
// How much of its quadrilateral the bright region must fill (a page is one; a bright sky
// over a jagged skyline or a lit window with bars is not).
constexpr double min_fill = 0.85;
// Paper is colourless: HSV saturation (0…255) under this…
constexpr int max_paper_saturation = 60;
// …and bright: at least Otsu's split of the frame and this level.
constexpr int min_paper_level = 110;
// A whole sheet is nearly colourless: its mean saturation under 0.15 (paper under a warm light or
// a colour cast: 0–23 of 255 on DEV's and the stress set's pages; a patterned fabric behind a
// plant, outlined by its edges, 49–51).
constexpr double max_sheet_saturation = 38;
// The width the rectified page is measured at, and the margin left out (the page's edge and
// shadow are no ink).
constexpr int page_width = 480;
constexpr int page_margin = 12;

// Corners ordered top-left, top-right, bottom-right, bottom-left (by x + y and x − y).
std::array<cv::Point2f, 4> ordered(const std::vector<cv::Point> &q, double scale) {
    std::array<cv::Point2f, 4> out;
    auto sum = [](const cv::Point &p) { return p.x + p.y; };
    auto diff = [](const cv::Point &p) { return p.x - p.y; };
    auto by = [&](auto key, bool largest) {
        auto it = largest ? std::max_element(q.begin(), q.end(), [&](auto &a, auto &b) { return key(a) < key(b); })
                          : std::min_element(q.begin(), q.end(), [&](auto &a, auto &b) { return key(a) < key(b); });
        return cv::Point2f(float(it->x * scale), float(it->y * scale));
    };
    out[0] = by(sum, false);
    out[1] = by(diff, true);
    out[2] = by(sum, true);
    out[3] = by(diff, false);
    return out;
}

// The separate marks along a band of rows: runs of columns holding ink anywhere in the band.
int marks(const cv::Mat &ink, int y0, int y1) {
    cv::Mat column;
    cv::reduce(ink.rowRange(y0, y1), column, 0, cv::REDUCE_MAX);
    int n = 0;
    bool previous = false;
    for (int x = 0; x < column.cols; x++) {
        const bool on = column.at<uint8_t>(0, x) != 0;
        if (on && !previous) n++;
        previous = on;
    }
    return n;
}

// Text lines in a binary ink mask: runs of rows holding ink on more than 3 % of the row, at
// most a tenth of the page high (thicker bands are pictures, bars or shadows), made of at least
// `min_marks` separate marks across (letters and words; the edge of a plank, a bar or a
// horizon is one long stroke).
constexpr int min_marks = 6;
int count_lines(const cv::Mat &ink) {
    const int rows = ink.rows, cols = ink.cols;
    if (rows < 8 || cols < 8) return 0;
    const int limit = std::max(2, rows / 10);
    int lines = 0, run = 0;
    for (int y = 0; y <= rows; y++) {
        const bool on = y < rows && cv::countNonZero(ink.row(y)) > cols * 3 / 100;
        if (on) {
            run++;
        } else if (run > 0) {
            if (run <= limit && marks(ink, y - run, y) >= min_marks) lines++;
            run = 0;
        }
    }
    return lines;
}

// A candidate outline: the coarsest convex quadrilateral (Douglas–Peucker, 1–5 % of the
// perimeter) around a region it fills; empty when there is none.
std::vector<cv::Point> quadrilateral(const std::vector<cv::Point> &region, double area) {
    std::vector<cv::Point> hull, quad;
    cv::convexHull(region, hull);
    const double perimeter = cv::arcLength(hull, true);
    for (double e : {0.01, 0.02, 0.03, 0.05}) {
        cv::approxPolyDP(hull, quad, e * perimeter, true);
        if (quad.size() <= 4) break;
    }
    if (quad.size() != 4 || !cv::isContourConvex(quad)) return {};
    const double quad_area = cv::contourArea(quad);
    if (quad_area <= 0 || area / quad_area < min_fill) return {};
    return quad;
}

struct Measured {
    std::array<cv::Point2f, 4> corners;
    double share = 0;
    int lines = -1;
    float ink = 0;
};

// Rectifies the quadrilateral `corners` of `luma` to a rectangle of its mean side lengths,
// `page_width` across, and measures its text lines (along the page and across it).
Measured measure(const cv::Mat &luma, const std::array<cv::Point2f, 4> &corners) {
    Measured m;
    m.corners = corners;
    const double top = cv::norm(corners[1] - corners[0]), bottom = cv::norm(corners[2] - corners[3]);
    const double left = cv::norm(corners[3] - corners[0]), right = cv::norm(corners[2] - corners[1]);
    const double pw = (top + bottom) / 2, ph = (left + right) / 2;
    if (pw < 16 || ph < 16) return m;
    const int w = page_width, h = std::max(16, int(std::lround(page_width * ph / pw)));
    if (h <= 2 * page_margin + 8 || h > 8 * page_width) return m;
    const std::array<cv::Point2f, 4> target = {cv::Point2f(0, 0), cv::Point2f(float(w), 0), cv::Point2f(float(w), float(h)),
                                               cv::Point2f(0, float(h))};
    const cv::Mat homography = cv::getPerspectiveTransform(corners.data(), target.data());
    cv::Mat page;
    cv::warpPerspective(luma, page, homography, cv::Size(w, h), cv::INTER_LINEAR);
    const cv::Mat inner = page(cv::Rect(page_margin, page_margin, w - 2 * page_margin, h - 2 * page_margin));
    // Ink: 12 levels darker than the mean of its 25 px neighbourhood (strokes of print
    // against paper under uneven light).
    cv::Mat ink, across;
    cv::adaptiveThreshold(inner, ink, 255, cv::ADAPTIVE_THRESH_MEAN_C, cv::THRESH_BINARY_INV, 25, 12);
    cv::transpose(ink, across);
    m.lines = std::max(count_lines(ink), count_lines(across));
    m.ink = float(cv::countNonZero(ink)) / float(ink.total());
    return m;
}

}  // namespace

extern "C" int ssv_find_page(const uint8_t *rgb, int width, int height, ssv_page *out, char *msg, size_t msg_len) {
    if (!rgb || width <= 0 || height <= 0 || !out) {
        set_message(msg, msg_len, "empty image");
        return -1;
    }
    return ssv_internal::guarded("unknown error in page finding", msg, msg_len, [&]() -> int {
        cv::setNumThreads(1);
        *out = ssv_page{};
        const cv::Mat image(height, width, CV_8UC3, const_cast<uint8_t *>(rgb));
        const double f = std::min(1.0, double(outline_side) / std::max(width, height));
        cv::Mat small;
        cv::resize(image, small, cv::Size(), f, f, cv::INTER_AREA);
        cv::Mat hsv, gray;
        cv::cvtColor(small, hsv, cv::COLOR_RGB2HSV);
        cv::cvtColor(small, gray, cv::COLOR_RGB2GRAY);
        cv::Mat otsu;
        const double split = cv::threshold(gray, otsu, 0, 255, cv::THRESH_BINARY | cv::THRESH_OTSU);
        std::vector<cv::Mat> channels;
        cv::split(hsv, channels);
        const cv::Mat paper = (gray >= std::max(split, double(min_paper_level))) & (channels[1] < max_paper_saturation);
        // Close over the ink (text lines inside the page), then drop specks.
        const int k = std::max(3, int(0.03 * std::max(small.cols, small.rows)) | 1);
        cv::Mat mask;
        cv::morphologyEx(paper, mask, cv::MORPH_CLOSE, cv::getStructuringElement(cv::MORPH_RECT, cv::Size(k, k)));
        cv::morphologyEx(mask, mask, cv::MORPH_OPEN, cv::getStructuringElement(cv::MORPH_RECT, cv::Size(5, 5)));
        std::vector<std::vector<cv::Point>> regions;
        cv::findContours(mask, regions, cv::RETR_EXTERNAL, cv::CHAIN_APPROX_SIMPLE);
        // A page on a background as bright and grey as paper (a façade, fog, a white table)
        // merges with it in that mask; its edge still shows (the page's own border and shadow):
        // the regions Canny's edges enclose are candidates too.
        cv::Mat edges;
        cv::Canny(gray, edges, 40, 120);
        cv::dilate(edges, edges, cv::getStructuringElement(cv::MORPH_RECT, cv::Size(3, 3)));
        std::vector<std::vector<cv::Point>> outlines;
        cv::findContours(edges, outlines, cv::RETR_LIST, cv::CHAIN_APPROX_SIMPLE);
        regions.insert(regions.end(), outlines.begin(), outlines.end());
        const double frame = double(small.cols) * small.rows;
        std::vector<std::pair<double, size_t>> by_area;
        for (size_t i = 0; i < regions.size(); i++) {
            const double area = cv::contourArea(regions[i]);
            if (area >= min_share * frame) by_area.emplace_back(area, i);
        }
        std::sort(by_area.begin(), by_area.end(), [](auto &a, auto &b) { return a.first > b.first; });
        cv::Mat luma;
        cv::cvtColor(image, luma, cv::COLOR_RGB2GRAY);
        // The candidate with the most text lines is the page (ties: the larger).
        Measured best;
        std::vector<std::array<cv::Point2f, 4>> seen;
        const float near = 0.02f * float(std::max(width, height));
        for (const auto &[area, i] : by_area) {
            const auto quad = quadrilateral(regions[i], area);
            if (quad.empty()) continue;
            const auto corners = ordered(quad, 1.0 / f);
            // An edge's two sides and the bright region give the same outline: read it once.
            const bool again = std::any_of(seen.begin(), seen.end(), [&](const auto &s) {
                for (size_t j = 0; j < 4; j++)
                    if (cv::norm(s[j] - corners[j]) > near) return false;
                return true;
            });
            if (again) continue;
            // At most six outlines, the largest, are rectified and read (a busy picture has many).
            if (seen.size() >= 6) break;
            seen.push_back(corners);
            cv::Mat inside = cv::Mat::zeros(small.size(), CV_8U);
            cv::fillConvexPoly(inside, quad, cv::Scalar(255));
            if (cv::mean(hsv, inside)[1] >= max_sheet_saturation) continue;
            Measured m = measure(luma, corners);
            m.share = cv::contourArea(quad) / frame;
            if (m.lines > best.lines || (m.lines == best.lines && m.share > best.share)) best = m;
        }
        if (best.lines < 0) return 0;
        out->found = 1;
        for (int i = 0; i < 4; i++) {
            out->corners[2 * i] = best.corners[size_t(i)].x;
            out->corners[2 * i + 1] = best.corners[size_t(i)].y;
        }
        out->share = float(best.share);
        out->lines = best.lines;
        out->ink = best.ink;
        return 0;
    });
}
