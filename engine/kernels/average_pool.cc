#include "engine/kernels/average_pool.h"

namespace edgemond::engine {

Status AveragePoolKernel::Prepare(PrepareContext& context) {
  EDGEMOND_ASSIGN_OR_RETURN(const std::int64_t count_include_pad,
                            context.attributes().GetInt("count_include_pad", 0));
  count_include_pad_ = count_include_pad != 0;
  EDGEMOND_ASSIGN_OR_RETURN(geometry_, PreparePool(context, /*has_ceil_mode=*/context.opset() >= 10,
                                                   /*has_dilations=*/context.opset() >= 19));
  return Status::Ok();
}

Status AveragePoolKernel::Run(const RunContext& context) const {
  const PoolGeometry& g = geometry_;
  const float* x = context.input(0).data<float>();
  float* y = context.output(0).data<float>();
  const std::int64_t in_plane = g.in[0] * g.in[1] * g.in[2];
  const std::int64_t out_plane = g.out[0] * g.out[1] * g.out[2];
  // A tap at input position i counts when it is inside [lo, hi).
  std::array<std::int64_t, 3> lo{0, 0, 0};
  std::array<std::int64_t, 3> hi = g.in;
  if (count_include_pad_) {
    for (std::size_t d = 0; d < 3; ++d) {
      lo[d] = -g.pad_begin[d];
      hi[d] = g.in[d] + g.pad_end[d];
    }
  }
  for (std::int64_t p = 0; p < g.planes; ++p) {
    const float* xp = x + p * in_plane;
    float* yp = y + p * out_plane;
    for (std::int64_t od = 0; od < g.out[0]; ++od) {
      for (std::int64_t oh = 0; oh < g.out[1]; ++oh) {
        for (std::int64_t ow = 0; ow < g.out[2]; ++ow) {
          float sum = 0.0f;
          std::int64_t count = 0;
          for (std::int64_t kd = 0; kd < g.kernel[0]; ++kd) {
            const std::int64_t id = od * g.stride[0] + kd * g.dilation[0] - g.pad_begin[0];
            if (id < lo[0] || id >= hi[0]) continue;
            for (std::int64_t kh = 0; kh < g.kernel[1]; ++kh) {
              const std::int64_t ih = oh * g.stride[1] + kh * g.dilation[1] - g.pad_begin[1];
              if (ih < lo[1] || ih >= hi[1]) continue;
              for (std::int64_t kw = 0; kw < g.kernel[2]; ++kw) {
                const std::int64_t iw = ow * g.stride[2] + kw * g.dilation[2] - g.pad_begin[2];
                if (iw < lo[2] || iw >= hi[2]) continue;
                ++count;
                const bool inside =
                    id >= 0 && id < g.in[0] && ih >= 0 && ih < g.in[1] && iw >= 0 && iw < g.in[2];
                if (inside) sum += xp[(id * g.in[1] + ih) * g.in[2] + iw];
              }
            }
          }
          yp[(od * g.out[1] + oh) * g.out[2] + ow] =
              count > 0 ? sum / static_cast<float>(count) : 0.0f;
        }
      }
    }
  }
  return Status::Ok();
}

}  // namespace edgemond::engine
