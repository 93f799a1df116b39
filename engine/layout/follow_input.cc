// Ops that follow their input into NHWC: element-wise ops, channel Concat, Slice, ReduceMean,
// Flatten and the channel shuffle.

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "engine/kernels/conv.h"
#include "engine/kernels/kernel_util.h"
#include "engine/kernels/max_pool.h"
#include "engine/kernels/nhwc_conv.h"
#include "engine/layout/nhwc_rewriter.h"
#include "engine/passes.h"

namespace edgemond::engine::layout {

// Unary and broadcasting binary element-wise ops.
Result<bool> NhwcRewriter::TryElementwise(NodeId id, const Node& node) {
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

Result<bool> NhwcRewriter::TryConcat(NodeId id, const Node& node) {
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

Result<bool> NhwcRewriter::TrySlice(NodeId id, const Node& node) {
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

Result<bool> NhwcRewriter::TryReduceMean(NodeId id, const Node& node) {
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
    EDGEMOND_ASSIGN_OR_RETURN(out.inputs[1],
                              Int64Constant(graph_.value(node.inputs[1]).name + ":nhwc", remapped));
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

Result<bool> NhwcRewriter::TryFlatten(NodeId id, const Node& node) {
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

Result<bool> NhwcRewriter::TryChannelShuffle(NodeId id, const Node& node) {
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

// Remaps constant axes of a 4-D tensor to their NHWC positions.
Result<std::vector<std::int64_t>> NhwcRewriter::RemapAxes(std::span<const std::int64_t> axes) {
  std::vector<std::int64_t> out;
  for (const std::int64_t axis : axes) {
    EDGEMOND_ASSIGN_OR_RETURN(const int a, NormalizeAxis(axis, 4));
    out.push_back(kNhwcPosition[a]);
  }
  return out;
}

// The single live consumer of `v`, or kNoNode.
NodeId NhwcRewriter::OnlyConsumer(ValueId v) const {
  if (uses_[static_cast<std::size_t>(v)] != 1 || graph_outputs_.count(v) > 0) return kNoNode;
  for (const NodeId id : graph_.LiveNodes()) {
    for (const ValueId input : graph_.node(id).inputs) {
      if (input == v) return id;
    }
  }
  return kNoNode;
}

}  // namespace edgemond::engine::layout
