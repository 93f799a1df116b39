#include "selfbench/model_spec.h"

#include <gtest/gtest.h>

namespace edgemond::selfbench {
namespace {

using Json = nlohmann::json;

ModelsOrError Parse(std::string_view text) {
  const Json json = Json::parse(text, nullptr, false, /*ignore_comments=*/true);
  EXPECT_FALSE(json.is_discarded()) << text;
  const JsonLocator locator(text);
  return ParseModelList(json.at("models"), "models.json", locator, "models");
}

std::vector<ModelSpec> ParseOk(std::string_view text) {
  auto parsed = Parse(text);
  if (auto* error = std::get_if<ConfigError>(&parsed)) {
    ADD_FAILURE() << error->ToString();
    return {};
  }
  return std::get<std::vector<ModelSpec>>(std::move(parsed));
}

ConfigError ParseError(std::string_view text) {
  auto parsed = Parse(text);
  if (auto* error = std::get_if<ConfigError>(&parsed)) return *error;
  ADD_FAILURE() << "parsed without error: " << text;
  return {};
}

TEST(ModelSpecTest, ANameAndAPathAreEnough) {
  const auto models = ParseOk(R"({"models": [{"name": "mlp", "path": "/opt/m/mlp.onnx"}]})");
  ASSERT_EQ(models.size(), 1u);
  const ModelSpec& spec = models[0];
  EXPECT_EQ(spec.name, "mlp");
  EXPECT_EQ(spec.path, "/opt/m/mlp.onnx");
  EXPECT_TRUE(spec.enabled);
  EXPECT_EQ(spec.interval_seconds, 3600u);
  EXPECT_TRUE(spec.only_when_idle);
  EXPECT_EQ(spec.threads, 1u);
  EXPECT_EQ(spec.runs, 0u);
  EXPECT_EQ(spec.duration_seconds, 10);
  EXPECT_EQ(spec.deadline_seconds, 300u);
  EXPECT_EQ(spec.source, "models.json:1");
}

TEST(ModelSpecTest, ParsesEveryKey) {
  const auto models = ParseOk(R"({
    "models": [
      {
        "name": "detector-v2.1",
        "path": "/opt/models/detector.onnx",
        "enabled": false,
        "interval_seconds": 600,
        "only_when_idle": false,
        "warmup_runs": 7,
        "runs": 200,
        "duration_seconds": 3.5,
        "threads": 2,
        "input_shapes": {"images": [1, 3, 320, 320], "scale": [1]},
        "golden_data": "/opt/models/detector/test_data_set_0",
        "tolerance": 0.001,
        "budget": {"p99_latency_ms": 40, "energy_per_inference_millijoules": 150.5},
        "regression_margin": {"latency_ratio": 0.1, "energy_ratio": 0.3, "memory_ratio": 0.5},
        "limits": {"memory_mb": 512, "cpu_seconds": 60, "deadline_seconds": 120}
      }
    ]})");
  ASSERT_EQ(models.size(), 1u);
  const ModelSpec& spec = models[0];
  EXPECT_FALSE(spec.enabled);
  EXPECT_EQ(spec.interval_seconds, 600u);
  EXPECT_FALSE(spec.only_when_idle);
  EXPECT_EQ(spec.warmup_runs, 7u);
  EXPECT_EQ(spec.runs, 200u);
  EXPECT_EQ(spec.duration_seconds, 3.5);
  EXPECT_EQ(spec.threads, 2u);
  ASSERT_EQ(spec.input_shapes.size(), 2u);
  EXPECT_EQ(spec.input_shapes.at("images"), (std::vector<std::int64_t>{1, 3, 320, 320}));
  EXPECT_EQ(spec.golden_data, "/opt/models/detector/test_data_set_0");
  EXPECT_EQ(spec.tolerance, 0.001);
  EXPECT_EQ(spec.budget_p99_latency_ms, 40);
  EXPECT_EQ(spec.budget_energy_per_inference_millijoules, 150.5);
  EXPECT_EQ(spec.latency_margin_ratio, 0.1);
  EXPECT_EQ(spec.energy_margin_ratio, 0.3);
  EXPECT_EQ(spec.memory_margin_ratio, 0.5);
  EXPECT_EQ(spec.memory_limit_mb, 512u);
  EXPECT_EQ(spec.cpu_limit_seconds, 60u);
  EXPECT_EQ(spec.deadline_seconds, 120u);
  EXPECT_EQ(spec.source, "models.json:3");  // The line of its opening brace.
  EXPECT_EQ(spec.SettingsText(),
            "threads=2 warmup=7 runs=200 input=images:1x3x320x320 input=scale:1 "
            "golden=/opt/models/detector/test_data_set_0 tolerance=0.001");
}

TEST(ModelSpecTest, ToJsonParsesBackToTheSameModel) {
  const auto models = ParseOk(R"({"models": [{"name": "a", "path": "/m/a.onnx", "threads": 3,
      "input_shapes": {"x": [2, 8]}, "budget": {"p99_latency_ms": 5}}]})");
  ASSERT_EQ(models.size(), 1u);
  const std::string text = nlohmann::ordered_json{{"models", {ModelSpecToJson(models[0])}}}.dump(2);
  const auto again = ParseOk(text);
  ASSERT_EQ(again.size(), 1u);
  EXPECT_EQ(nlohmann::ordered_json(ModelSpecToJson(again[0])),
            nlohmann::ordered_json(ModelSpecToJson(models[0])));
}

