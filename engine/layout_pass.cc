#include "engine/layout_pass.h"

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "engine/kernels/conv.h"
#include "engine/kernels/kernel_util.h"
#include "engine/kernels/max_pool.h"
#include "engine/kernels/nhwc_conv.h"
#include "engine/passes.h"

namespace edgemond::engine {
namespace {

constexpr char kDomain[] = "edgemond";

// Convolutions with at most this many input channels read planar (NCHW) input directly.
constexpr std::int64_t kNchwInputMaxChannels = 4;

// Where NCHW dimension i sits in NHWC order.
constexpr int kNhwcPosition[4] = {0, 3, 1, 2};

bool IsDefaultDomain(const Node& node) { return node.domain.empty() || node.domain == "ai.onnx"; }

Shape ToNhwc(const Shape& s) { return Shape{s.dim(0), s.dim(2), s.dim(3), s.dim(1)}; }

Attribute IntsAttribute(std::string name, std::vector<std::int64_t> values) {
  Attribute a;
  a.name = std::move(name);
  a.type = Attribute::Type::kInts;
  a.ints = std::move(values);
  return a;
}

Attribute IntAttribute(std::string name, std::int64_t value) {
  Attribute a;
  a.name = std::move(name);
  a.type = Attribute::Type::kInt;
  a.i = value;
  return a;
}

const std::set<std::string, std::less<>>& UnaryOps() {
  static const auto* ops = new std::set<std::string, std::less<>>{
      "Relu", "Clip", "Sigmoid", "HardSigmoid", "HardSwish", "Tanh",     "LeakyRelu",  "Abs",
      "Neg",  "Exp",  "Log",     "Sqrt",        "Erf",       "Softplus", "Elu",        "Selu",
      "Celu", "Gelu", "Floor",   "Ceil",        "Round",     "Sign",     "Reciprocal", "PRelu"};
  return *ops;
}

bool IsBinaryOp(std::string_view op) {
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

  Status Run() {
    EDGEMOND_ASSIGN_OR_RETURN(const std::vector<NodeId> order, graph_.TopologicalOrder());
    uses_ = graph_.UseCounts();
    for (const GraphOutput& output : graph_.outputs()) {
      graph_outputs_.insert(output.value);
    }
    for (const NodeId id : order) {
      if (graph_.node(id).removed) continue;  // Taken by a pattern.
      EDGEMOND_RETURN_IF_ERROR(Visit(id));
    }
    for (const GraphOutput& output : graph_.outputs()) {
      EDGEMOND_RETURN_IF_ERROR(RequirePlain(output.value));
    }
    EDGEMOND_RETURN_IF_ERROR(FuseResiduals());
    EDGEMOND_RETURN_IF_ERROR(FuseChannelScales());
    ConcatInPlace();
    return Status::Ok();
  }

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

  ValueId NewValue(const std::string& base, TensorInfo info) {
    std::string name = base;
    for (int i = 2; graph_.FindValue(name) != kNoValue; ++i) name = base + "." + std::to_string(i);
    const ValueId id = graph_.FindOrAddValue(name);
    graph_.value(id).info = std::move(info);
    return id;
  }

  Result<NodeId> AddNode(std::string name, std::string domain, std::string op,
                         std::vector<ValueId> inputs, std::vector<ValueId> outputs,
                         std::vector<Attribute> attributes,
                         FusedActivation activation = FusedActivation::None(), int opset = 1) {
    Node node;
    node.name = std::move(name);
    node.domain = std::move(domain);
    node.op_type = std::move(op);
    node.opset = opset;
    node.inputs = std::move(inputs);
    node.outputs = std::move(outputs);
    node.attributes = std::move(attributes);
    node.activation = activation;
    return graph_.AddNode(std::move(node));
  }

  Result<ValueId> Int64Constant(const std::string& base, std::vector<std::int64_t> values) {
    const auto count = static_cast<std::int64_t>(values.size());
    EDGEMOND_ASSIGN_OR_RETURN(Tensor tensor, Tensor::FromVector(Shape{count}, values));
    const ValueId id = NewValue(base, tensor.info());
    EDGEMOND_RETURN_IF_ERROR(
        graph_.SetConstant(id, std::make_shared<const Tensor>(std::move(tensor))));
    return id;
  }

  // The NHWC version of a 4-D float value: its twin, a permuted copy of a constant, or a new
  // Transpose of a plain value.
  Result<ValueId> Nhwc(ValueId v) {
    if (twin_[static_cast<std::size_t>(v)] != kNoValue) return twin_[static_cast<std::size_t>(v)];
    const Value& value = graph_.value(v);
    const TensorInfo nhwc{value.info->dtype, ToNhwc(value.info->shape), Layout::kPlain};
    const std::string name = value.name + ":nhwc";
    ValueId twin;
    if (value.constant != nullptr) {
      EDGEMOND_ASSIGN_OR_RETURN(Tensor tensor, Tensor::Create(nhwc.dtype, nhwc.shape));
      const Shape& s = value.info->shape;
      const float* in = value.constant->data<float>();
      float* out = tensor.data<float>();
      for (std::int64_t n = 0; n < s.dim(0); ++n)
        for (std::int64_t c = 0; c < s.dim(1); ++c)
          for (std::int64_t p = 0; p < s.dim(2) * s.dim(3); ++p)
            out[(n * s.dim(2) * s.dim(3) + p) * s.dim(1) + c] =
                in[(n * s.dim(1) + c) * s.dim(2) * s.dim(3) + p];
      twin = NewValue(name, nhwc);
      EDGEMOND_RETURN_IF_ERROR(
          graph_.SetConstant(twin, std::make_shared<const Tensor>(std::move(tensor))));
    } else {
      twin = NewValue(name, nhwc);
      EDGEMOND_RETURN_IF_ERROR(
          AddNode(name, "", "Transpose", {v}, {twin}, {IntsAttribute("perm", {0, 2, 3, 1})}, {}, 13)
              .status());
      ++stats_.reorders;
    }
    twin_.resize(std::max(twin_.size(), static_cast<std::size_t>(graph_.num_values())), kNoValue);
    plain_.resize(std::max(plain_.size(), static_cast<std::size_t>(graph_.num_values())), true);
    twin_[static_cast<std::size_t>(v)] = twin;
    return twin;
  }

  // Makes the plain value `v` exist again (from its twin) when only the twin does.
  Status RequirePlain(ValueId v) {
    if (!OnlyNhwc(v)) return Status::Ok();
    const ValueId twin = twin_[static_cast<std::size_t>(v)];
    const Shape& s = Info(v).shape;
    const std::string name = graph_.value(v).name + ":nchw";
    if (s.dim(2) * s.dim(3) == 1 || s.dim(1) == 1) {
      // The two orders are the same bytes.
      EDGEMOND_ASSIGN_OR_RETURN(const ValueId shape, Int64Constant(name + ":shape", s.vector()));
      EDGEMOND_RETURN_IF_ERROR(
          AddNode(name, "", "Reshape", {twin, shape}, {v}, {}, {}, 13).status());
    } else {
      EDGEMOND_RETURN_IF_ERROR(
          AddNode(name, "", "Transpose", {twin}, {v}, {IntsAttribute("perm", {0, 3, 1, 2})}, {}, 13)
              .status());
    }
    ++stats_.reorders;
    plain_[static_cast<std::size_t>(v)] = true;
    return Status::Ok();
  }

  // Replaces node `id` by `node` whose outputs are twins of the original 4-D outputs (or the
  // original values where `plain_outputs`).
  Status Replace(NodeId id, Node node) {
    graph_.RemoveNode(id);
    EDGEMOND_RETURN_IF_ERROR(graph_.AddNode(std::move(node)).status());
    ++stats_.converted_nodes;
    return Status::Ok();
  }

  // A twin for output `v` (not yet produced); marks `v` as living in NHWC only.
  ValueId OutputTwin(ValueId v) {
    const TensorInfo& info = Info(v);
    const ValueId twin = NewValue(graph_.value(v).name + ":nhwc",
                                  TensorInfo{info.dtype, ToNhwc(info.shape), Layout::kPlain});
    twin_.resize(std::max(twin_.size(), static_cast<std::size_t>(graph_.num_values())), kNoValue);
    plain_.resize(std::max(plain_.size(), static_cast<std::size_t>(graph_.num_values())), true);
    twin_[static_cast<std::size_t>(v)] = twin;
    plain_[static_cast<std::size_t>(v)] = false;
    return twin;
  }

  Status Visit(NodeId id) {
    const Node node = graph_.node(id);  // A copy: the graph changes below.
    if (IsDefaultDomain(node)) {
      const std::string& op = node.op_type;
      bool done = false;
      if (op == "Conv") {
        EDGEMOND_ASSIGN_OR_RETURN(done, TryConv(id, node));
      } else if (op == "MaxPool") {
        EDGEMOND_ASSIGN_OR_RETURN(done, TryMaxPool(id, node));
      } else if (op == "GlobalAveragePool") {
        EDGEMOND_ASSIGN_OR_RETURN(done, TryGlobalAveragePool(id, node));
      } else if (op == "Gemm") {
        EDGEMOND_ASSIGN_OR_RETURN(done, TryGemm(id, node));
      } else if (UnaryOps().count(op) > 0 || IsBinaryOp(op)) {
        EDGEMOND_ASSIGN_OR_RETURN(done, TryElementwise(id, node));
      } else if (op == "Concat") {
        EDGEMOND_ASSIGN_OR_RETURN(done, TryConcat(id, node));
      } else if (op == "Slice") {
        EDGEMOND_ASSIGN_OR_RETURN(done, TrySlice(id, node));
      } else if (op == "ReduceMean") {
        EDGEMOND_ASSIGN_OR_RETURN(done, TryReduceMean(id, node));
      } else if (op == "Flatten") {
        EDGEMOND_ASSIGN_OR_RETURN(done, TryFlatten(id, node));
      } else if (op == "Reshape") {
        EDGEMOND_ASSIGN_OR_RETURN(done, TryChannelShuffle(id, node));
      }
      if (done) return Status::Ok();
    }
    // The node stays as it is and reads plain values.
    for (const ValueId input : node.inputs) {
      if (input != kNoValue) EDGEMOND_RETURN_IF_ERROR(RequirePlain(input));
    }
    return Status::Ok();
  }

  Result<bool> TryConv(NodeId id, const Node& node) {
    if (node.inputs.size() < 2 || !IsFloat4d(node.inputs[0]) || node.outputs.size() != 1) {
      return false;
    }
    const Value& w = graph_.value(node.inputs[1]);
    const bool has_bias = node.inputs.size() > 2 && node.inputs[2] != kNoValue;
    if (w.constant == nullptr || (has_bias && graph_.value(node.inputs[2]).constant == nullptr)) {
      return false;
    }
    EDGEMOND_ASSIGN_OR_RETURN(PreparedKernel prepared, PrepareNode(graph_, id, registry_));
    const auto* conv = dynamic_cast<const ConvKernel*>(prepared.kernel.get());
    if (conv == nullptr) return false;
    const ConvGeometry& g = conv->geometry();
    if (g.kernel[1] * g.kernel[2] > kNhwcConvMaxTaps) return false;
    std::vector<std::int64_t> pads_end(2);
    for (int i = 0; i < 2; ++i) {
      const auto d = static_cast<std::size_t>(i + 1);
      const std::int64_t span = g.dilation[d] * (g.kernel[d] - 1) + 1;
      pads_end[static_cast<std::size_t>(i)] =
          std::max<std::int64_t>(0, (g.out[d] - 1) * g.stride[d] + span - g.in[d] - g.pad_begin[d]);
    }
    // A first layer (an image of a few planes, such as RGB) reads the planar tensor directly
    // rather than a transposed copy.
    const bool planar = !OnlyNhwc(node.inputs[0]) && g.group == 1 &&
                        g.in_channels <= kNchwInputMaxChannels &&
                        g.kernel[1] * g.kernel[2] * g.in_channels <= cpu::kMaxNchwInputReduction;
    ValueId x = node.inputs[0];
    if (!planar) {
      EDGEMOND_ASSIGN_OR_RETURN(x, Nhwc(node.inputs[0]));
    }
    Node out;
    out.name = node.name;
    out.domain = kDomain;
    out.op_type = "NhwcConv";
    out.opset = 1;
    out.inputs = {x, node.inputs[1]};
    if (has_bias) out.inputs.push_back(node.inputs[2]);
    out.outputs = {OutputTwin(node.outputs[0])};
    out.attributes = {
        IntAttribute("group", g.group), IntsAttribute("strides", {g.stride[1], g.stride[2]}),
        IntsAttribute("dilations", {g.dilation[1], g.dilation[2]}),
        IntsAttribute("pads", {g.pad_begin[1], g.pad_begin[2], pads_end[0], pads_end[1]})};
    if (planar) out.attributes.push_back(IntAttribute("nchw_input", 1));
    out.activation = node.activation;
    EDGEMOND_RETURN_IF_ERROR(Replace(id, std::move(out)));
    return true;
  }

  Result<bool> TryMaxPool(NodeId id, const Node& node) {
    if (node.outputs.size() != 1 || !IsFloat4d(node.inputs[0])) return false;
    EDGEMOND_ASSIGN_OR_RETURN(PreparedKernel prepared, PrepareNode(graph_, id, registry_));
    const auto* pool = dynamic_cast<const MaxPoolKernel*>(prepared.kernel.get());
    if (pool == nullptr) return false;
    const PoolGeometry& g = pool->geometry();
    EDGEMOND_ASSIGN_OR_RETURN(const ValueId x, Nhwc(node.inputs[0]));
    Node out;
    out.name = node.name;
    out.domain = kDomain;
    out.op_type = "NhwcMaxPool";
    out.opset = 1;
    out.inputs = {x};
    out.outputs = {OutputTwin(node.outputs[0])};
    out.attributes = {
        IntsAttribute("kernel_shape", {g.kernel[1], g.kernel[2]}),
        IntsAttribute("strides", {g.stride[1], g.stride[2]}),
        IntsAttribute("dilations", {g.dilation[1], g.dilation[2]}),
        IntsAttribute("pads", {g.pad_begin[1], g.pad_begin[2], g.pad_end[1], g.pad_end[2]}),
        IntsAttribute("output_size", {g.out[1], g.out[2]})};
    EDGEMOND_RETURN_IF_ERROR(Replace(id, std::move(out)));
    return true;
  }

  Result<bool> TryGlobalAveragePool(NodeId id, const Node& node) {
    if (node.outputs.size() != 1 || !IsFloat4d(node.inputs[0])) return false;
    EDGEMOND_ASSIGN_OR_RETURN(const ValueId x, Nhwc(node.inputs[0]));
    Node out;
    out.name = node.name;
    out.domain = kDomain;
    out.op_type = "NhwcGlobalAveragePool";
    out.opset = 1;
    out.inputs = {x};
    out.outputs = {OutputTwin(node.outputs[0])};
    EDGEMOND_RETURN_IF_ERROR(Replace(id, std::move(out)));
    return true;
  }

  Result<bool> TryGemm(NodeId id, const Node& node) {
    if (node.inputs.size() < 2 || node.outputs.size() != 1) return false;
    const Value& a = graph_.value(node.inputs[0]);
    const Value& b = graph_.value(node.inputs[1]);
    if (!a.info.has_value() || a.info->dtype != DataType::kFloat32 || a.info->shape.rank() != 2 ||
        b.constant == nullptr || b.constant->dtype() != DataType::kFloat32) {
      return false;
    }
    std::int64_t trans_b = 0;
    for (const Attribute& attribute : node.attributes) {
      if (attribute.name == "transB" && attribute.type == Attribute::Type::kInt) {
        trans_b = attribute.i;
      } else if (attribute.name == "transA" && attribute.i != 0) {
        return false;
      } else if ((attribute.name == "alpha" || attribute.name == "beta") && attribute.f != 1.0f) {
        return false;
      }
    }
    const std::int64_t n = trans_b != 0 ? b.info->shape.dim(0) : b.info->shape.dim(1);
    const bool has_c = node.inputs.size() > 2 && node.inputs[2] != kNoValue;
    if (has_c) {
      const Value& c = graph_.value(node.inputs[2]);
      if (c.constant == nullptr || c.constant->dtype() != DataType::kFloat32) return false;
      const Shape& cs = c.constant->shape();
      const bool row = cs.rank() >= 1 && cs.dim(cs.rank() - 1) == n && cs.num_elements() == n;
      if (!row && cs.num_elements() != 1) return false;
    }
    Node out;
    out.name = node.name;
    out.domain = kDomain;
    out.op_type = "Dense";
    out.opset = 1;
    out.inputs = {node.inputs[0], node.inputs[1]};
    if (has_c) out.inputs.push_back(node.inputs[2]);
    out.outputs = node.outputs;
    out.attributes = {IntAttribute("transB", trans_b != 0 ? 1 : 0)};
    out.activation = node.activation;
    EDGEMOND_RETURN_IF_ERROR(Replace(id, std::move(out)));
    return true;
  }

  // Unary and broadcasting binary element-wise ops.
  Result<bool> TryElementwise(NodeId id, const Node& node) {
    if (node.outputs.size() != 1 || !IsFloat4d(node.outputs[0])) return false;
    bool any_nhwc = false;
    for (const ValueId input : node.inputs) any_nhwc = any_nhwc || OnlyNhwc(input);
    if (!any_nhwc) return false;
    const bool binary = IsBinaryOp(node.op_type);
    std::vector<ValueId> inputs = node.inputs;
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      const ValueId v = inputs[i];
      if (v == kNoValue) continue;
      const TensorInfo& info = Info(v);
      if (info.shape.rank() == 4 && info.dtype == DataType::kFloat32) continue;
      if (info.shape.num_elements() == 1) continue;  // Scalars broadcast in any order.
      // A lower-rank operand of a binary op: a constant is padded to rank 4 and permuted.
      if (!binary || i > 1 || graph_.value(v).constant == nullptr ||
          info.dtype != DataType::kFloat32) {
        return false;
      }
    }
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      const ValueId v = inputs[i];
      if (v == kNoValue) continue;
      const TensorInfo& info = Info(v);
      if (info.shape.num_elements() == 1 && info.shape.rank() < 4) continue;
      if (info.shape.rank() == 4 && info.dtype == DataType::kFloat32) {
        EDGEMOND_ASSIGN_OR_RETURN(inputs[i], Nhwc(v));
        continue;
      }
      // Pad the constant's shape to rank 4, then use the 4-D path.
      std::vector<std::int64_t> dims(static_cast<std::size_t>(4 - info.shape.rank()), 1);
      for (const std::int64_t d : info.shape.dims()) dims.push_back(d);
      const std::shared_ptr<const Tensor>& constant = graph_.value(v).constant;
      EDGEMOND_ASSIGN_OR_RETURN(Tensor padded, Tensor::CopyOf(constant->view()));
      EDGEMOND_ASSIGN_OR_RETURN(Tensor reshaped, Tensor::Create(padded.dtype(), Shape(dims)));
      std::copy(padded.values<float>().begin(), padded.values<float>().end(),
                reshaped.mutable_values<float>().begin());
      const ValueId rank4 = NewValue(graph_.value(v).name + ":rank4", reshaped.info());
      EDGEMOND_RETURN_IF_ERROR(
          graph_.SetConstant(rank4, std::make_shared<const Tensor>(std::move(reshaped))));
      twin_.resize(static_cast<std::size_t>(graph_.num_values()), kNoValue);
      plain_.resize(static_cast<std::size_t>(graph_.num_values()), true);
      EDGEMOND_ASSIGN_OR_RETURN(inputs[i], Nhwc(rank4));
    }
    Node out = node;
    out.inputs = std::move(inputs);
    out.outputs = {OutputTwin(node.outputs[0])};
    EDGEMOND_RETURN_IF_ERROR(Replace(id, std::move(out)));
    return true;
  }

