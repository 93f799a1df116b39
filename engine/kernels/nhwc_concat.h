// edgemond.NhwcConcat (internal, opset 1): a Concat of float32 NHWC tensors along the channels
// (the last axis), some of whose inputs were written in place by their producers. Made by the
// layout pass (engine/layout_pass.h) from a channel Concat; models cannot use it directly.
//
// Inputs: X_i [N, H, W, C_i]. Output: Y [N, H, W, sum C_i]. Attributes: axis (3), in_place
// (one 0 or 1 per input). An input marked 1 comes from an edgemond.NhwcConv that stores its
// pixels with Y's pixel stride (its y_pixel_stride attribute) at the input's channel offset:
// the model places that input inside Y (Kernel::InPlaceInputOffset) and Run() copies only the
// others. SqueezeNet's fire modules and ShuffleNet's blocks so lose most of their copying.

#ifndef EDGEMOND_ENGINE_KERNELS_NHWC_CONCAT_H_
#define EDGEMOND_ENGINE_KERNELS_NHWC_CONCAT_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "engine/kernels/concat.h"

namespace edgemond::engine {

class NhwcConcatKernel : public ConcatKernel {
 public:
  Status Prepare(PrepareContext& context) override;
  Status Run(const RunContext& context) const override;
  std::optional<std::int64_t> InPlaceInputOffset(int index) const override;

 private:
  std::vector<bool> in_place_;
  std::vector<std::int64_t> channel_offset_;  // Per input: its first channel in Y.
  std::int64_t channels_ = 0;                 // Y's.
};

}  // namespace edgemond::engine

#endif  // EDGEMOND_ENGINE_KERNELS_NHWC_CONCAT_H_
