#include "engine/kernels/max_pool.h"

#include <limits>

namespace edgemond::engine {

Status MaxPoolKernel::Prepare(PrepareContext& context) {
  if (context.has_output(1)) {
    return Status::Unsupported("the Indices output (output 1) is not supported");
  }
  // storage_order only changes the Indices output.
  if (context.opset() >= 8) context.attributes().Ignore("storage_order");
  const bool v10 = context.opset() >= 10;
  EDGEMOND_ASSIGN_OR_RETURN(geometry_, PreparePool(context, /*has_ceil_mode=*/v10,
                                                   /*has_dilations=*/v10));
  return Status::Ok();
}

Status MaxPoolKernel::Run(const RunContext& context) const {
  const PoolGeometry& g = geometry_;
  const float* x = context.input(0).data<float>();
  float* y = context.output(0).data<float>();
  const std::int64_t in_plane = g.in[0] * g.in[1] * g.in[2];
  const std::int64_t out_plane = g.out[0] * g.out[1] * g.out[2];
  for (std::int64_t p = 0; p < g.planes; ++p) {
    const float* xp = x + p * in_plane;
    float* yp = y + p * out_plane;
    for (std::int64_t od = 0; od < g.out[0]; ++od) {
      for (std::int64_t oh = 0; oh < g.out[1]; ++oh) {
        for (std::int64_t ow = 0; ow < g.out[2]; ++ow) {
          float best = -std::numeric_limits<float>::infinity();
          for (std::int64_t kd = 0; kd < g.kernel[0]; ++kd) {
            const std::int64_t id = od * g.stride[0] + kd * g.dilation[0] - g.pad_begin[0];
            if (id < 0 || id >= g.in[0]) continue;
            for (std::int64_t kh = 0; kh < g.kernel[1]; ++kh) {
              const std::int64_t ih = oh * g.stride[1] + kh * g.dilation[1] - g.pad_begin[1];
              if (ih < 0 || ih >= g.in[1]) continue;
              for (std::int64_t kw = 0; kw < g.kernel[2]; ++kw) {
                const std::int64_t iw = ow * g.stride[2] + kw * g.dilation[2] - g.pad_begin[2];
                if (iw < 0 || iw >= g.in[2]) continue;
                const float v = xp[(id * g.in[1] + ih) * g.in[2] + iw];
                // NaN wins, as in ONNX's reference (and PyTorch).
                if (v > best || v != v) best = v;
              }
            }
          }
          yp[(od * g.out[1] + oh) * g.out[2] + ow] = best;
        }
      }
    }
  }
  return Status::Ok();
}

}  // namespace edgemond::engine
