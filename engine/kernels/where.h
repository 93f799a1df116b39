// Where (ai.onnx 9-28): y = condition ? x : y element-wise, the three inputs broadcast together.
// condition is bool; X and Y share any fixed-size type.

#ifndef EDGEMOND_ENGINE_KERNELS_WHERE_H_
#define EDGEMOND_ENGINE_KERNELS_WHERE_H_

#include <cstdint>
#include <vector>

#include "engine/kernel.h"

namespace edgemond::engine {

class WhereKernel : public Kernel {
 public:
  Status Prepare(PrepareContext& context) override;
  Status Run(const RunContext& context) const override;

 protected:
  Shape out_;
  // Each input's strides in the output's index space.
  std::vector<std::int64_t> condition_strides_;
  std::vector<std::int64_t> x_strides_;
  std::vector<std::int64_t> y_strides_;
};

}  // namespace edgemond::engine

#endif  // EDGEMOND_ENGINE_KERNELS_WHERE_H_