  Result<bool> TryConcat(NodeId id, const Node& node) {
    if (node.outputs.size() != 1 || !IsFloat4d(node.outputs[0])) return false;
    const Attribute* axis = node.FindAttribute("axis");
    if (axis == nullptr || (axis->i != 1 && axis->i != -3)) return false;
    bool any_nhwc = false;
    for (const ValueId input : node.inputs) {
      if (input == kNoValue || !IsFloat4d(input)) return false;
      any_nhwc = any_nhwc || OnlyNhwc(input);
    }
    if (!any_nhwc) return false;
    Node out;
    out.name = node.name;
    out.domain = kDomain;
    out.op_type = "NhwcConcat";
    out.opset = 1;
    for (const ValueId input : node.inputs) {
      EDGEMOND_ASSIGN_OR_RETURN(const ValueId nhwc, Nhwc(input));
      out.inputs.push_back(nhwc);
    }
    out.outputs = {OutputTwin(node.outputs[0])};
    // Which inputs their producers write in place is decided last (ConcatInPlace).
    out.attributes = {IntAttribute("axis", 3),
                      IntsAttribute("in_place", std::vector<std::int64_t>(node.inputs.size(), 0))};
    EDGEMOND_RETURN_IF_ERROR(Replace(id, std::move(out)));
    return true;
  }

