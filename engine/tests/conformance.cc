#include "engine/tests/conformance.h"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>

#include "engine/compare.h"
#include "engine/onnx/onnx_loader.h"
#include "engine/session.h"

namespace edgemond::engine {
namespace {

namespace fs = std::filesystem;

using Tensors = std::vector<std::pair<std::string, Tensor>>;

Result<Tensors> ReadTensors(const fs::path& dir, const std::string& prefix) {
  Tensors tensors;
  for (int k = 0;; ++k) {
    const fs::path path = dir / (prefix + std::to_string(k) + ".pb");
    std::error_code error;
    if (!fs::exists(path, error)) break;
    std::string name;
    EDGEMOND_ASSIGN_OR_RETURN(Tensor tensor, ReadOnnxTensorFile(path.string(), &name));
    tensors.emplace_back(std::move(name), std::move(tensor));
  }
  return tensors;
}

bool IsFloatingPoint(DataType type) {
  return type == DataType::kFloat32 || type == DataType::kFloat64 || type == DataType::kFloat16 ||
         type == DataType::kBFloat16;
}

ConformanceResult Fail(std::string op, std::string reason) {
  return {ConformanceResult::Outcome::kFail, std::move(op), std::move(reason)};
}

ConformanceResult Skip(std::string op, const Status& status) {
  return {ConformanceResult::Outcome::kSkip, std::move(op), std::string(status.message())};
}

}  // namespace

std::vector<std::string> ListConformanceCases(const std::string& root) {
  std::vector<std::string> cases;
  std::error_code error;
  for (const fs::directory_entry& entry : fs::directory_iterator(root, error)) {
    if (fs::exists(entry.path() / "model.onnx", error)) cases.push_back(entry.path().string());
  }
  std::sort(cases.begin(), cases.end());
  return cases;
}

namespace {

// Whether every graph input and output is a float32, int64 or bool tensor, at least one of
// them float32: what a float32 model's own tensors and its shape and index tensors are.
bool IsFloat32Case(const onnx::GraphProto& graph) {
  bool any_float32 = false;
  for (const auto* values : {&graph.input(), &graph.output()}) {
    for (const onnx::ValueInfoProto& value : *values) {
      if (!value.type().has_tensor_type()) return false;
      const int type = value.type().tensor_type().elem_type();
      if (type == onnx::TensorProto::FLOAT) {
        any_float32 = true;
      } else if (type != onnx::TensorProto::INT64 && type != onnx::TensorProto::BOOL) {
        return false;
      }
    }
  }
  return any_float32;
}

// The case once its model is known to import: every data set, loaded, run and compared.
ConformanceResult RunDataSets(const fs::path& dir, const std::string& model_path,
                              const std::string& op);

}  // namespace

ConformanceResult RunConformanceCase(const std::string& case_dir) {
  const fs::path dir(case_dir);
  const std::string model_path = (dir / "model.onnx").string();

  // The operator under test, read from the file itself so that it is known even when the
  // engine refuses the model.
  std::string op = "(multi-node)";
  std::ifstream file(model_path, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(file)), {});
  onnx::ModelProto proto;
  if (!proto.ParseFromString(bytes)) return Fail(op, "model.onnx does not parse");
  if (proto.graph().node_size() == 1) op = proto.graph().node(0).op_type();
  const bool float32 = IsFloat32Case(proto.graph());
  // Models the engine refuses outright (value types it does not have) are skipped before
  // their data, which may be in those types, is read.
  const Result<Graph> graph = ImportOnnx(bytes, dir.string(), nullptr);
  ConformanceResult result;
  if (graph.ok()) {
    result = RunDataSets(dir, model_path, op);
  } else if (graph.status().IsUnsupported()) {
    result = Skip(op, graph.status());
  } else {
    result = Fail(op, "load: " + graph.status().ToString());
  }
  result.float32 = float32;
  return result;
}

