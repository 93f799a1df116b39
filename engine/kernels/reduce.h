// ReduceKernel: the shared attribute handling and geometry of the Reduce* operators. Axes are
// an attribute up to the opset before AxesInputSince() and an optional input, known at load
// time, from it (13 for ReduceSum, 18 for the others); with axes as an input, an empty list
// and noop_with_empty_axes = 1 pass the input through, otherwise no axes reduce everything.
// keepdims (default 1) keeps reduced dimensions as 1. Each operator's file implements Run()
// over the walk ForEachElement() provides.

#ifndef EDGEMOND_ENGINE_KERNELS_REDUCE_H_
#define EDGEMOND_ENGINE_KERNELS_REDUCE_H_

#include <array>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "engine/kernel.h"

namespace edgemond::engine {

class ReduceKernel : public Kernel {
 public:
  Status Prepare(PrepareContext& context) override;
  bool ReadsInputData(int index) const override { return index == 0; }

 protected:
  // The first opset whose axes are an input.
  virtual int AxesInputSince() const = 0;
  // The input types the operator accepts at `opset`.
  virtual bool AcceptsType(DataType type, int opset) const = 0;

  // Calls f(out_offset, value) for every input element, in order. REQUIRES: !passthrough_.
  template <typename T, typename F>
  void ForEachElement(const T* in, std::int64_t total, F&& f) const {
    const int rank = static_cast<int>(in_dims_.size());
    std::array<std::int64_t, kMaxRank> index{};
    std::int64_t offset = 0;
    for (std::int64_t i = 0; i < total; ++i) {
      f(offset, in[i]);
      for (int d = rank - 1; d >= 0; --d) {
        const auto du = static_cast<std::size_t>(d);
        offset += out_strides_[du];
        if (++index[du] < in_dims_[du]) break;
        offset -= out_strides_[du] * in_dims_[du];
        index[du] = 0;
      }
    }
  }

  // Copies input 0 to output 0 (the pass-through case). Returns true if it did.
  bool PassThrough(const RunContext& context) const {
    if (!passthrough_) return false;
    const ConstTensorView& x = context.input(0);
    if (x.byte_size() > 0) std::memcpy(context.output(0).raw_data(), x.raw_data(), x.byte_size());
    return true;
  }

  DataType dtype_ = DataType::kFloat32;
  std::vector<std::int64_t> in_dims_;
  // Output element stride of each input dimension: 0 for reduced ones.
  std::vector<std::int64_t> out_strides_;
  std::int64_t reduced_count_ = 1;  // Input elements per output element.
  bool passthrough_ = false;
};

}  // namespace edgemond::engine

#endif  // EDGEMOND_ENGINE_KERNELS_REDUCE_H_
