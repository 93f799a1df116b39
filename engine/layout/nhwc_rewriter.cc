// The rewriter's walk over the graph, and the twins and reorders between the two layouts.

#include "engine/layout/nhwc_rewriter.h"

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "engine/kernels/conv.h"
#include "engine/kernels/kernel_util.h"
#include "engine/kernels/max_pool.h"
#include "engine/kernels/nhwc_conv.h"
#include "engine/passes.h"

namespace edgemond::engine::layout {

Status NhwcRewriter::Run() {
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

ValueId NhwcRewriter::NewValue(const std::string& base, TensorInfo info) {
  std::string name = base;
  for (int i = 2; graph_.FindValue(name) != kNoValue; ++i) name = base + "." + std::to_string(i);
  const ValueId id = graph_.FindOrAddValue(name);
  graph_.value(id).info = std::move(info);
  return id;
}

Result<NodeId> NhwcRewriter::AddNode(std::string name, std::string domain, std::string op,
                                     std::vector<ValueId> inputs, std::vector<ValueId> outputs,
                                     std::vector<Attribute> attributes, FusedActivation activation,
                                     int opset) {
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

Result<ValueId> NhwcRewriter::Int64Constant(const std::string& base,
                                            std::vector<std::int64_t> values) {
  const auto count = static_cast<std::int64_t>(values.size());
  EDGEMOND_ASSIGN_OR_RETURN(Tensor tensor, Tensor::FromVector(Shape{count}, values));
  const ValueId id = NewValue(base, tensor.info());
  EDGEMOND_RETURN_IF_ERROR(
      graph_.SetConstant(id, std::make_shared<const Tensor>(std::move(tensor))));
  return id;
}

// The NHWC version of a 4-D float value: its twin, a permuted copy of a constant, or a new
// Transpose of a plain value.
Result<ValueId> NhwcRewriter::Nhwc(ValueId v) {
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
Status NhwcRewriter::RequirePlain(ValueId v) {
  if (!OnlyNhwc(v)) return Status::Ok();
  const ValueId twin = twin_[static_cast<std::size_t>(v)];
  const Shape& s = Info(v).shape;
  const std::string name = graph_.value(v).name + ":nchw";
  if (s.dim(2) * s.dim(3) == 1 || s.dim(1) == 1) {
    // The two orders are the same bytes.
    EDGEMOND_ASSIGN_OR_RETURN(const ValueId shape, Int64Constant(name + ":shape", s.vector()));
    EDGEMOND_RETURN_IF_ERROR(AddNode(name, "", "Reshape", {twin, shape}, {v}, {}, {}, 13).status());
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
Status NhwcRewriter::Replace(NodeId id, Node node) {
  graph_.RemoveNode(id);
  EDGEMOND_RETURN_IF_ERROR(graph_.AddNode(std::move(node)).status());
  ++stats_.converted_nodes;
  return Status::Ok();
}

// A twin for output `v` (not yet produced); marks `v` as living in NHWC only.
ValueId NhwcRewriter::OutputTwin(ValueId v) {
  const TensorInfo& info = Info(v);
  const ValueId twin = NewValue(graph_.value(v).name + ":nhwc",
                                TensorInfo{info.dtype, ToNhwc(info.shape), Layout::kPlain});
  twin_.resize(std::max(twin_.size(), static_cast<std::size_t>(graph_.num_values())), kNoValue);
  plain_.resize(std::max(plain_.size(), static_cast<std::size_t>(graph_.num_values())), true);
  twin_[static_cast<std::size_t>(v)] = twin;
  plain_[static_cast<std::size_t>(v)] = false;
  return twin;
}

Status NhwcRewriter::Visit(NodeId id) {
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

}  // namespace edgemond::engine::layout
