// The CPU layout pass: rewrites a resolved graph so that its convolutions, pooling and dense
// layers run on the optimized NHWC kernels (engine/kernels/cpu/fast_kernels.h), and the ops
// between them stay in NHWC instead of converting back and forth. docs/adr/0107.
//
// What it does, in topological order:
//  - Conv (2-D, constant W and B, at most kNhwcConvMaxTaps taps) -> edgemond.NhwcConv (which
//    reads a planar input of at most 4 channels, a network's image, as it is: nchw_input),
//    MaxPool (2-D) -> edgemond.NhwcMaxPool, GlobalAveragePool (4-D) ->
//    edgemond.NhwcGlobalAveragePool, with the resolved geometry as explicit attributes and the
//    node's fused activation carried over.
//  - Gemm with a constant B (alpha = beta = 1, no transA, C one bias per column) ->
//    edgemond.Dense.
//  - Ops that do not care about the order of dimensions follow their input into NHWC when it
//    lives there: element-wise unary ops; Add/Sub/Mul/Div (a lower-rank constant operand is
//    permuted, a scalar kept); Concat on the channel axis -> edgemond.NhwcConcat (axis 3); Slice
//    and ReduceMean with constant axes (axes remapped; ReduceMean over H and W without keepdims
//    gives the plain [N, C] result directly); Flatten of a 1x1-pixel tensor; ShuffleNet's
//    Reshape-Transpose-Reshape channel shuffle -> edgemond.ChannelShuffle.
//  - Everything else reads the plain (NCHW) value; a Transpose (a Reshape for 1x1 pixels)
//    produces it from the NHWC one where needed, and another turns NCHW inputs of converted
//    nodes into NHWC. Graph outputs are always plain.
//  - Finally, a Conv whose only consumer is an Add of two equal-shaped tensors takes the
//    other operand as its residual input R and the Add's fused activation (ResNet and
//    MobileNetV2 blocks), and the Add disappears.
//  - Last, a channel Concat (edgemond.NhwcConcat) has each input that an NhwcConv produces for
//    it alone (group 1, no residual) written by that convolution straight into the Concat's
//    output, at the input's channel offset and the output's pixel stride (SqueezeNet's fire
//    modules, ShuffleNet's blocks); the Concat copies only its other inputs.
//
// NHWC values are new values named "<original>:nhwc"; an original value keeps its name, type
// and NCHW shape, and is either produced by a reorder or no longer produced at all, so the
// graph still validates and cross-checks against the model's declared shapes.

#ifndef EDGEMOND_ENGINE_LAYOUT_PASS_H_
#define EDGEMOND_ENGINE_LAYOUT_PASS_H_

#include "core/status.h"
#include "engine/graph.h"
#include "engine/kernel_registry.h"

namespace edgemond::engine {

struct LayoutStats {
  int converted_nodes = 0;         // Nodes now running on NHWC data (or as Dense).
  int reorders = 0;                // Transposes and reshapes inserted between layouts.
  int fused_residuals = 0;         // Add nodes folded into a convolution.
  int concat_inputs_in_place = 0;  // Convolutions writing straight into a Concat's output.
  int fused_channel_scales = 0;    // Mul nodes folded into the convolution after them.
};

// REQUIRES: every value has its TensorInfo (after ResolveAndFold). `registry` resolves the
// original nodes when their geometry is needed.
Status ConvertToNhwc(Graph& graph, const KernelRegistry& registry, LayoutStats* stats);

}  // namespace edgemond::engine

#endif  // EDGEMOND_ENGINE_LAYOUT_PASS_H_
