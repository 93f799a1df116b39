// The built-in kernels: one line per (operator, opset range). To add an operator, write
// engine/kernels/<op>.{h,cc}, add one line here and the files to engine/CMakeLists.txt
// (docs/engine.md, "Adding an operator").
//
// Ranges: the first opset is the first whose definition the kernel implements; ranges end at
// kNewestOpset when no later ONNX version changed the operator in a way the kernel does not
// handle (later versions that only add types the kernel refuses are covered).

#include "engine/kernel_registry.h"
#include "engine/kernels/abs.h"
#include "engine/kernels/add.h"
#include "engine/kernels/average_pool.h"
#include "engine/kernels/batch_normalization.h"
#include "engine/kernels/cast.h"
#include "engine/kernels/channel_shuffle.h"
#include "engine/kernels/clip.h"
#include "engine/kernels/concat.h"
#include "engine/kernels/constant.h"
#include "engine/kernels/constant_of_shape.h"
#include "engine/kernels/conv.h"
#include "engine/kernels/conv_transpose.h"
#include "engine/kernels/dense.h"
#include "engine/kernels/div.h"
#include "engine/kernels/dropout.h"
#include "engine/kernels/erf.h"
#include "engine/kernels/exp.h"
#include "engine/kernels/expand.h"
#include "engine/kernels/fast_elementwise.h"
#include "engine/kernels/fast_transpose.h"
#include "engine/kernels/flatten.h"
#include "engine/kernels/gather.h"
#include "engine/kernels/gelu.h"
#include "engine/kernels/gemm.h"
#include "engine/kernels/global_average_pool.h"
#include "engine/kernels/global_max_pool.h"
#include "engine/kernels/hard_sigmoid.h"
#include "engine/kernels/hard_swish.h"
#include "engine/kernels/identity.h"
#include "engine/kernels/layer_normalization.h"
#include "engine/kernels/leaky_relu.h"
#include "engine/kernels/log.h"
#include "engine/kernels/log_softmax.h"
#include "engine/kernels/lrn.h"
#include "engine/kernels/mat_mul.h"
#include "engine/kernels/max.h"
#include "engine/kernels/max_pool.h"
#include "engine/kernels/mean.h"
#include "engine/kernels/min.h"
#include "engine/kernels/mul.h"
#include "engine/kernels/neg.h"
#include "engine/kernels/nhwc_concat.h"
#include "engine/kernels/nhwc_conv.h"
#include "engine/kernels/nhwc_pool.h"
#include "engine/kernels/pad.h"
#include "engine/kernels/pow.h"
#include "engine/kernels/prelu.h"
#include "engine/kernels/reduce_max.h"
#include "engine/kernels/reduce_mean.h"
#include "engine/kernels/reduce_sum.h"
#include "engine/kernels/relu.h"
#include "engine/kernels/reshape.h"
#include "engine/kernels/resize.h"
#include "engine/kernels/shape.h"
#include "engine/kernels/sigmoid.h"
#include "engine/kernels/slice.h"
#include "engine/kernels/softmax.h"
#include "engine/kernels/split.h"
#include "engine/kernels/sqrt.h"
#include "engine/kernels/squeeze.h"
#include "engine/kernels/sub.h"
#include "engine/kernels/sum.h"
#include "engine/kernels/tanh.h"
#include "engine/kernels/transpose.h"
#include "engine/kernels/unsqueeze.h"
#include "engine/kernels/upsample.h"
#include "engine/kernels/where.h"

