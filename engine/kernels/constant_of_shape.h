// ConstantOfShape (ai.onnx 9-28): a tensor of the shape given by the int64 input (known at load
// time) filled with `value`, a one-element tensor (float32 0 by default) that also gives the
// type. Any fixed-size type. With its input constant it folds at load, within the model's
// memory limit.

#ifndef EDGEMOND_ENGINE_KERNELS_CONSTANT_OF_SHAPE_H_
#define EDGEMOND_ENGINE_KERNELS_CONSTANT_OF_SHAPE_H_

#include <array>
#include <cstddef>

#include "engine/kernel.h"

namespace edgemond::engine {

class ConstantOfShapeKernel : public Kernel {
 public:
  Status Prepare(PrepareContext& context) override;
  Status Run(const RunContext& context) const override;
  bool ReadsInputData(int index) const override {
    (void)index;
    return false;
  }

 protected:
  std::array<std::byte, 8> value_{};  // One element's bytes.
  std::size_t element_size_ = 4;
};

}  // namespace edgemond::engine

#endif  // EDGEMOND_ENGINE_KERNELS_CONSTANT_OF_SHAPE_H_