TEST(ModelSpecTest, ErrorsNameTheFileTheLineAndTheKey) {
  const ConfigError error = ParseError(R"({
  "models": [
    {"name": "ok", "path": "/m/ok.onnx"},
    {"name": "bad", "path": "/m/bad.onnx",
     "threads": 0}
  ]})");
  EXPECT_EQ(error.file, "models.json");
  EXPECT_EQ(error.line, 5);
  EXPECT_EQ(error.key, "models.1.threads");
  EXPECT_EQ(error.ToString(), "models.json:5: models.1.threads: must be between 1 and 256");
}

TEST(ModelSpecTest, RefusesWhatCannotBeRun) {
  EXPECT_EQ(ParseError(R"({"models": [{"path": "/m/a.onnx"}]})").message,
            "missing required key \"name\"");
  EXPECT_EQ(ParseError(R"({"models": [{"name": "a b", "path": "/m/a.onnx"}]})").key,
            "models.0.name");
  EXPECT_EQ(ParseError(R"({"models": [{"name": "a", "path": "m/a.onnx"}]})").key, "models.0.path");
  EXPECT_EQ(ParseError(R"({"models": [{"name": "a", "path": "/a", "thread": 2}]})").key,
            "models.0.thread");
  EXPECT_EQ(ParseError(R"({"models": [{"name": "a", "path": "/a", "budget": {"p99": 2}}]})").key,
            "models.0.budget.p99");
  EXPECT_EQ(ParseError(R"({"models": [{"name": "a", "path": "/a", "interval_seconds": 5}]})").key,
            "models.0.interval_seconds");
  EXPECT_EQ(
      ParseError(R"({"models": [{"name": "a", "path": "/a", "input_shapes": {"x": [-1]}}]})").key,
      "models.0.input_shapes.x");
  EXPECT_EQ(ParseError(R"({"models": [{"name": "a", "path": "/a", "golden_data": "rel"}]})").key,
            "models.0.golden_data");
  EXPECT_EQ(
      ParseError(R"({"models": [{"name": "a", "path": "/a", "limits": {"memory_mb": 8}}]})").key,
      "models.0.limits.memory_mb");
  // A deadline shorter than the benchmark it must let finish.
  EXPECT_EQ(ParseError(R"({"models": [{"name": "a", "path": "/a", "duration_seconds": 60,
                           "limits": {"deadline_seconds": 100}}]})")
                .key,
            "models.0.limits.deadline_seconds");
  EXPECT_EQ(
      ParseError(R"({"models": [{"name": "a", "path": "/a"}, {"name": "a", "path": "/b"}]})").key,
      "models.1.name");
  EXPECT_EQ(ParseError(R"({"models": {"name": "a"}})").message,
            "expected a list of models, got an object");
}

TEST(ModelSpecTest, ALaterModelOfTheSameNameReplacesTheEarlierOneInPlace) {
  std::vector<ModelSpec> models = ParseOk(R"({"models": [{"name": "a", "path": "/a"},
                                                         {"name": "b", "path": "/b"}]})");
  MergeModels(models, ParseOk(R"({"models": [{"name": "a", "path": "/a2", "enabled": false},
                                             {"name": "c", "path": "/c"}]})"));
  ASSERT_EQ(models.size(), 3u);
  EXPECT_EQ(models[0].name, "a");
  EXPECT_EQ(models[0].path, "/a2");
  EXPECT_FALSE(models[0].enabled);
  EXPECT_EQ(models[1].name, "b");
  EXPECT_EQ(models[2].name, "c");
}

TEST(ModelSpecTest, ModelNames) {
  EXPECT_TRUE(IsModelName("mobilenet_v2"));
  EXPECT_TRUE(IsModelName("yolo-v8n.int8"));
  EXPECT_TRUE(IsModelName("0day"));
  EXPECT_FALSE(IsModelName(""));
  EXPECT_FALSE(IsModelName("-x"));
  EXPECT_FALSE(IsModelName("a/b"));
  EXPECT_FALSE(IsModelName("a b"));
  EXPECT_FALSE(IsModelName(std::string(65, 'a')));
}

}  // namespace
}  // namespace edgemond::selfbench
