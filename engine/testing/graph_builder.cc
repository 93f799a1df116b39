#include "engine/testing/graph_builder.h"

#include <memory>
#include <utility>

namespace edgemond::engine::testing {

GraphBuilder& GraphBuilder::Input(const std::string& name, DataType dtype, std::vector<Dim> dims) {
  const ValueId id = graph_.FindOrAddValue(name);
  graph_.value(id).declared = DeclaredType{dtype, true, std::move(dims)};
  Keep(graph_.AddInput(id));
  return *this;
}

GraphBuilder& GraphBuilder::Constant(const std::string& name, Tensor tensor) {
  Keep(graph_.SetConstant(graph_.FindOrAddValue(name),
                          std::make_shared<const Tensor>(std::move(tensor))));
  return *this;
}

GraphBuilder& GraphBuilder::Node(const std::string& op, const std::vector<std::string>& inputs,
                                 const std::vector<std::string>& outputs,
                                 std::vector<Attribute> attributes, int opset) {
  engine::Node node;
  node.name = op + std::to_string(graph_.num_nodes());
  node.op_type = op;
  node.opset = opset;
  node.attributes = std::move(attributes);
  for (const std::string& input : inputs) {
    node.inputs.push_back(input.empty() ? kNoValue : graph_.FindOrAddValue(input));
  }
  for (const std::string& output : outputs) {
    node.outputs.push_back(output.empty() ? kNoValue : graph_.FindOrAddValue(output));
  }
  Keep(graph_.AddNode(std::move(node)).status());
  return *this;
}

GraphBuilder& GraphBuilder::Output(const std::string& name) {
  graph_.AddOutput(name, graph_.FindValue(name));
  return *this;
}

Attribute IntAttribute(std::string name, std::int64_t value) {
  Attribute attribute;
  attribute.name = std::move(name);
  attribute.type = Attribute::Type::kInt;
  attribute.i = value;
  return attribute;
}

Attribute FloatAttribute(std::string name, float value) {
  Attribute attribute;
  attribute.name = std::move(name);
  attribute.type = Attribute::Type::kFloat;
  attribute.f = value;
  return attribute;
}

Attribute IntsAttribute(std::string name, std::vector<std::int64_t> values) {
  Attribute attribute;
  attribute.name = std::move(name);
  attribute.type = Attribute::Type::kInts;
  attribute.ints = std::move(values);
  return attribute;
}

}  // namespace edgemond::engine::testing
