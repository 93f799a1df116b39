// MaxPool (ai.onnx 1-28): max over sliding windows, with pads, auto_pad, strides, dilations
// (opset 10+) and ceil_mode (opset 10+). float32; int8 and uint8 from opset 12. NaN wins.
// The optional Indices output (opset 8+, int64) holds the flat index of each maximum in X,
// batch and channel included, row-major, or with storage_order = 1 column-major over the
// spatial dimensions; the first maximum of a window wins, and a window entirely in the
// padding (possible only with dilations) has index -1 and the type's lowest value.

#ifndef EDGEMOND_ENGINE_KERNELS_MAX_POOL_H_
#define EDGEMOND_ENGINE_KERNELS_MAX_POOL_H_

#include "engine/kernel.h"
#include "engine/kernels/pool.h"

namespace edgemond::engine {

class MaxPoolKernel : public Kernel {
 public:
  Status Prepare(PrepareContext& context) override;
  Status Run(const RunContext& context) const override;

  const PoolGeometry& geometry() const { return geometry_; }

 protected:
  PoolGeometry geometry_;
  DataType dtype_ = DataType::kFloat32;
  bool column_major_ = false;  // storage_order = 1: the Indices output's order.
};

}  // namespace edgemond::engine

#endif  // EDGEMOND_ENGINE_KERNELS_MAX_POOL_H_
