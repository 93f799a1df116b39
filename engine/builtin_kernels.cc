// The built-in kernels: one line per (operator, opset range). To add an operator, write
// engine/kernels/<op>.{h,cc}, add one line here and the files to engine/CMakeLists.txt
// (docs/engine.md, "Adding an operator").
//
// Ranges: the first opset is the first whose definition the kernel implements; ranges end at
// kNewestOpset when no later ONNX version changed the operator in a way the kernel does not
// handle (later versions that only add types the kernel refuses are covered).

#include "engine/kernel_registry.h"
#include "engine/kernels/add.h"
#include "engine/kernels/average_pool.h"
#include "engine/kernels/batch_normalization.h"
#include "engine/kernels/cast.h"
#include "engine/kernels/channel_shuffle.h"
#include "engine/kernels/clip.h"
#include "engine/kernels/concat.h"
#include "engine/kernels/constant.h"
#include "engine/kernels/conv.h"
#include "engine/kernels/dense.h"
#include "engine/kernels/div.h"
#include "engine/kernels/dropout.h"
#include "engine/kernels/fast_elementwise.h"
#include "engine/kernels/fast_transpose.h"
#include "engine/kernels/flatten.h"
#include "engine/kernels/gather.h"
#include "engine/kernels/gemm.h"
#include "engine/kernels/global_average_pool.h"
#include "engine/kernels/hard_sigmoid.h"
#include "engine/kernels/hard_swish.h"
#include "engine/kernels/identity.h"
#include "engine/kernels/mat_mul.h"
#include "engine/kernels/max_pool.h"
#include "engine/kernels/mul.h"
#include "engine/kernels/nhwc_conv.h"
#include "engine/kernels/nhwc_pool.h"
#include "engine/kernels/reduce_mean.h"
#include "engine/kernels/relu.h"
#include "engine/kernels/reshape.h"
#include "engine/kernels/shape.h"
#include "engine/kernels/sigmoid.h"
#include "engine/kernels/slice.h"
#include "engine/kernels/softmax.h"
#include "engine/kernels/sub.h"
#include "engine/kernels/transpose.h"
#include "engine/kernels/unsqueeze.h"

namespace edgemond::engine {

Status RegisterBuiltinKernels(KernelRegistry& registry) {
  const KernelDef defs[] = {
      // domain, op, since, until, factory
      {"", "Add", 7, kNewestOpset, &MakeKernel<FastAddKernel>},
      {"", "AveragePool", 7, kNewestOpset, &MakeKernel<AveragePoolKernel>},
      {"", "BatchNormalization", 7, kNewestOpset, &MakeKernel<BatchNormalizationKernel>},
      {"", "Cast", 6, kNewestOpset, &MakeKernel<CastKernel>},
      {"", "Clip", 6, kNewestOpset, &MakeKernel<FastClipKernel>},
      {"", "Concat", 4, kNewestOpset, &MakeKernel<ConcatKernel>},
      {"", "Constant", 1, kNewestOpset, &MakeKernel<ConstantKernel>},
      {"", "Conv", 1, kNewestOpset, &MakeKernel<ConvKernel>},
      {"", "Div", 7, kNewestOpset, &MakeKernel<FastDivKernel>},
      {"", "Dropout", 7, kNewestOpset, &MakeKernel<DropoutKernel>},
      {"", "Flatten", 1, kNewestOpset, &MakeKernel<FlattenKernel>},
      {"", "Gather", 1, kNewestOpset, &MakeKernel<GatherKernel>},
      {"", "Gemm", 7, kNewestOpset, &MakeKernel<GemmKernel>},
      {"", "GlobalAveragePool", 1, kNewestOpset, &MakeKernel<GlobalAveragePoolKernel>},
      {"", "HardSigmoid", 6, kNewestOpset, &MakeKernel<FastHardSigmoidKernel>},
      {"", "HardSwish", 14, kNewestOpset, &MakeKernel<FastHardSwishKernel>},
      {"", "Identity", 1, kNewestOpset, &MakeKernel<IdentityKernel>},
      {"", "MatMul", 1, kNewestOpset, &MakeKernel<MatMulKernel>},
      {"", "MaxPool", 1, kNewestOpset, &MakeKernel<MaxPoolKernel>},
      {"", "Mul", 7, kNewestOpset, &MakeKernel<FastMulKernel>},
      {"", "ReduceMean", 1, kNewestOpset, &MakeKernel<ReduceMeanKernel>},
      {"", "Relu", 6, kNewestOpset, &MakeKernel<FastReluKernel>},
      {"", "Reshape", 5, kNewestOpset, &MakeKernel<ReshapeKernel>},
      {"", "Shape", 1, kNewestOpset, &MakeKernel<ShapeKernel>},
      {"", "Sigmoid", 6, kNewestOpset, &MakeKernel<FastSigmoidKernel>},
      {"", "Slice", 1, kNewestOpset, &MakeKernel<FastSliceKernel>},
      {"", "Softmax", 1, kNewestOpset, &MakeKernel<SoftmaxKernel>},
      {"", "Sub", 7, kNewestOpset, &MakeKernel<FastSubKernel>},
      {"", "Transpose", 1, kNewestOpset, &MakeKernel<FastTransposeKernel>},
      {"", "Unsqueeze", 1, kNewestOpset, &MakeKernel<UnsqueezeKernel>},
      // The engine's own operators, made by engine/layout_pass.h (opset 1 only).
      {kInternalDomain, "ChannelShuffle", 1, 1, &MakeKernel<ChannelShuffleKernel>},
      {kInternalDomain, "Dense", 1, 1, &MakeKernel<DenseKernel>},
      {kInternalDomain, "NhwcConv", 1, 1, &MakeKernel<NhwcConvKernel>},
      {kInternalDomain, "NhwcGlobalAveragePool", 1, 1, &MakeKernel<NhwcGlobalAveragePoolKernel>},
      {kInternalDomain, "NhwcMaxPool", 1, 1, &MakeKernel<NhwcMaxPoolKernel>},
  };
  for (const KernelDef& def : defs) EDGEMOND_RETURN_IF_ERROR(registry.Add(def));
  return Status::Ok();
}

}  // namespace edgemond::engine
