// Resize (ai.onnx 10-28): resamples X to new sizes, given as `scales` (output = floor(input *
// scale)) or `sizes` (from opset 11; with keep_aspect_ratio_policy not_larger / not_smaller
// from 18), for every dimension or those in `axes` (18+); scales, sizes and roi must be known
// at load time.
//  - mode: nearest (nearest_mode round_prefer_floor, round_prefer_ceil, floor, ceil), linear
//    and cubic (cubic_coeff_a, exclude_outside), each separable over the dimensions; linear
//    and cubic also with antialias (18+) when downsampling.
//  - coordinate_transformation_mode: half_pixel, half_pixel_symmetric (19+),
//    pytorch_half_pixel, align_corners, asymmetric, tf_half_pixel_for_nn and
//    tf_crop_and_resize (with roi and extrapolation_value).
// Opset 10 has only scales and mode, with asymmetric coordinates and floor for nearest (what
// ONNX's 10 -> 11 converter writes). Positions outside the input read the nearest edge
// element, as in ONNX's reference. Weights and sums are in double, rounded once. float32.
//
// Upsample (engine/kernels/upsample.h) is the same computation with its own attributes.

#ifndef EDGEMOND_ENGINE_KERNELS_RESIZE_H_
#define EDGEMOND_ENGINE_KERNELS_RESIZE_H_

#include <cstdint>
#include <vector>

#include "engine/kernel.h"

namespace edgemond::engine {

class ResizeKernel : public Kernel {
 public:
  Status Prepare(PrepareContext& context) override;
  Status Run(const RunContext& context) const override;
  bool ReadsInputData(int index) const override { return index == 0; }

 protected:
  enum class Mode : std::uint8_t { kNearest, kLinear, kCubic };
  enum class Coordinates : std::uint8_t {
    kHalfPixel,
    kHalfPixelSymmetric,
    kPytorchHalfPixel,
    kAlignCorners,
    kAsymmetric,
    kTfHalfPixelForNn,
    kTfCropAndResize,
  };
  enum class Nearest : std::uint8_t { kRoundPreferFloor, kRoundPreferCeil, kFloor, kCeil };

  // Everything that decides the result, read from the node's attributes and inputs.
  struct Spec {
    Mode mode = Mode::kNearest;
    Coordinates coordinates = Coordinates::kHalfPixel;
    Nearest nearest = Nearest::kRoundPreferFloor;
    double cubic_a = -0.75;
    bool exclude_outside = false;
    bool antialias = false;
    float extrapolation_value = 0.0f;
    std::vector<double> scales;       // Per dimension, or empty when sizes are given.
    std::vector<std::int64_t> sizes;  // Per dimension, or empty when scales are given.
    std::vector<double> roi;          // [starts..., ends...] per dimension (tf_crop_and_resize).
    enum class Policy : std::uint8_t {
      kStretch,
      kNotLarger,
      kNotSmaller
    } policy = Policy::kStretch;
    std::vector<bool> resized;  // Dimensions the sizes / scales / policy apply to.
  };
  // Output shape, per-dimension scales and tap tables from `spec`; sets output 0 and scratch.
  Status PrepareResize(PrepareContext& context, Spec spec);

  // One dimension's resampling: output index o reads taps_ input indices (-1 for the whole
  // element taking extrapolation_value) with their weights.
  struct Axis {
    std::int64_t in = 1;
    std::int64_t out = 1;
    double scale = 1.0;
    std::int64_t taps = 1;
    std::int64_t table_offset = 0;  // In entries of the scratch table.
  };
  // Fills axis `axis`'s part of the tap table.
  void FillTaps(const Axis& axis, std::int64_t* index, double* weight) const;

  Spec spec_;
  std::vector<Axis> axes_;
  std::int64_t table_entries_ = 0;
};

}  // namespace edgemond::engine

#endif  // EDGEMOND_ENGINE_KERNELS_RESIZE_H_
