// The patterns fused once every node has its layout: residual adds and channel scales into
// convolutions, and convolutions writing straight into a Concat's output.

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

// Conv -> Add(conv, other) becomes one NhwcConv with residual input `other`.
Status NhwcRewriter::FuseResiduals() {
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
Status NhwcRewriter::FuseChannelScales() {
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
void NhwcRewriter::ConcatInPlace() {
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

// The live node producing each value, or kNoNode.
std::vector<NodeId> NhwcRewriter::ProducerOf() const {
  std::vector<NodeId> producer_of(static_cast<std::size_t>(graph_.num_values()), kNoNode);
  for (const NodeId id : graph_.LiveNodes()) {
    for (const ValueId v : graph_.node(id).outputs) {
      if (v != kNoValue) producer_of[static_cast<std::size_t>(v)] = id;
    }
  }
  return producer_of;
}

}  // namespace edgemond::engine::layout