  // Remaps constant axes of a 4-D tensor to their NHWC positions.
  Result<std::vector<std::int64_t>> RemapAxes(std::span<const std::int64_t> axes) {
    std::vector<std::int64_t> out;
    for (const std::int64_t axis : axes) {
      EDGEMOND_ASSIGN_OR_RETURN(const int a, NormalizeAxis(axis, 4));
      out.push_back(kNhwcPosition[a]);
    }
    return out;
  }

  Result<bool> TrySlice(NodeId id, const Node& node) {
    if (node.opset < 10 || node.outputs.size() != 1 || !OnlyNhwc(node.inputs[0]) ||
        node.inputs.size() < 4 || node.inputs[3] == kNoValue) {
      return false;
    }
    const Value& axes = graph_.value(node.inputs[3]);
    if (axes.constant == nullptr) return false;
    const Result<std::vector<std::int64_t>> values = ReadInt64s(*axes.constant, "axes");
    if (!values.ok()) return false;
    EDGEMOND_ASSIGN_OR_RETURN(const std::vector<std::int64_t> remapped, RemapAxes(*values));
    Node out = node;
    EDGEMOND_ASSIGN_OR_RETURN(out.inputs[0], Nhwc(node.inputs[0]));
    EDGEMOND_ASSIGN_OR_RETURN(out.inputs[3], Int64Constant(axes.name + ":nhwc", remapped));
    out.outputs = {OutputTwin(node.outputs[0])};
    EDGEMOND_RETURN_IF_ERROR(Replace(id, std::move(out)));
    return true;
  }

