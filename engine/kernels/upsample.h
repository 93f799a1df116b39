// Upsample (ai.onnx 7-9; deprecated from 10 in favour of Resize): output = floor(input *
// scale) per dimension, scales an attribute (7-8) or an input known at load time (9), mode
// nearest (floor of the asymmetric position) or linear. The computation is Resize's
// (engine/kernels/resize.h). float32.

#ifndef EDGEMOND_ENGINE_KERNELS_UPSAMPLE_H_
#define EDGEMOND_ENGINE_KERNELS_UPSAMPLE_H_

#include "engine/kernels/resize.h"

namespace edgemond::engine {

class UpsampleKernel : public ResizeKernel {
 public:
  Status Prepare(PrepareContext& context) override;
};

}  // namespace edgemond::engine

#endif  // EDGEMOND_ENGINE_KERNELS_UPSAMPLE_H_
