// Graph passes: the steps Model::Build runs, in this order, between loading and planning.
//
//   BindInputShapes      graph inputs get concrete shapes (declared dims + caller's shapes)
//   ResolveAndFold       every node's kernel is prepared in topological order, which gives each
//                        value its type and shape; nodes whose data inputs are all constant are
//                        run at load by their reference kernel and replaced by constants
//                        (Constant nodes, and the int64 Shape/Gather/Concat/Reshape chains that
//                        exporters emit for static shapes, fold this way)
//   RemoveIdentities     Identity, and Dropout in inference mode, become plain renames
//   RemoveDeadNodes      nodes that no graph output depends on
//   FoldConvBatchNormalization   inference BatchNormalization after a Conv with constant
//                        weights becomes the Conv's weights and bias
//   FuseActivations      an activation after an op whose kernel applies it becomes that op's
//                        Node::activation (engine/activation.h)
//
// The last two are the graph optimizations (ModelOptions::optimize). Each pass is a function
// over Graph& that keeps Graph::Validate() true; a layout pass would be another.
// Every pass reports errors naming the node, e.g. "node 'conv1' (Conv, opset 13): ...".

#ifndef EDGEMOND_ENGINE_PASSES_H_
#define EDGEMOND_ENGINE_PASSES_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "engine/graph.h"
#include "engine/kernel_registry.h"

namespace edgemond::engine {

// Caller-given input shapes by input name.
using InputShapes = std::map<std::string, std::vector<std::int64_t>, std::less<>>;

// Constant values for graph inputs by name (see ModelOptions::constant_inputs).
using ConstantInputs = std::map<std::string, std::shared_ptr<const Tensor>, std::less<>>;

// Makes the named graph inputs constants. Each value must have the input's declared type and
// agree with its declared dimensions; names that match no input are errors.
Status FreezeInputs(Graph& graph, const ConstantInputs& values);

// Gives every graph input a TensorInfo. A given shape must match the declared rank and every
// declared numeric dimension, and bind each symbolic name to one value across all inputs; an
// input without a given shape must be fully declared. Names that match no input are errors.
Status BindInputShapes(Graph& graph, const InputShapes& shapes);

struct FoldStats {
  int folded_nodes = 0;
};

// Prepares every live node's kernel in topological order (REQUIRES: inputs bound), recording
// output types and shapes in the graph, checks them against the types the model declares, and
// folds nodes whose data inputs are all constant. Fails on the first node that is unsupported
// or invalid, or whose output would be larger than `max_tensor_bytes` (so that folding never
// allocates more than the model could run with).
Status ResolveAndFold(Graph& graph, const KernelRegistry& registry, std::int64_t max_tensor_bytes,
                      FoldStats* stats);

// Replaces Identity nodes, and Dropout nodes whose mask output is unused, by their input.
// Returns the number of nodes removed.
int RemoveIdentities(Graph& graph);

// Removes live nodes whose outputs reach no graph output. Returns the number removed.
int RemoveDeadNodes(Graph& graph);

// Folds BatchNormalization into the Conv before it: when a Conv with constant float32 weights
// (and bias, if any) feeds only an inference-mode BatchNormalization with constant [M]
// parameters, the Conv gets W' = W * s and B' = (B - mean) * s + bias per output channel,
// s = scale / sqrt(var + epsilon) (computed in double), and produces the BatchNormalization's
// output. Weights no other node uses are released. Returns the number of nodes removed.
Result<int> FoldConvBatchNormalization(Graph& graph);

// Fuses activations into the ops that produce their input. An activation node (Relu,
// LeakyRelu, Clip with constant bounds, HardSigmoid, HardSwish, Sigmoid) is fused when its
// input is float32, read by no other node, not a graph output, and produced by a node without
// an activation whose kernel declares the kind (Kernel::SupportsActivation: the reference
// Conv, Gemm, MatMul and Add). Two patterns fuse as one activation: x * Sigmoid(x) as Silu
// and x * HardSigmoid(x) with alpha 1/6, beta 0.5 as HardSwish, where x is read only by the
// two nodes. Returns the number of nodes removed.
Result<int> FuseActivations(Graph& graph, const KernelRegistry& registry);

// A node's kernel after Prepare(), with what Prepare() reported.
struct PreparedKernel {
  std::unique_ptr<Kernel> kernel;
  std::vector<std::optional<TensorInfo>> outputs;  // One per node output; empty if omitted.
  std::size_t scratch_bytes = 0;
  std::uint64_t flops = 0;
};

// Looks up, creates and prepares the kernel of live node `id`, whose inputs must all have a
// TensorInfo. Refuses attributes the kernel did not read, and outputs it did not set.
Result<PreparedKernel> PrepareNode(const Graph& graph, NodeId id, const KernelRegistry& registry);

// The node's description for error messages: "node 'conv1' (Conv, opset 13)".
std::string DescribeForError(const Graph& graph, NodeId id);

}  // namespace edgemond::engine

#endif  // EDGEMOND_ENGINE_PASSES_H_