namespace {

ConformanceResult RunDataSets(const fs::path& dir, const std::string& model_path,
                              const std::string& op) {
  std::vector<fs::path> data_sets;
  std::error_code error;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir, error)) {
    if (entry.path().filename().string().rfind("test_data_set_", 0) == 0) {
      data_sets.push_back(entry.path());
    }
  }
  std::sort(data_sets.begin(), data_sets.end());
  if (data_sets.empty()) return Fail(op, "no test_data_set_N directory");

  const Tolerance tolerance{kConformanceRelativeTolerance, kConformanceAbsoluteTolerance,
                            /*floor_one=*/false, /*check_top1=*/false};
  for (const fs::path& data_set : data_sets) {
    Result<Tensors> inputs = ReadTensors(data_set, "input_");
    if (!inputs.ok()) {
      if (inputs.status().IsUnsupported()) return Skip(op, inputs.status());
      return Fail(op, inputs.status().ToString());
    }
    Result<Tensors> outputs = ReadTensors(data_set, "output_");
    if (!outputs.ok()) {
      if (outputs.status().IsUnsupported()) return Skip(op, outputs.status());
      return Fail(op, outputs.status().ToString());
    }

    // Integer and boolean inputs are bound at load; floating-point ones are fed at run time,
    // unless the engine needs them at load too (Resize's scales), when every input is bound.
    const auto options_for = [&](bool all_constant) -> Result<ModelOptions> {
      ModelOptions options;
      for (const auto& [name, tensor] : *inputs) {
        if (name.empty()) return Status::InvalidArgument("an input tensor file has no name");
        if (IsFloatingPoint(tensor.dtype()) && !all_constant) {
          options.input_shapes[name] = tensor.shape().vector();
        } else {
          EDGEMOND_ASSIGN_OR_RETURN(Tensor copy, Tensor::CopyOf(tensor.view()));
          options.constant_inputs[name] = std::make_shared<const Tensor>(std::move(copy));
        }
      }
      return options;
    };
    Result<ModelOptions> options = options_for(/*all_constant=*/false);
    if (!options.ok()) return Fail(op, options.status().ToString());
    Result<std::shared_ptr<const Model>> model = LoadOnnxModel(model_path, *options);
    if (!model.ok() && model.status().IsUnsupported() &&
        model.status().message().find("computed at run time") != std::string_view::npos) {
      options = options_for(/*all_constant=*/true);
      if (!options.ok()) return Fail(op, options.status().ToString());
      model = LoadOnnxModel(model_path, *options);
    }
    if (!model.ok()) {
      if (model.status().IsUnsupported()) return Skip(op, model.status());
      return Fail(op, "load: " + model.status().ToString());
    }
    Result<std::unique_ptr<Session>> session = Session::Create(*model);
    if (!session.ok()) return Fail(op, session.status().ToString());
    for (const auto& [name, tensor] : *inputs) {
      if (options->constant_inputs.count(name) > 0) continue;
      const Status set = (*session)->SetInput(name, tensor.view());
      if (!set.ok()) return Fail(op, set.ToString());
    }
    const Status run = (*session)->Run();
    if (!run.ok()) return Fail(op, "run: " + run.ToString());
    const std::vector<IoInfo>& model_outputs = (*model)->outputs();
    if (outputs->size() != model_outputs.size()) {
      return Fail(op, std::to_string(outputs->size()) + " expected outputs for " +
                          std::to_string(model_outputs.size()) + " model outputs");
    }
    for (std::size_t k = 0; k < outputs->size(); ++k) {
      const std::string& name = model_outputs[k].name;
      const Result<ConstTensorView> actual = (*session)->Output(name);
      if (!actual.ok()) return Fail(op, actual.status().ToString());
      const Comparison comparison = CompareTensors(*actual, (*outputs)[k].second.view(), tolerance);
      if (!comparison.ok()) {
        return Fail(op, data_set.filename().string() + " output '" + name +
                            "': " + std::to_string(comparison.mismatches) + " of " +
                            std::to_string(comparison.elements) + " elements differ; " +
                            comparison.detail);
      }
    }
  }
  return {ConformanceResult::Outcome::kPass, op, ""};
}

}  // namespace
}  // namespace edgemond::engine
