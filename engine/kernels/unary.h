// UnaryFloatKernel: the shared shape of float32 element-wise activations (Relu, Sigmoid,
// HardSigmoid, HardSwish): one input, one output of the same shape. A subclass reads its
// attributes in PrepareAttributes() and maps a contiguous range in Apply(); an optimized
// variant subclasses the reference op and overrides Apply() only.

#ifndef EDGEMOND_ENGINE_KERNELS_UNARY_H_
#define EDGEMOND_ENGINE_KERNELS_UNARY_H_

#include <cstdint>

#include "engine/kernel.h"

namespace edgemond::engine {

class UnaryFloatKernel : public Kernel {
 public:
  Status Prepare(PrepareContext& context) override;
  Status Run(const RunContext& context) const override;

 protected:
  virtual Status PrepareAttributes(AttributeReader& attributes) {
    (void)attributes;
    return Status::Ok();
  }
  // y[i] = f(x[i]) for i in [0, count). x and y do not overlap.
  virtual void Apply(const float* x, float* y, std::int64_t count) const = 0;
  // FLOPs per element, for reports.
  virtual std::uint64_t FlopsPerElement() const { return 1; }
};

}  // namespace edgemond::engine

#endif  // EDGEMOND_ENGINE_KERNELS_UNARY_H_