  Result<bool> TryReduceMean(NodeId id, const Node& node) {
    if (node.outputs.size() != 1 || !OnlyNhwc(node.inputs[0])) return false;
    std::int64_t keepdims = 1;
    std::vector<std::int64_t> axes;
    bool axes_known = false;
    for (const Attribute& attribute : node.attributes) {
      if (attribute.name == "keepdims") keepdims = attribute.i;
      if (attribute.name == "axes") {
        axes = attribute.ints;
        axes_known = true;
      }
      if (attribute.name == "noop_with_empty_axes") return false;
    }
    if (node.opset >= 18) {
      if (node.inputs.size() < 2 || node.inputs[1] == kNoValue) return false;
      const Value& a = graph_.value(node.inputs[1]);
      if (a.constant == nullptr) return false;
      const Result<std::vector<std::int64_t>> values = ReadInt64s(*a.constant, "axes");
      if (!values.ok()) return false;
      axes = *values;
      axes_known = true;
    }
    if (!axes_known || axes.empty()) return false;
    EDGEMOND_ASSIGN_OR_RETURN(const std::vector<std::int64_t> remapped, RemapAxes(axes));
    Node out = node;
    EDGEMOND_ASSIGN_OR_RETURN(out.inputs[0], Nhwc(node.inputs[0]));
    if (node.opset >= 18) {
      EDGEMOND_ASSIGN_OR_RETURN(
          out.inputs[1], Int64Constant(graph_.value(node.inputs[1]).name + ":nhwc", remapped));
    } else {
      for (Attribute& attribute : out.attributes) {
        if (attribute.name == "axes") attribute.ints = remapped;
      }
    }
    if (keepdims != 0) {
      out.outputs = {OutputTwin(node.outputs[0])};
    } else {
      // The kept dimensions must come in the same order in both layouts.
      std::vector<int> kept_nchw, kept_nhwc;
      std::set<std::int64_t> reduced(remapped.begin(), remapped.end());
      for (int d = 0; d < 4; ++d) {
        if (reduced.count(kNhwcPosition[d]) == 0) kept_nchw.push_back(kNhwcPosition[d]);
      }
      for (int d = 0; d < 4; ++d) {
        if (reduced.count(d) == 0) kept_nhwc.push_back(d);
      }
      if (kept_nchw != kept_nhwc) return false;
      out.outputs = node.outputs;  // The plain result, directly.
    }
    EDGEMOND_RETURN_IF_ERROR(Replace(id, std::move(out)));
    return true;
  }

