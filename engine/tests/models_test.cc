// Real networks against PyTorch: the models that tests/models/export_models.py exported when
// the test run started (CTest fixture engine_models, into $EDGEMOND_MODELS_DIR) run through the
// engine and must match PyTorch's outputs: |a - b| <= 1e-4 * max(1, |ref|) for every element,
// and the same top-1 class. EfficientNet-B0 brings squeeze-and-excitation blocks: at 112x112 the
// gates of its first stages join their projections (NhwcConv input S) and the later ones keep
// their Mul; at opset 17, a batch of 2 has a gate per image, and every Mul stays.

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "engine/compare.h"
#include "engine/onnx/onnx_loader.h"
#include "engine/session.h"

namespace edgemond::engine {
namespace {

std::string ModelsDir() {
  const char* dir = std::getenv("EDGEMOND_MODELS_DIR");
  return dir != nullptr ? dir : "";
}

class ModelTest : public ::testing::TestWithParam<std::string> {};

TEST_P(ModelTest, MatchesPyTorch) {
  const std::filesystem::path dir = std::filesystem::path(ModelsDir()) / GetParam();
  const std::filesystem::path data = dir / "test_data_set_0";
  ASSERT_FALSE(ModelsDir().empty()) << "EDGEMOND_MODELS_DIR is not set";
  ASSERT_TRUE(std::filesystem::exists(dir / "model.onnx"))
      << dir << " was not exported (the engine_models_export tests set it up)";

  std::string input_name;
  Result<Tensor> input = ReadOnnxTensorFile((data / "input_0.pb").string(), &input_name);
  ASSERT_TRUE(input.ok()) << input.status();
  Result<Tensor> expected = ReadOnnxTensorFile((data / "output_0.pb").string());
  ASSERT_TRUE(expected.ok()) << expected.status();

  ModelOptions options;
  options.input_shapes[input_name] = input->shape().vector();
  OnnxModelInfo info;
  Result<std::shared_ptr<const Model>> model =
      LoadOnnxModel((dir / "model.onnx").string(), options, &info);
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_TRUE(info.fully_checked);
  Result<std::unique_ptr<Session>> session = Session::Create(*model);
  ASSERT_TRUE(session.ok()) << session.status();
  Result<std::vector<Tensor>> outputs = (*session)->Run({{input_name, input->view()}});
  ASSERT_TRUE(outputs.ok()) << outputs.status();

  const Comparison comparison = CompareTensors((*outputs)[0].view(), expected->view(), Tolerance{});
  EXPECT_TRUE(comparison.ok()) << comparison.detail << " (" << comparison.mismatches
                               << " mismatches, max |error| " << comparison.max_abs_error << ")";
  RecordProperty("max_abs_error", std::to_string(comparison.max_abs_error));
}

INSTANTIATE_TEST_SUITE_P(TorchVision, ModelTest,
                         ::testing::Values("mobilenet_v2_opset13", "resnet18_opset13",
                                           "squeezenet1_1_opset13", "mlp_opset13",
                                           "efficientnet_b0_opset13", "mobilenet_v2_opset17",
                                           "resnet18_opset17", "squeezenet1_1_opset17",
                                           "mlp_opset17", "efficientnet_b0_opset17"),
                         [](const ::testing::TestParamInfo<std::string>& param) {
                           return param.param;
                         });

}  // namespace
}  // namespace edgemond::engine
