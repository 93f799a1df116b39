#include "engine/testing/op_tester.h"

#include <cstdlib>

#include "engine/session.h"

namespace edgemond::engine::testing {

OpTester::OpTester(std::string op_type, int opset, std::string domain)
    : op_type_(std::move(op_type)), domain_(std::move(domain)), opset_(opset) {}

OpTester& OpTester::Input(std::string name, Tensor value) {
  inputs_.push_back({std::move(name), std::make_shared<const Tensor>(std::move(value)), false});
  return *this;
}

OpTester& OpTester::Constant(std::string name, Tensor value) {
  inputs_.push_back({std::move(name), std::make_shared<const Tensor>(std::move(value)), true});
  return *this;
}

OpTester& OpTester::OmittedInput() {
  inputs_.push_back({"", nullptr, false});
  return *this;
}

OpTester& OpTester::Output(std::string name) {
  outputs_.push_back(std::move(name));
  return *this;
}

OpTester& OpTester::OmittedOutput() {
  outputs_.emplace_back();
  return *this;
}

OpTester& OpTester::Attr(Attribute attribute) {
  attributes_.push_back(std::move(attribute));
  return *this;
}

OpTester& OpTester::AttrInt(std::string name, std::int64_t value) {
  Attribute attribute;
  attribute.name = std::move(name);
  attribute.type = Attribute::Type::kInt;
  attribute.i = value;
  return Attr(std::move(attribute));
}

OpTester& OpTester::AttrInts(std::string name, std::vector<std::int64_t> values) {
  Attribute attribute;
  attribute.name = std::move(name);
  attribute.type = Attribute::Type::kInts;
  attribute.ints = std::move(values);
  return Attr(std::move(attribute));
}

OpTester& OpTester::AttrFloat(std::string name, float value) {
  Attribute attribute;
  attribute.name = std::move(name);
  attribute.type = Attribute::Type::kFloat;
  attribute.f = value;
  return Attr(std::move(attribute));
}

OpTester& OpTester::AttrFloats(std::string name, std::vector<float> values) {
  Attribute attribute;
  attribute.name = std::move(name);
  attribute.type = Attribute::Type::kFloats;
  attribute.floats = std::move(values);
  return Attr(std::move(attribute));
}

OpTester& OpTester::AttrTensor(std::string name, Tensor value) {
  Attribute attribute;
  attribute.name = std::move(name);
  attribute.type = Attribute::Type::kTensor;
  attribute.t = std::make_shared<const Tensor>(std::move(value));
  return Attr(std::move(attribute));
}

OpTester& OpTester::AttrString(std::string name, std::string value) {
  Attribute attribute;
  attribute.name = std::move(name);
  attribute.type = Attribute::Type::kString;
  attribute.s = std::move(value);
  return Attr(std::move(attribute));
}

OpTester& OpTester::Activation(FusedActivation activation) {
  activation_ = activation;
  return *this;
}

Result<std::shared_ptr<const Model>> OpTester::Build() const {
  Graph graph;
  Node node;
  node.name = "node";
  node.domain = domain_;
  node.op_type = op_type_;
  node.opset = opset_;
  node.attributes = attributes_;
  node.activation = activation_;
  for (const Operand& input : inputs_) {
    if (input.value == nullptr) {
      node.inputs.push_back(kNoValue);
      continue;
    }
    EDGEMOND_ASSIGN_OR_RETURN(const ValueId id, graph.AddValue(input.name));
    if (input.constant) {
      EDGEMOND_RETURN_IF_ERROR(graph.SetConstant(id, input.value));
    } else {
      DeclaredType declared;
      declared.dtype = input.value->dtype();
      declared.has_shape = true;
      for (const std::int64_t d : input.value->shape().dims()) declared.dims.push_back({d, ""});
      graph.value(id).declared = std::move(declared);
      EDGEMOND_RETURN_IF_ERROR(graph.AddInput(id));
    }
    node.inputs.push_back(id);
  }
  std::vector<ValueId> outputs;
  for (const std::string& output : outputs_) {
    if (output.empty()) {
      node.outputs.push_back(kNoValue);
      continue;
    }
    EDGEMOND_ASSIGN_OR_RETURN(const ValueId id, graph.AddValue(output));
    node.outputs.push_back(id);
    outputs.push_back(id);
  }
  EDGEMOND_RETURN_IF_ERROR(graph.AddNode(std::move(node)).status());
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    graph.AddOutput(graph.value(outputs[i]).name, outputs[i]);
  }
  ModelOptions options;
  options.optimize = optimize_;
  return Model::Build(std::move(graph), options);
}

Result<std::vector<Tensor>> OpTester::Run() const {
  EDGEMOND_ASSIGN_OR_RETURN(std::shared_ptr<const Model> model, Build());
  EDGEMOND_ASSIGN_OR_RETURN(std::unique_ptr<Session> session, Session::Create(model));
  std::vector<std::pair<std::string, ConstTensorView>> feeds;
  for (const Operand& input : inputs_) {
    if (input.value != nullptr && !input.constant)
      feeds.emplace_back(input.name, input.value->view());
  }
  return session->Run(feeds);
}

Tensor FloatTensor(Shape shape, std::vector<float> values) {
  Result<Tensor> tensor = Tensor::FromVector(std::move(shape), values);
  if (!tensor.ok()) std::abort();  // A malformed test.
  return std::move(tensor).value();
}

Tensor Int64Tensor(Shape shape, std::vector<std::int64_t> values) {
  Result<Tensor> tensor = Tensor::FromVector(std::move(shape), values);
  if (!tensor.ok()) std::abort();
  return std::move(tensor).value();
}

std::vector<float> FloatValues(const Tensor& tensor) {
  const std::span<const float> values = tensor.values<float>();
  return {values.begin(), values.end()};
}

Tensor IotaTensor(Shape shape) {
  std::vector<float> values(static_cast<std::size_t>(shape.num_elements()));
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i);
  return FloatTensor(std::move(shape), std::move(values));
}

}  // namespace edgemond::engine::testing
