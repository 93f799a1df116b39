// Gather (ai.onnx 1-28): picks slices of `data` along `axis` by int32/int64 `indices`
// (negative indices count from the end); the output shape is data[:axis] + indices.shape +
// data[axis+1:]. An index out of range is an error at run time. Any data type.

#ifndef EDGEMOND_ENGINE_KERNELS_GATHER_H_
#define EDGEMOND_ENGINE_KERNELS_GATHER_H_

#include <cstdint>

#include "engine/kernel.h"

namespace edgemond::engine {

class GatherKernel : public Kernel {
 public:
  Status Prepare(PrepareContext& context) override;
  Status Run(const RunContext& context) const override;

 protected:
  std::int64_t outer_ = 1;  // Product of data's dimensions before the axis.
  std::int64_t axis_dim_ = 0;
  std::int64_t inner_ = 1;  // Product of data's dimensions after the axis.
};

}  // namespace edgemond::engine

#endif  // EDGEMOND_ENGINE_KERNELS_GATHER_H_
