#include "engine/graph.h"

#include <algorithm>
#include <functional>
#include <queue>

namespace edgemond::engine {

std::string Dim::ToString() const {
  if (known()) return std::to_string(value);
  return symbol.empty() ? std::string("?") : symbol;
}

std::string DeclaredType::ToString() const {
  std::string out(DataTypeName(dtype));
  if (!has_shape) return out + "[unknown rank]";
  out.push_back('[');
  for (std::size_t i = 0; i < dims.size(); ++i) {
    if (i > 0) out.push_back('x');
    out += dims[i].ToString();
  }
  out.push_back(']');
  return out;
}

std::string_view Attribute::TypeName(Type type) {
  switch (type) {
    case Type::kFloat:
      return "float";
    case Type::kInt:
      return "int";
    case Type::kString:
      return "string";
    case Type::kTensor:
      return "tensor";
    case Type::kFloats:
      return "floats";
    case Type::kInts:
      return "ints";
    case Type::kStrings:
      return "strings";
    case Type::kOther:
      return "other";
  }
  return "other";
}

const Attribute* Node::FindAttribute(std::string_view attribute_name) const {
  for (const Attribute& attribute : attributes) {
    if (attribute.name == attribute_name) return &attribute;
  }
  return nullptr;
}

std::string Node::Label() const {
  if (!activation.active()) return op_type;
  return op_type + "+" + std::string(ActivationKindName(activation.kind));
}

Result<ValueId> Graph::AddValue(std::string name) {
  if (!name.empty() && by_name_.count(name) > 0) {
    return Status::InvalidArgument("value '" + name + "' is defined twice");
  }
  const auto id = static_cast<ValueId>(values_.size());
  if (!name.empty()) by_name_.emplace(name, id);
  values_.push_back(Value{});
  values_.back().name = std::move(name);
  return id;
}

ValueId Graph::FindValue(std::string_view name) const {
  const auto it = by_name_.find(std::string(name));
  return it == by_name_.end() ? kNoValue : it->second;
}

ValueId Graph::FindOrAddValue(std::string_view name) {
  const ValueId existing = FindValue(name);
  if (existing != kNoValue) return existing;
  return *AddValue(std::string(name));  // Cannot fail: the name is new.
}

Result<NodeId> Graph::AddNode(Node node) {
  const auto id = static_cast<NodeId>(nodes_.size());
  for (const ValueId output : node.outputs) {
    if (output == kNoValue) continue;
    const Value& v = value(output);
    if (v.producer != kNoNode || v.constant != nullptr || v.is_graph_input) {
      return Status::InvalidArgument("value '" + v.name + "' is produced more than once");
    }
  }
  for (const ValueId output : node.outputs) {
    if (output != kNoValue) value(output).producer = id;
  }
  nodes_.push_back(std::move(node));
  return id;
}

void Graph::RemoveNode(NodeId id) {
  Node& n = node(id);
  for (const ValueId output : n.outputs) {
    if (output != kNoValue && value(output).producer == id) value(output).producer = kNoNode;
  }
  n.removed = true;
}

Status Graph::SetConstant(ValueId id, std::shared_ptr<const Tensor> tensor) {
  Value& v = value(id);
  if (v.producer != kNoNode || v.is_graph_input) {
    return Status::InvalidArgument("value '" + v.name + "' is both a constant and computed");
  }
  v.info = tensor->info();
  v.constant = std::move(tensor);
  return Status::Ok();
}

Status Graph::AddInput(ValueId id) {
  Value& v = value(id);
  if (v.producer != kNoNode || v.constant != nullptr || v.is_graph_input) {
    return Status::InvalidArgument("graph input '" + v.name + "' is also produced elsewhere");
  }
  v.is_graph_input = true;
  inputs_.push_back(id);
  return Status::Ok();
}

Status Graph::FreezeInput(ValueId id, std::shared_ptr<const Tensor> tensor) {
  Value& v = value(id);
  if (!v.is_graph_input) return Status::InvalidArgument("'" + v.name + "' is not a graph input");
  v.is_graph_input = false;
  inputs_.erase(std::find(inputs_.begin(), inputs_.end(), id));
  return SetConstant(id, std::move(tensor));
}

void Graph::ReplaceUses(ValueId from, ValueId to) {
  for (Node& n : nodes_) {
    if (n.removed) continue;
    for (ValueId& input : n.inputs) {
      if (input == from) input = to;
    }
  }
  for (GraphOutput& output : outputs_) {
    if (output.value == from) output.value = to;
  }
}

Status Graph::SetNodeOutput(NodeId id, int index, ValueId value_id) {
  Node& n = node(id);
  Value& v = value(value_id);
  if (v.producer != kNoNode || v.constant != nullptr || v.is_graph_input) {
    return Status::InvalidArgument("value '" + v.name + "' is produced more than once");
  }
  if (index < 0 || static_cast<std::size_t>(index) >= n.outputs.size()) {
    return Status::InvalidArgument(Describe(id) + " has no output " + std::to_string(index));
  }
  ValueId& output = n.outputs[static_cast<std::size_t>(index)];
  if (output != kNoValue && value(output).producer == id) value(output).producer = kNoNode;
  output = value_id;
  v.producer = id;
  return Status::Ok();
}

std::vector<NodeId> Graph::LiveNodes() const {
  std::vector<NodeId> live;
  live.reserve(nodes_.size());
  for (NodeId id = 0; id < num_nodes(); ++id) {
    if (!node(id).removed) live.push_back(id);
  }
  return live;
}

std::vector<int> Graph::UseCounts() const {
  std::vector<int> counts(values_.size(), 0);
  for (const Node& n : nodes_) {
    if (n.removed) continue;
    for (const ValueId input : n.inputs) {
      if (input != kNoValue) ++counts[static_cast<std::size_t>(input)];
    }
  }
  return counts;
}

std::string Graph::Describe(NodeId id) const {
  const Node& n = node(id);
  const std::string op = n.Label();
  if (!n.name.empty()) return "node '" + n.name + "' (" + op + ")";
  for (const ValueId output : n.outputs) {
    if (output != kNoValue) return "node producing '" + value(output).name + "' (" + op + ")";
  }
  return "node #" + std::to_string(id) + " (" + op + ")";
}

Status Graph::Validate() const {
  for (NodeId id = 0; id < num_nodes(); ++id) {
    const Node& n = node(id);
    if (n.removed) continue;
    for (const ValueId input : n.inputs) {
      if (input == kNoValue) continue;
      const Value& v = value(input);
      const bool defined = v.is_graph_input || v.constant != nullptr ||
                           (v.producer != kNoNode && !node(v.producer).removed);
      if (!defined) {
        return Status::InvalidArgument(Describe(id) + " input '" + v.name +
                                       "' is not produced by any node, initializer or graph "
                                       "input");
      }
    }
  }
  for (const GraphOutput& output : outputs_) {
    if (output.value == kNoValue) {
      return Status::InvalidArgument("graph output '" + output.name + "' has no value");
    }
    const Value& v = value(output.value);
    const bool defined = v.is_graph_input || v.constant != nullptr ||
                         (v.producer != kNoNode && !node(v.producer).removed);
    if (!defined) {
      return Status::InvalidArgument("graph output '" + output.name +
                                     "' is not produced by any node, initializer or input");
    }
  }
  return Status::Ok();
}

Result<std::vector<NodeId>> Graph::TopologicalOrder() const {
  // Kahn's algorithm; a min-heap on NodeId keeps the file's order wherever the data allows it,
  // which makes plans, profiles and error messages reproducible.
  std::vector<int> pending(nodes_.size(), 0);
  std::vector<std::vector<NodeId>> consumers(values_.size());
  std::priority_queue<NodeId, std::vector<NodeId>, std::greater<>> ready;
  std::size_t live = 0;
  for (NodeId id = 0; id < num_nodes(); ++id) {
    const Node& n = node(id);
    if (n.removed) continue;
    ++live;
    for (const ValueId input : n.inputs) {
      if (input == kNoValue) continue;
      const NodeId producer = value(input).producer;
      if (producer != kNoNode && !node(producer).removed) {
        ++pending[static_cast<std::size_t>(id)];
        consumers[static_cast<std::size_t>(input)].push_back(id);
      }
    }
    if (pending[static_cast<std::size_t>(id)] == 0) ready.push(id);
  }
  std::vector<NodeId> order;
  order.reserve(live);
  while (!ready.empty()) {
    const NodeId id = ready.top();
    ready.pop();
    order.push_back(id);
    for (const ValueId output : node(id).outputs) {
      if (output == kNoValue) continue;
      for (const NodeId consumer : consumers[static_cast<std::size_t>(output)]) {
        if (--pending[static_cast<std::size_t>(consumer)] == 0) ready.push(consumer);
      }
    }
  }
  if (order.size() == live) return order;
  // Some node still waits on a producer. Walk from it up through waiting producers: every such
  // node has one, so the walk must revisit a node, and that node lies on a cycle.
  NodeId at = kNoNode;
  for (NodeId id = 0; id < num_nodes() && at == kNoNode; ++id) {
    if (!node(id).removed && pending[static_cast<std::size_t>(id)] > 0) at = id;
  }
  std::vector<bool> seen(nodes_.size(), false);
  while (!seen[static_cast<std::size_t>(at)]) {
    seen[static_cast<std::size_t>(at)] = true;
    for (const ValueId input : node(at).inputs) {
      if (input == kNoValue) continue;
      const NodeId producer = value(input).producer;
      if (producer != kNoNode && !node(producer).removed &&
          pending[static_cast<std::size_t>(producer)] > 0) {
        at = producer;
        break;
      }
    }
  }
  return Status::InvalidArgument("the graph has a cycle through " + Describe(at));
}

}  // namespace edgemond::engine
