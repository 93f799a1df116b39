// Clip (ai.onnx 6-28): y = min(max(x, min), max). Opset 6-10 take min/max as attributes,
// 11+ as optional scalar inputs (PyTorch's ReLU6 exports Clip with constant inputs 0 and 6).
// When min > max every element becomes max, as ONNX specifies. float32.

#ifndef EDGEMOND_ENGINE_KERNELS_CLIP_H_
#define EDGEMOND_ENGINE_KERNELS_CLIP_H_

#include <limits>

#include "engine/kernel.h"

namespace edgemond::engine {

class ClipKernel : public Kernel {
 public:
  Status Prepare(PrepareContext& context) override;
  Status Run(const RunContext& context) const override;

 protected:
  bool bounds_from_inputs_ = false;
  float min_ = -std::numeric_limits<float>::infinity();
  float max_ = std::numeric_limits<float>::infinity();
};

}  // namespace edgemond::engine

#endif  // EDGEMOND_ENGINE_KERNELS_CLIP_H_