  Result<bool> TryFlatten(NodeId id, const Node& node) {
    if (node.outputs.size() != 1 || !OnlyNhwc(node.inputs[0])) return false;
    const Attribute* axis = node.FindAttribute("axis");
    const std::int64_t a = axis != nullptr ? axis->i : 1;
    const Shape& s = Info(node.inputs[0]).shape;
    if (a != 1 || (s.dim(2) * s.dim(3) != 1 && s.dim(1) != 1)) return false;
    Node out = node;
    EDGEMOND_ASSIGN_OR_RETURN(out.inputs[0], Nhwc(node.inputs[0]));
    EDGEMOND_RETURN_IF_ERROR(Replace(id, std::move(out)));
    return true;
  }

  // The single live consumer of `v`, or kNoNode.
  NodeId OnlyConsumer(ValueId v) const {
    if (uses_[static_cast<std::size_t>(v)] != 1 || graph_outputs_.count(v) > 0) return kNoNode;
    for (const NodeId id : graph_.LiveNodes()) {
      for (const ValueId input : graph_.node(id).inputs) {
        if (input == v) return id;
      }
    }
    return kNoNode;
  }

  Result<bool> TryChannelShuffle(NodeId id, const Node& node) {
    if (node.outputs.size() != 1 || !OnlyNhwc(node.inputs[0])) return false;
    const Shape& x = Info(node.inputs[0]).shape;
    const Shape& r1 = Info(node.outputs[0]).shape;
    if (r1.rank() != 5 || r1.dim(0) != x.dim(0) || r1.dim(1) * r1.dim(2) != x.dim(1) ||
        r1.dim(3) != x.dim(2) || r1.dim(4) != x.dim(3)) {
      return false;
    }
    const NodeId t = OnlyConsumer(node.outputs[0]);
    if (t == kNoNode) return false;
    const Node& transpose = graph_.node(t);
    const Attribute* perm = transpose.FindAttribute("perm");
    if (transpose.op_type != "Transpose" || !IsDefaultDomain(transpose) || perm == nullptr ||
        perm->ints != std::vector<std::int64_t>{0, 2, 1, 3, 4} || transpose.outputs.size() != 1) {
      return false;
    }
    const NodeId r = OnlyConsumer(transpose.outputs[0]);
    if (r == kNoNode) return false;
    const Node& reshape = graph_.node(r);
    if (reshape.op_type != "Reshape" || !IsDefaultDomain(reshape) || reshape.outputs.size() != 1 ||
        !(Info(reshape.outputs[0]).shape == x) || reshape.inputs[0] != transpose.outputs[0]) {
      return false;
    }
    EDGEMOND_ASSIGN_OR_RETURN(const ValueId input, Nhwc(node.inputs[0]));
    const ValueId result = reshape.outputs[0];
    const std::string name = reshape.name;
    graph_.RemoveNode(t);
    graph_.RemoveNode(r);
    Node out;
    out.name = name;
    out.domain = kDomain;
    out.op_type = "ChannelShuffle";
    out.opset = 1;
    out.inputs = {input};
    out.outputs = {OutputTwin(result)};
    out.attributes = {IntAttribute("group", r1.dim(1))};
    EDGEMOND_RETURN_IF_ERROR(Replace(id, std::move(out)));
    return true;
  }

