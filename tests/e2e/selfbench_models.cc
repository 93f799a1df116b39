#include "tests/e2e/selfbench_models.h"

#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <filesystem>
#include <fstream>
#include <vector>

namespace edgemond::testing {
namespace {

// Deterministic weights and inputs in [-0.5, 0.5), exact in float.
float W1(int i, int j) { return static_cast<float>((i * 37 + j * 11) % 64 - 32) / 64.0f; }
float W2(int i, int j) { return static_cast<float>((i * 13 + j * 29) % 64 - 32) / 64.0f; }
float X(int i) { return static_cast<float>((i * 7) % 32 - 16) / 32.0f; }

void AddInitializer(onnx::GraphProto* graph, const std::string& name, int rows, int cols,
                    float (*value)(int, int)) {
  onnx::TensorProto* tensor = graph->add_initializer();
  tensor->set_name(name);
  tensor->set_data_type(onnx::TensorProto::FLOAT);
  tensor->add_dims(rows);
  tensor->add_dims(cols);
  for (int i = 0; i < rows; ++i) {
    for (int j = 0; j < cols; ++j) tensor->add_float_data(value(i, j));
  }
}

void SetType(onnx::ValueInfoProto* info, const std::string& name, int cols) {
  info->set_name(name);
  auto* tensor = info->mutable_type()->mutable_tensor_type();
  tensor->set_elem_type(onnx::TensorProto::FLOAT);
  tensor->mutable_shape()->add_dim()->set_dim_param("N");
  tensor->mutable_shape()->add_dim()->set_dim_value(cols);
}

void AddNode(onnx::GraphProto* graph, const std::string& op, std::vector<std::string> inputs,
             const std::string& output) {
  onnx::NodeProto* node = graph->add_node();
  node->set_op_type(op);
  node->set_name(output);
  for (const std::string& input : inputs) node->add_input(input);
  node->add_output(output);
}

std::string Serialize() {
  onnx::ModelProto model;
  model.set_ir_version(8);
  model.set_producer_name("edgemond tests");
  model.add_opset_import()->set_version(13);
  onnx::GraphProto* graph = model.mutable_graph();
  graph->set_name("mlp");
  SetType(graph->add_input(), "x", kMlpInputs);
  SetType(graph->add_output(), "y", kMlpOutputs);
  AddInitializer(graph, "w1", kMlpInputs, kMlpHidden, &W1);
  AddInitializer(graph, "w2", kMlpHidden, kMlpOutputs, &W2);
  AddNode(graph, "MatMul", {"x", "w1"}, "h");
  AddNode(graph, "Relu", {"h"}, "r");
  AddNode(graph, "MatMul", {"r", "w2"}, "y");
  return model.SerializeAsString();
}

void WriteTensor(const std::string& path, const std::string& name, int cols,
                 const std::vector<float>& values) {
  onnx::TensorProto tensor;
  tensor.set_name(name);
  tensor.set_data_type(onnx::TensorProto::FLOAT);
  tensor.add_dims(1);
  tensor.add_dims(cols);
  for (const float v : values) tensor.add_float_data(v);
  std::ofstream(path, std::ios::binary) << tensor.SerializeAsString();
}

}  // namespace

void WriteMlp(const std::string& path) { std::ofstream(path, std::ios::binary) << Serialize(); }

void WriteMlpGoldenData(const std::string& dir, bool wrong) {
  std::filesystem::create_directories(dir);
  std::vector<float> x(kMlpInputs);
  for (int i = 0; i < kMlpInputs; ++i) x[i] = X(i);
  std::vector<double> hidden(kMlpHidden, 0.0);
  for (int j = 0; j < kMlpHidden; ++j) {
    for (int i = 0; i < kMlpInputs; ++i) hidden[j] += static_cast<double>(x[i]) * W1(i, j);
    hidden[j] = std::max(hidden[j], 0.0);
  }
  std::vector<float> y(kMlpOutputs);
  for (int k = 0; k < kMlpOutputs; ++k) {
    double sum = 0;
    for (int j = 0; j < kMlpHidden; ++j) sum += hidden[j] * W2(j, k);
    y[k] = static_cast<float>(sum);
  }
  if (wrong) y[3] += 1.0f;
  WriteTensor(dir + "/input_0.pb", "x", kMlpInputs, x);
  WriteTensor(dir + "/output_0.pb", "y", kMlpOutputs, y);
}

void WriteTruncatedMlp(const std::string& path, std::size_t bytes) {
  const std::string model = Serialize();
  ASSERT_LT(bytes, model.size());
  std::ofstream(path, std::ios::binary) << model.substr(0, bytes);
}

}  // namespace edgemond::testing
