// ConvTranspose (ai.onnx 1-28): the transposed (fractionally strided) convolution, for 1, 2
// and 3 spatial dimensions: each input element scatters W's taps into the output at
// i * stride + k * dilation - pad_begin. W is [C, M / group, k...]; with groups, strides,
// dilations, pads, output_padding, output_shape and auto_pad (SAME_UPPER / SAME_LOWER put
// the smaller half of the total padding first / last). float32.

#ifndef EDGEMOND_ENGINE_KERNELS_CONV_TRANSPOSE_H_
#define EDGEMOND_ENGINE_KERNELS_CONV_TRANSPOSE_H_

#include "engine/kernel.h"
#include "engine/kernels/conv.h"

namespace edgemond::engine {

class ConvTransposeKernel : public Kernel {
 public:
  Status Prepare(PrepareContext& context) override;
  Status Run(const RunContext& context) const override;

 protected:
  // In 3-D form, as Conv's: `in` is X's spatial size, `out` Y's, pad_begin the output padding
  // removed in front.
  ConvGeometry geometry_;
  bool has_bias_ = false;
};

}  // namespace edgemond::engine

#endif  // EDGEMOND_ENGINE_KERNELS_CONV_TRANSPOSE_H_