  // The live node producing each value, or kNoNode.
  std::vector<NodeId> ProducerOf() const {
    std::vector<NodeId> producer_of(static_cast<std::size_t>(graph_.num_values()), kNoNode);
    for (const NodeId id : graph_.LiveNodes()) {
      for (const ValueId v : graph_.node(id).outputs) {
        if (v != kNoValue) producer_of[static_cast<std::size_t>(v)] = id;
      }
    }
    return producer_of;
  }

  // Conv -> Add(conv, other) becomes one NhwcConv with residual input `other`.
  Status FuseResiduals() {
    const std::vector<int> uses = graph_.UseCounts();
    std::set<ValueId> outputs;
    for (const GraphOutput& output : graph_.outputs()) outputs.insert(output.value);
    const std::vector<NodeId> producer_of = ProducerOf();
    for (const NodeId add_id : graph_.LiveNodes()) {
      const Node add = graph_.node(add_id);
      if (add.removed || add.op_type != "Add" || !IsDefaultDomain(add) || add.inputs.size() != 2 ||
          add.outputs.size() != 1 || !IsFloat4d(add.outputs[0])) {
        continue;
      }
      const Shape& y = Info(add.outputs[0]).shape;
      for (int side = 0; side < 2; ++side) {
        const ValueId conv_out = add.inputs[static_cast<std::size_t>(side)];
        const ValueId other = add.inputs[static_cast<std::size_t>(1 - side)];
        if (conv_out == other || uses[static_cast<std::size_t>(conv_out)] != 1 ||
            outputs.count(conv_out) > 0 || !(Info(conv_out).shape == y) ||
            !(Info(other).shape == y)) {
          continue;
        }
        const NodeId conv_id = producer_of[static_cast<std::size_t>(conv_out)];
        if (conv_id == kNoNode) continue;
        const Node& conv = graph_.node(conv_id);
        if (conv.op_type != "NhwcConv" || conv.domain != kDomain || conv.inputs.size() > 3 ||
            conv.activation.active()) {
          continue;
        }
        Node fused = conv;
        fused.inputs.resize(3, kNoValue);
        fused.inputs.push_back(other);
        fused.outputs = add.outputs;
        fused.activation = add.activation;
        graph_.RemoveNode(add_id);
        graph_.RemoveNode(conv_id);
        EDGEMOND_RETURN_IF_ERROR(graph_.AddNode(std::move(fused)).status());
        ++stats_.fused_residuals;
        break;
      }
    }
    return Status::Ok();
  }

