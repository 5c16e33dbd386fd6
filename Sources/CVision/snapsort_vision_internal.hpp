// Shared between the shim's C++ files; not part of the C interface.
#ifndef SNAPSORT_VISION_INTERNAL_HPP
#define SNAPSORT_VISION_INTERNAL_HPP
#include <stdint.h>

namespace ssv_internal {
/// Keeps the BT.601 luma of an RGB image for `ssv_eye_ratios` (the landmarks of the faces found
/// in it), until the next call.
void keep_luma(const uint8_t *rgb, int width, int height);
}  // namespace ssv_internal
#endif
