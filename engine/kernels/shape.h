// Shape (ai.onnx 1-28): the input's dimensions as a 1-D int64 tensor, sliced by start/end
// (opset 15+). Reads only the input's shape, so it always folds at load time.

#ifndef EDGEMOND_ENGINE_KERNELS_SHAPE_H_
#define EDGEMOND_ENGINE_KERNELS_SHAPE_H_

#include <cstdint>
#include <vector>

#include "engine/kernel.h"

namespace edgemond::engine {

class ShapeKernel : public Kernel {
 public:
  Status Prepare(PrepareContext& context) override;
  Status Run(const RunContext& context) const override;
  bool ReadsInputData(int index) const override {
    (void)index;
    return false;
  }

 protected:
  std::vector<std::int64_t> dims_;
};

}  // namespace edgemond::engine

#endif  // EDGEMOND_ENGINE_KERNELS_SHAPE_H_