  // Mul(X, S) -> NhwcConv, S one factor per channel of X (a squeeze-and-excitation block's
  // gate), becomes one NhwcConv with input S, which scales its packed weights by S per run
  // instead of the Mul scaling X: where that is shorter. Per input channel the weights are taps
  // x padded output channels floats, X has its pixels; a weight scaled costs about twice a
  // pixel's Mul (EfficientNet-B0 at 14x14, alone: a 672->112 projection took 0.030 ms longer
  // with the gate, its Mul of 196 x 672 had taken 0.029 ms), so the weights must be at most
  // half the pixels: EfficientNet-B0's blocks at 112x112 to 28x28 and some at 14x14.
  Status FuseChannelScales() {
    const std::vector<int> uses = graph_.UseCounts();
    std::vector<NodeId> consumer_of(static_cast<std::size_t>(graph_.num_values()), kNoNode);
    for (const NodeId id : graph_.LiveNodes()) {
      for (const ValueId v : graph_.node(id).inputs) {
        if (v != kNoValue) consumer_of[static_cast<std::size_t>(v)] = id;
      }
    }
    for (const NodeId mul_id : graph_.LiveNodes()) {
      const Node mul = graph_.node(mul_id);
      if (mul.removed || mul.op_type != "Mul" || !IsDefaultDomain(mul) || mul.inputs.size() != 2 ||
          mul.outputs.size() != 1 || mul.activation.active() || !IsFloat4d(mul.outputs[0])) {
        continue;
      }
      const ValueId product = mul.outputs[0];
      if (uses[static_cast<std::size_t>(product)] != 1 || graph_outputs_.count(product) > 0) {
        continue;
      }
      const Shape& y = Info(product).shape;
      const std::int64_t channels = y.dim(3);
      const Shape gate{1, 1, 1, channels};
      int x_side = -1;
      for (int side = 0; side < 2; ++side) {
        const ValueId x = mul.inputs[static_cast<std::size_t>(side)];
        const ValueId s = mul.inputs[static_cast<std::size_t>(1 - side)];
        if (x != kNoValue && s != kNoValue && IsFloat4d(x) && IsFloat4d(s) && Info(x).shape == y &&
            Info(s).shape == gate) {
          x_side = side;
        }
      }
      const NodeId conv_id = consumer_of[static_cast<std::size_t>(product)];
      if (x_side < 0 || channels < 2 || conv_id == kNoNode) continue;
      const Node& conv = graph_.node(conv_id);
      const Attribute* group = conv.FindAttribute("group");
      const Attribute* planar = conv.FindAttribute("nchw_input");
      if (conv.op_type != "NhwcConv" || conv.domain != kDomain || conv.inputs.size() > 4 ||
          conv.inputs[0] != product || (group != nullptr && group->i != 1) ||
          (planar != nullptr && planar->i != 0)) {
        continue;
      }
      const std::shared_ptr<const Tensor>& w = graph_.value(conv.inputs[1]).constant;
      if (w == nullptr || w->shape().rank() != 4) continue;
      const std::int64_t taps = w->shape().dim(2) * w->shape().dim(3);
      if (2 * taps * cpu::PaddedChannels(w->shape().dim(0)) > y.dim(0) * y.dim(1) * y.dim(2)) {
        continue;
      }
      Node fused = conv;
      fused.inputs[0] = mul.inputs[static_cast<std::size_t>(x_side)];
      fused.inputs.resize(4, kNoValue);
      fused.inputs.push_back(mul.inputs[static_cast<std::size_t>(1 - x_side)]);
      graph_.RemoveNode(mul_id);
      graph_.RemoveNode(conv_id);
      EDGEMOND_RETURN_IF_ERROR(graph_.AddNode(std::move(fused)).status());
      ++stats_.fused_channel_scales;
    }
    return Status::Ok();
  }

