// VariadicKernel<Op>: the shared shape of Min, Max, Sum and Mean: any number (at least one) of
// inputs of one type, broadcast together (opset 8+; before that all shapes must be equal),
// folded left to right with Op::Apply; Op::kMean divides by the input count at the end. Each
// operator's file defines its Op and kernel class.

#ifndef EDGEMOND_ENGINE_KERNELS_VARIADIC_H_
#define EDGEMOND_ENGINE_KERNELS_VARIADIC_H_

#include <initializer_list>
#include <string>
#include <vector>

#include "engine/kernel.h"
#include "engine/kernels/broadcast.h"
#include "engine/kernels/kernel_util.h"

namespace edgemond::engine {

template <typename Op>
class VariadicKernel : public Kernel {
 public:
  Status Prepare(PrepareContext& context) override {
    if (context.num_inputs() < 1) return Status::InvalidArgument("needs at least one input");
    for (int i = 0; i < context.num_inputs(); ++i) {
      EDGEMOND_RETURN_IF_ERROR(context.RequireInputType(i, Op::Types()));
    }
    dtype_ = context.input(0).dtype;
    Shape out = context.input(0).shape;
    for (int i = 1; i < context.num_inputs(); ++i) {
      const TensorInfo& in = context.input(i);
      if (in.dtype != dtype_) {
        return Status::InvalidArgument("input " + std::to_string(i) + " is " +
                                       std::string(DataTypeName(in.dtype)) + ", input 0 " +
                                       std::string(DataTypeName(dtype_)));
      }
      if (context.opset() < 8 && !(in.shape == out)) {
        return Status::InvalidArgument("before opset 8 all inputs must have the same shape");
      }
      EDGEMOND_ASSIGN_OR_RETURN(out, BroadcastShape(out, in.shape));
    }
    out_ = out;
    first_strides_ = BroadcastStrides(context.input(0).shape, out);
    plans_.clear();
    for (int i = 1; i < context.num_inputs(); ++i) {
      EDGEMOND_ASSIGN_OR_RETURN(BroadcastPlan plan, PlanBroadcast(out, context.input(i).shape));
      plans_.push_back(std::move(plan));
    }
    count_ = context.num_inputs();
    context.SetFlops(static_cast<std::uint64_t>(out.num_elements()) *
                     static_cast<std::uint64_t>(count_));
    return context.SetOutput(0, dtype_, std::move(out));
  }

  Status Run(const RunContext& context) const override {
    return DispatchNumeric(dtype_, [&]<typename T>() {
      if constexpr (Op::template kAccepts<T>) {
        const TensorView& y = context.output(0);
        T* out = y.data<T>();
        BroadcastCopy(out_, first_strides_, context.input(0).data<T>(), out);
        for (std::size_t i = 0; i < plans_.size(); ++i) {
          BroadcastBinary(plans_[i], out, context.input(static_cast<int>(i) + 1).data<T>(), out,
                          [](T a, T b) { return Op::template Apply<T>(a, b); });
        }
        if constexpr (Op::kMean) {
          const auto n = static_cast<T>(count_);
          for (T& v : y.values<T>()) v /= n;
        }
      }
    });
  }

 protected:
  DataType dtype_ = DataType::kFloat32;
  Shape out_;
  std::vector<std::int64_t> first_strides_;  // Input 0 in the output's index space.
  std::vector<BroadcastPlan> plans_;         // Output (as a) with input i + 1 (as b).
  int count_ = 0;
};

}  // namespace edgemond::engine

#endif  // EDGEMOND_ENGINE_KERNELS_VARIADIC_H_
