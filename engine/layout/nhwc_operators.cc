// Nodes that become edgemond's NHWC operators: Conv, MaxPool, GlobalAveragePool and Gemm.

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

Result<bool> NhwcRewriter::TryConv(NodeId id, const Node& node) {
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

Result<bool> NhwcRewriter::TryMaxPool(NodeId id, const Node& node) {
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

Result<bool> NhwcRewriter::TryGlobalAveragePool(NodeId id, const Node& node) {
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

Result<bool> NhwcRewriter::TryGemm(NodeId id, const Node& node) {
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

}  // namespace edgemond::engine::layout