  // An NhwcConcat input produced by an NhwcConv for the Concat alone (group 1, no residual
  // input, not a graph output) is written by the convolution straight into the Concat's output,
  // with the output's pixel stride: the convolution gets y_pixel_stride, the input in_place.
  void ConcatInPlace() {
    const std::vector<int> uses = graph_.UseCounts();
    const std::vector<NodeId> producer_of = ProducerOf();
    for (const NodeId concat_id : graph_.LiveNodes()) {
      if (graph_.node(concat_id).op_type != "NhwcConcat" ||
          graph_.node(concat_id).domain != kDomain) {
        continue;
      }
      const std::vector<ValueId> inputs = graph_.node(concat_id).inputs;
      const std::int64_t channels = Info(graph_.node(concat_id).outputs[0]).shape.dim(3);
      std::vector<std::int64_t> in_place(inputs.size(), 0);
      for (std::size_t i = 0; i < inputs.size(); ++i) {
        const ValueId v = inputs[i];
        const NodeId conv_id = producer_of[static_cast<std::size_t>(v)];
        if (conv_id == kNoNode || uses[static_cast<std::size_t>(v)] != 1 ||
            graph_outputs_.count(v) > 0) {
          continue;
        }
        Node& conv = graph_.node(conv_id);
        const Attribute* group = conv.FindAttribute("group");
        if (conv.op_type != "NhwcConv" || conv.domain != kDomain ||
            (group != nullptr && group->i != 1) ||
            (conv.inputs.size() > 3 && conv.inputs[3] != kNoValue) ||
            conv.FindAttribute("y_pixel_stride") != nullptr) {
          continue;
        }
        conv.attributes.push_back(IntAttribute("y_pixel_stride", channels));
        in_place[i] = 1;
        ++stats_.concat_inputs_in_place;
      }
      for (Attribute& attribute : graph_.node(concat_id).attributes) {
        if (attribute.name == "in_place") attribute.ints = in_place;
      }
    }
  }

  Graph& graph_;
  const KernelRegistry& registry_;
  LayoutStats& stats_;
  std::vector<ValueId> twin_;  // NHWC twin of an original 4-D value, or kNoValue.
  std::vector<bool> plain_;    // Whether the original (plain) value is produced.
  std::vector<int> uses_;
  std::set<ValueId> graph_outputs_;
};

}  // namespace

Status ConvertToNhwc(Graph& graph, const KernelRegistry& registry, LayoutStats* stats) {
  LayoutStats local;
  NhwcRewriter rewriter(graph, registry, stats != nullptr ? *stats : local);
  return rewriter.Run();
}

}  // namespace edgemond::engine
