// The NHWC layout pass's rewriter (engine/layout_pass.h has what the pass does). It is one class
// whose methods live in a file per kind of rewrite: nhwc_rewriter.cc (the walk, and the twins and
// reorders between layouts), nhwc_operators.cc (nodes that become edgemond's NHWC operators),
// follow_input.cc (ops that follow their input into NHWC) and fusions.cc (the patterns fused once
// every node has its layout). Internal to the engine.

#ifndef EDGEMOND_ENGINE_LAYOUT_NHWC_REWRITER_H_
#define EDGEMOND_ENGINE_LAYOUT_NHWC_REWRITER_H_

#include <cstdint>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "core/status.h"
#include "engine/graph.h"
#include "engine/kernel_registry.h"
#include "engine/layout_pass.h"

namespace edgemond::engine::layout {

inline constexpr char kDomain[] = "edgemond";

// Convolutions with at most this many input channels read planar (NCHW) input directly.
inline constexpr std::int64_t kNchwInputMaxChannels = 4;

// Where NCHW dimension i sits in NHWC order.
inline constexpr int kNhwcPosition[4] = {0, 3, 1, 2};

inline bool IsDefaultDomain(const Node& node) {
  return node.domain.empty() || node.domain == "ai.onnx";
}

inline Shape ToNhwc(const Shape& s) { return Shape{s.dim(0), s.dim(2), s.dim(3), s.dim(1)}; }

inline Attribute IntsAttribute(std::string name, std::vector<std::int64_t> values) {
  Attribute a;
  a.name = std::move(name);
  a.type = Attribute::Type::kInts;
  a.ints = std::move(values);
  return a;
}

inline Attribute IntAttribute(std::string name, std::int64_t value) {
  Attribute a;
  a.name = std::move(name);
  a.type = Attribute::Type::kInt;
  a.i = value;
  return a;
}

inline const std::set<std::string, std::less<>>& UnaryOps() {
  static const auto* ops = new std::set<std::string, std::less<>>{
      "Relu", "Clip", "Sigmoid", "HardSigmoid", "HardSwish", "Tanh",     "LeakyRelu",  "Abs",
      "Neg",  "Exp",  "Log",     "Sqrt",        "Erf",       "Softplus", "Elu",        "Selu",
      "Celu", "Gelu", "Floor",   "Ceil",        "Round",     "Sign",     "Reciprocal", "PRelu"};
  return *ops;
}

inline bool IsBinaryOp(std::string_view op) {
  return op == "Add" || op == "Sub" || op == "Mul" || op == "Div";
}

class NhwcRewriter {
 public:
  NhwcRewriter(Graph& graph, const KernelRegistry& registry, LayoutStats& stats)
      : graph_(graph),
        registry_(registry),
        stats_(stats),
        twin_(static_cast<std::size_t>(graph.num_values()), kNoValue),
        plain_(static_cast<std::size_t>(graph.num_values()), true) {}

  Status Run();

 private:
  bool IsFloat4d(ValueId v) const {
    const Value& value = graph_.value(v);
    return value.info.has_value() && value.info->dtype == DataType::kFloat32 &&
           value.info->shape.rank() == 4;
  }

  // The value exists only as its NHWC twin.
  bool OnlyNhwc(ValueId v) const {
    return v != kNoValue && static_cast<std::size_t>(v) < plain_.size() &&
           !plain_[static_cast<std::size_t>(v)];
  }

  const TensorInfo& Info(ValueId v) const { return *graph_.value(v).info; }

  // The walk, and the twins and reorders between the layouts (nhwc_rewriter.cc).
  Status Visit(NodeId id);
  ValueId NewValue(const std::string& base, TensorInfo info);

  Result<NodeId> AddNode(std::string name, std::string domain, std::string op,
                         std::vector<ValueId> inputs, std::vector<ValueId> outputs,
                         std::vector<Attribute> attributes,
                         FusedActivation activation = FusedActivation::None(), int opset = 1);

  Result<ValueId> Int64Constant(const std::string& base, std::vector<std::int64_t> values);

  // The NHWC version of a 4-D float value: its twin, a permuted copy of a constant, or a new
  // Transpose of a plain value.
  Result<ValueId> Nhwc(ValueId v);

  // Makes the plain value `v` exist again (from its twin) when only the twin does.
  Status RequirePlain(ValueId v);

  // Replaces node `id` by `node` whose outputs are twins of the original 4-D outputs (or the
  // original values where `plain_outputs`).
  Status Replace(NodeId id, Node node);

  // A twin for output `v` (not yet produced); marks `v` as living in NHWC only.
  ValueId OutputTwin(ValueId v);

  // Nodes that become edgemond's NHWC operators (nhwc_operators.cc).
  Result<bool> TryConv(NodeId id, const Node& node);
  Result<bool> TryMaxPool(NodeId id, const Node& node);
  Result<bool> TryGlobalAveragePool(NodeId id, const Node& node);
  Result<bool> TryGemm(NodeId id, const Node& node);

  // Ops that follow their input into NHWC (follow_input.cc).
  // Unary and broadcasting binary element-wise ops.
  Result<bool> TryElementwise(NodeId id, const Node& node);
  Result<bool> TryConcat(NodeId id, const Node& node);
  Result<bool> TrySlice(NodeId id, const Node& node);
  Result<bool> TryReduceMean(NodeId id, const Node& node);
  Result<bool> TryFlatten(NodeId id, const Node& node);
  Result<bool> TryChannelShuffle(NodeId id, const Node& node);
  // Remaps constant axes of a 4-D tensor to their NHWC positions.
  Result<std::vector<std::int64_t>> RemapAxes(std::span<const std::int64_t> axes);
  // The single live consumer of `v`, or kNoNode.
  NodeId OnlyConsumer(ValueId v) const;

  // The patterns fused once every node has its layout (fusions.cc).
  // Conv -> Add(conv, other) becomes one NhwcConv with residual input `other`.
  Status FuseResiduals();
  // Mul(X, S) -> NhwcConv, S one factor per channel of X (a squeeze-and-excitation block's
  // gate), becomes one NhwcConv with input S, which scales its packed weights by S per run
  // instead of the Mul scaling X: where that is shorter. Per input channel the weights are taps
  // x padded output channels floats, X has its pixels; a weight scaled costs about twice a
  // pixel's Mul (EfficientNet-B0 at 14x14, alone: a 672->112 projection took 0.030 ms longer
  // with the gate, its Mul of 196 x 672 had taken 0.029 ms), so the weights must be at most
  // half the pixels: EfficientNet-B0's blocks at 112x112 to 28x28 and some at 14x14.
  Status FuseChannelScales();
  // An NhwcConcat input produced by an NhwcConv for the Concat alone (group 1, no residual
  // input, not a graph output) is written by the convolution straight into the Concat's output,
  // with the output's pixel stride: the convolution gets y_pixel_stride, the input in_place.
  void ConcatInPlace();
  // The live node producing each value, or kNoNode.
  std::vector<NodeId> ProducerOf() const;

  Graph& graph_;
  const KernelRegistry& registry_;
  LayoutStats& stats_;
  std::vector<ValueId> twin_;  // NHWC twin of an original 4-D value, or kNoValue.
  std::vector<bool> plain_;    // Whether the original (plain) value is produced.
  std::vector<int> uses_;
  std::set<ValueId> graph_outputs_;
};

}  // namespace edgemond::engine::layout

#endif  // EDGEMOND_ENGINE_LAYOUT_NHWC_REWRITER_H_
