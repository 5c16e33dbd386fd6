// Shared between the shim's C++ files; not part of the C interface.
#ifndef SNAPSORT_VISION_INTERNAL_HPP
#define SNAPSORT_VISION_INTERNAL_HPP
#include <opencv2/dnn.hpp>

#include <cstdio>
#include <exception>
#include <memory>
#include <stddef.h>
#include <stdint.h>

namespace ssv_internal {
/// Keeps the BT.601 luma of an RGB image for `ssv_eye_ratios` (the landmarks of the faces found
/// in it), until the next call.
void keep_luma(const uint8_t *rgb, int width, int height);

/// Writes `text` into the caller's message buffer (cut to its length).
inline void set_message(char *msg, size_t len, const char *text) {
    if (msg && len > 0) std::snprintf(msg, len, "%s", text);
}

/// Runs `body` (an entry point's work, returning its result) with every exception kept in here:
/// its message, or `unknown` when it has none, in `msg`, and -1.
template <typename Body>
int guarded(const char *unknown, char *msg, size_t msg_len, Body body) {
    try {
        return body();
    } catch (const std::exception &e) {
        set_message(msg, msg_len, e.what());
    } catch (...) {
        set_message(msg, msg_len, unknown);
    }
    return -1;
}

/// Loads a network with `read` into `slot`, on one thread (the helper is one low-priority
/// worker; throughput is reported per core) and OpenCV's own CPU backend. 0, or -1 with why in
/// `msg` (`what` names the model: "the classifier"). Every exception stays in here.
template <typename Read>
int load_net(Read read, std::unique_ptr<cv::dnn::Net> &slot, const char *what, char *msg, size_t msg_len) {
    char why[160];
    std::snprintf(why, sizeof why, "unknown error loading %s", what);
    return guarded(why, msg, msg_len, [&]() -> int {
        cv::setNumThreads(1);
        auto net = std::make_unique<cv::dnn::Net>(read());
        if (net->empty()) {
            char empty[160];
            std::snprintf(empty, sizeof empty, "%s model is empty", what);
            set_message(msg, msg_len, empty);
            return -1;
        }
        net->setPreferableBackend(cv::dnn::DNN_BACKEND_OPENCV);
        net->setPreferableTarget(cv::dnn::DNN_TARGET_CPU);
        slot = std::move(net);
        return 0;
    });
}
}  // namespace ssv_internal
#endif