namespace edgemond::engine {

Status RegisterBuiltinKernels(KernelRegistry& registry) {
  const KernelDef defs[] = {
      // domain, op, since, until, factory
      {"", "Abs", 6, kNewestOpset, &MakeKernel<AbsKernel>},
      {"", "Add", 7, kNewestOpset, &MakeKernel<FastAddKernel>},
      {"", "AveragePool", 7, kNewestOpset, &MakeKernel<AveragePoolKernel>},
      {"", "BatchNormalization", 7, kNewestOpset, &MakeKernel<BatchNormalizationKernel>},
      {"", "Cast", 6, kNewestOpset, &MakeKernel<CastKernel>},
      {"", "Clip", 6, kNewestOpset, &MakeKernel<FastClipKernel>},
      {"", "Concat", 4, kNewestOpset, &MakeKernel<ConcatKernel>},
      {"", "Constant", 1, kNewestOpset, &MakeKernel<ConstantKernel>},
      {"", "ConstantOfShape", 9, kNewestOpset, &MakeKernel<ConstantOfShapeKernel>},
      {"", "Conv", 1, kNewestOpset, &MakeKernel<ConvKernel>},
      {"", "ConvTranspose", 1, kNewestOpset, &MakeKernel<ConvTransposeKernel>},
      {"", "Div", 7, kNewestOpset, &MakeKernel<FastDivKernel>},
      {"", "Dropout", 7, kNewestOpset, &MakeKernel<DropoutKernel>},
      {"", "Erf", 9, kNewestOpset, &MakeKernel<ErfKernel>},
      {"", "Exp", 6, kNewestOpset, &MakeKernel<ExpKernel>},
      {"", "Expand", 8, kNewestOpset, &MakeKernel<ExpandKernel>},
      {"", "Flatten", 1, kNewestOpset, &MakeKernel<FlattenKernel>},
      {"", "Gather", 1, kNewestOpset, &MakeKernel<GatherKernel>},
      {"", "Gelu", 20, kNewestOpset, &MakeKernel<GeluKernel>},
      {"", "Gemm", 7, kNewestOpset, &MakeKernel<GemmKernel>},
      {"", "GlobalAveragePool", 1, kNewestOpset, &MakeKernel<GlobalAveragePoolKernel>},
      {"", "GlobalMaxPool", 1, kNewestOpset, &MakeKernel<GlobalMaxPoolKernel>},
      {"", "HardSigmoid", 6, kNewestOpset, &MakeKernel<FastHardSigmoidKernel>},
      {"", "HardSwish", 14, kNewestOpset, &MakeKernel<FastHardSwishKernel>},
      {"", "Identity", 1, kNewestOpset, &MakeKernel<IdentityKernel>},
      {"", "LRN", 1, kNewestOpset, &MakeKernel<LrnKernel>},
      {"", "LayerNormalization", 17, kNewestOpset, &MakeKernel<LayerNormalizationKernel>},
      {"", "LeakyRelu", 6, kNewestOpset, &MakeKernel<LeakyReluKernel>},
      {"", "Log", 6, kNewestOpset, &MakeKernel<LogKernel>},
      {"", "LogSoftmax", 1, kNewestOpset, &MakeKernel<LogSoftmaxKernel>},
      {"", "MatMul", 1, kNewestOpset, &MakeKernel<MatMulKernel>},
      {"", "Max", 6, kNewestOpset, &MakeKernel<MaxKernel>},
      {"", "MaxPool", 1, kNewestOpset, &MakeKernel<MaxPoolKernel>},
      {"", "Mean", 6, kNewestOpset, &MakeKernel<MeanKernel>},
      {"", "Min", 6, kNewestOpset, &MakeKernel<MinKernel>},
      {"", "Mul", 7, kNewestOpset, &MakeKernel<FastMulKernel>},
      {"", "Neg", 6, kNewestOpset, &MakeKernel<NegKernel>},
      {"", "PRelu", 7, kNewestOpset, &MakeKernel<PReluKernel>},
      {"", "Pad", 2, kNewestOpset, &MakeKernel<PadKernel>},
      {"", "Pow", 7, kNewestOpset, &MakeKernel<PowKernel>},
      {"", "ReduceMax", 1, kNewestOpset, &MakeKernel<ReduceMaxKernel>},
      {"", "ReduceMean", 1, kNewestOpset, &MakeKernel<ReduceMeanKernel>},
      {"", "ReduceSum", 1, kNewestOpset, &MakeKernel<ReduceSumKernel>},
      {"", "Relu", 6, kNewestOpset, &MakeKernel<FastReluKernel>},
      {"", "Reshape", 5, kNewestOpset, &MakeKernel<ReshapeKernel>},
      {"", "Resize", 10, kNewestOpset, &MakeKernel<ResizeKernel>},
      {"", "Shape", 1, kNewestOpset, &MakeKernel<ShapeKernel>},
      {"", "Sigmoid", 6, kNewestOpset, &MakeKernel<FastSigmoidKernel>},
      {"", "Slice", 1, kNewestOpset, &MakeKernel<FastSliceKernel>},
      {"", "Softmax", 1, kNewestOpset, &MakeKernel<SoftmaxKernel>},
      {"", "Split", 2, kNewestOpset, &MakeKernel<SplitKernel>},
      {"", "Sqrt", 6, kNewestOpset, &MakeKernel<SqrtKernel>},
      {"", "Squeeze", 1, kNewestOpset, &MakeKernel<SqueezeKernel>},
      {"", "Sub", 7, kNewestOpset, &MakeKernel<FastSubKernel>},
      {"", "Sum", 6, kNewestOpset, &MakeKernel<SumKernel>},
      {"", "Tanh", 6, kNewestOpset, &MakeKernel<TanhKernel>},
      {"", "Transpose", 1, kNewestOpset, &MakeKernel<FastTransposeKernel>},
      {"", "Unsqueeze", 1, kNewestOpset, &MakeKernel<UnsqueezeKernel>},
      {"", "Upsample", 7, 9, &MakeKernel<UpsampleKernel>},
      {"", "Where", 9, kNewestOpset, &MakeKernel<WhereKernel>},
      // The engine's own operators, made by engine/layout_pass.h (opset 1 only).
      {kInternalDomain, "ChannelShuffle", 1, 1, &MakeKernel<ChannelShuffleKernel>},
      {kInternalDomain, "Dense", 1, 1, &MakeKernel<DenseKernel>},
      {kInternalDomain, "NhwcConcat", 1, 1, &MakeKernel<NhwcConcatKernel>},
      {kInternalDomain, "NhwcConv", 1, 1, &MakeKernel<NhwcConvKernel>},
      {kInternalDomain, "NhwcGlobalAveragePool", 1, 1, &MakeKernel<NhwcGlobalAveragePoolKernel>},
      {kInternalDomain, "NhwcMaxPool", 1, 1, &MakeKernel<NhwcMaxPoolKernel>},
  };
  for (const KernelDef& def : defs) EDGEMOND_RETURN_IF_ERROR(registry.Add(def));
  return Status::Ok();
}

}  // namespace edgemond::engine
