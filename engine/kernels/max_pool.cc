#include "engine/kernels/max_pool.h"

#include <limits>

#include "engine/kernels/kernel_util.h"

namespace edgemond::engine {
namespace {

// The pool over every plane of x, with indices when `indices` is not null.
template <typename T>
void Pool(const PoolGeometry& g, bool column_major, const T* x, T* y, std::int64_t* indices) {
  const std::int64_t in_plane = g.in[0] * g.in[1] * g.in[2];
  const std::int64_t out_plane = g.out[0] * g.out[1] * g.out[2];
  // Index strides of the spatial dimensions (1-D and 2-D pools have leading unit dimensions,
  // which contribute nothing).
  const std::int64_t sd = column_major ? 1 : g.in[1] * g.in[2];
  const std::int64_t sh = column_major ? g.in[0] : g.in[2];
  const std::int64_t sw = column_major ? g.in[0] * g.in[1] : 1;
  const T lowest = std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity()
                                                        : std::numeric_limits<T>::lowest();
  for (std::int64_t p = 0; p < g.planes; ++p) {
    const T* xp = x + p * in_plane;
    T* yp = y + p * out_plane;
    for (std::int64_t od = 0; od < g.out[0]; ++od) {
      for (std::int64_t oh = 0; oh < g.out[1]; ++oh) {
        for (std::int64_t ow = 0; ow < g.out[2]; ++ow) {
          T best = lowest;
          std::int64_t best_index = -1;
          for (std::int64_t kd = 0; kd < g.kernel[0]; ++kd) {
            const std::int64_t id = od * g.stride[0] + kd * g.dilation[0] - g.pad_begin[0];
            if (id < 0 || id >= g.in[0]) continue;
            for (std::int64_t kh = 0; kh < g.kernel[1]; ++kh) {
              const std::int64_t ih = oh * g.stride[1] + kh * g.dilation[1] - g.pad_begin[1];
              if (ih < 0 || ih >= g.in[1]) continue;
              for (std::int64_t kw = 0; kw < g.kernel[2]; ++kw) {
                const std::int64_t iw = ow * g.stride[2] + kw * g.dilation[2] - g.pad_begin[2];
                if (iw < 0 || iw >= g.in[2]) continue;
                const T v = xp[(id * g.in[1] + ih) * g.in[2] + iw];
                // NaN wins, as in ONNX's reference (and PyTorch); otherwise the first maximum.
                if (best_index < 0 || v > best || (v != v && best == best)) {
                  best = v;
                  best_index = id * sd + ih * sh + iw * sw;
                }
              }
            }
          }
          const std::int64_t o = (od * g.out[1] + oh) * g.out[2] + ow;
          yp[o] = best;
          if (indices != nullptr) {
            indices[p * out_plane + o] = best_index < 0 ? -1 : p * in_plane + best_index;
          }
        }
      }
    }
  }
}

}  // namespace

Status MaxPoolKernel::Prepare(PrepareContext& context) {
  if (context.opset() >= 8) {
    EDGEMOND_ASSIGN_OR_RETURN(const std::int64_t order,
                              context.attributes().GetInt("storage_order", 0));
    if (order != 0 && order != 1) {
      return Status::InvalidArgument("storage_order must be 0 or 1, not " + std::to_string(order));
    }
    column_major_ = order == 1;
  } else if (context.has_output(1)) {
    return Status::InvalidArgument("MaxPool has an Indices output from opset 8");
  }
  const bool v10 = context.opset() >= 10;
  const std::initializer_list<DataType> float_only = {DataType::kFloat32};
  const std::initializer_list<DataType> float_and_bytes = {DataType::kFloat32, DataType::kInt8,
                                                           DataType::kUint8};
  EDGEMOND_ASSIGN_OR_RETURN(geometry_,
                            PreparePool(context, /*has_ceil_mode=*/v10, /*has_dilations=*/v10,
                                        context.opset() >= 12 ? float_and_bytes : float_only));
  dtype_ = context.input(0).dtype;
  if (context.has_output(1)) {
    std::vector<std::int64_t> dims = {context.input(0).shape.dim(0), context.input(0).shape.dim(1)};
    const int spatial = context.input(0).shape.rank() - 2;
    for (int i = 3 - spatial; i < 3; ++i)
      dims.push_back(geometry_.out[static_cast<std::size_t>(i)]);
    EDGEMOND_RETURN_IF_ERROR(context.SetOutput(1, DataType::kInt64, Shape(std::move(dims))));
  }
  return Status::Ok();
}

Status MaxPoolKernel::Run(const RunContext& context) const {
  std::int64_t* indices = context.has_output(1) ? context.output(1).data<std::int64_t>() : nullptr;
  const ConstTensorView& x = context.input(0);
  switch (dtype_) {
    case DataType::kInt8:
      Pool(geometry_, column_major_, x.data<std::int8_t>(), context.output(0).data<std::int8_t>(),
           indices);
      return Status::Ok();
    case DataType::kUint8:
      Pool(geometry_, column_major_, x.data<std::uint8_t>(), context.output(0).data<std::uint8_t>(),
           indices);
      return Status::Ok();
    default:
      Pool(geometry_, column_major_, x.data<float>(), context.output(0).data<float>(), indices);
      return Status::Ok();
  }
}

}  // namespace edgemond::engine
