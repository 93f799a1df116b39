#include "engine/passes.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "engine/benchmark.h"
#include "engine/model.h"
#include "engine/session.h"
#include "engine/testing/op_tester.h"

namespace edgemond::engine {
namespace {

using testing::FloatTensor;
using testing::Int64Tensor;

// Builds small graphs by name.
class GraphBuilder {
 public:
  GraphBuilder& Input(const std::string& name, DataType dtype, std::vector<Dim> dims) {
    const ValueId id = graph_.FindOrAddValue(name);
    graph_.value(id).declared = DeclaredType{dtype, true, std::move(dims)};
    EXPECT_TRUE(graph_.AddInput(id).ok());
    return *this;
  }
  GraphBuilder& Constant(const std::string& name, Tensor tensor) {
    EXPECT_TRUE(graph_
                    .SetConstant(graph_.FindOrAddValue(name),
                                 std::make_shared<const Tensor>(std::move(tensor)))
                    .ok());
    return *this;
  }
  GraphBuilder& Node(const std::string& op, const std::vector<std::string>& inputs,
                     const std::vector<std::string>& outputs,
                     std::vector<Attribute> attributes = {}, int opset = 13) {
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
    EXPECT_TRUE(graph_.AddNode(std::move(node)).ok());
    return *this;
  }
  GraphBuilder& Output(const std::string& name) {
    graph_.AddOutput(name, graph_.FindValue(name));
    return *this;
  }
  Graph Take() { return std::move(graph_); }

 private:
  Graph graph_;
};

Attribute IntAttribute(std::string name, std::int64_t value) {
  Attribute attribute;
  attribute.name = std::move(name);
  attribute.type = Attribute::Type::kInt;
  attribute.i = value;
  return attribute;
}

Attribute FloatAttr(std::string name, float value) {
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

Tensor Random(Shape shape, std::uint64_t seed, float offset = 0.0f) {
  Tensor tensor = *MakeDeterministicTensor({DataType::kFloat32, std::move(shape)}, seed);
  for (float& v : tensor.mutable_values<float>()) v += offset;
  return tensor;
}

// The labels of a model's steps, in order: {"Conv+Relu", "Add"}.
std::vector<std::string> Labels(const Model& model) {
  std::vector<std::string> labels;
  for (const Model::Step& step : model.steps()) labels.push_back(step.label);
  return labels;
}

// The graph optimizations of this file without the CPU layout pass (engine/layout_pass.h, which
// has its own tests), so that the steps are the fused ONNX nodes.
ModelOptions FusionOnly() {
  ModelOptions options;
  options.cpu_layout = false;
  return options;
}

// Builds `make()` with and without the optimizations, runs both on the same deterministic
// inputs, expects every output to agree within `relative` * max(1, |unoptimized|), and returns
// the optimized model.
std::shared_ptr<const Model> BuildBothWaysAndCompare(const std::function<Graph()>& make,
                                                     float relative = 1e-5f) {
  ModelOptions plain_options;
  plain_options.optimize = false;
  Result<std::shared_ptr<const Model>> plain = Model::Build(make(), plain_options);
  Result<std::shared_ptr<const Model>> optimized = Model::Build(make(), FusionOnly());
  EXPECT_TRUE(plain.ok()) << plain.status();
  EXPECT_TRUE(optimized.ok()) << optimized.status();
  if (!plain.ok() || !optimized.ok()) return nullptr;
  EXPECT_EQ((*plain)->stats().fused_nodes, 0);
  std::unique_ptr<Session> a = *Session::Create(*plain);
  std::unique_ptr<Session> b = *Session::Create(*optimized);
  EXPECT_TRUE(SetDeterministicInputs(*a, 7).ok());
  EXPECT_TRUE(SetDeterministicInputs(*b, 7).ok());
  EXPECT_TRUE(a->Run().ok());
  EXPECT_TRUE(b->Run().ok());
  for (const IoInfo& output : (*plain)->outputs()) {
    const std::span<const float> expected = a->Output(output.name)->values<float>();
    const std::span<const float> actual = b->Output(output.name)->values<float>();
    EXPECT_EQ(actual.size(), expected.size());
    for (std::size_t i = 0; i < expected.size() && i < actual.size(); ++i) {
      EXPECT_NEAR(actual[i], expected[i], relative * std::max(1.0f, std::fabs(expected[i])))
          << output.name << " element " << i;
    }
  }
  return *optimized;
}

// The exporter idiom: x.view(x.size(0), -1) becomes Shape -> Gather -> Unsqueeze -> Concat ->
// Reshape. With static shapes everything but the Reshape folds at load.
TEST(PassesTest, FoldsExporterShapeChains) {
  GraphBuilder builder;
  builder.Input("x", DataType::kFloat32, {{2, ""}, {3, ""}, {4, ""}})
      .Constant("zero", Int64Tensor(Shape(), {0}))
      .Constant("minus_one", Int64Tensor(Shape({1}), {-1}))
      .Constant("axes", Int64Tensor(Shape({1}), {0}))
      .Node("Shape", {"x"}, {"shape"})
      .Node("Gather", {"shape", "zero"}, {"batch"}, {IntAttribute("axis", 0)})
      .Node("Unsqueeze", {"batch", "axes"}, {"batch_1d"})
      .Node("Concat", {"batch_1d", "minus_one"}, {"target"}, {IntAttribute("axis", 0)})
      .Node("Reshape", {"x", "target"}, {"y"})
      .Output("y");
  Result<std::shared_ptr<const Model>> model = Model::Build(builder.Take(), FusionOnly());
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_EQ((*model)->stats().folded_nodes, 4);
  EXPECT_EQ((*model)->stats().executed_nodes, 1);
  EXPECT_EQ((*model)->steps()[0].op_type, "Reshape");
  EXPECT_EQ((*model)->outputs()[0].info.shape, Shape({2, 12}));
}

TEST(PassesTest, RemovesIdentityDropoutAndDeadNodes) {
  GraphBuilder builder;
  builder.Input("x", DataType::kFloat32, {{4, ""}})
      .Node("Identity", {"x"}, {"a"})
      .Node("Relu", {"a"}, {"b"})
      .Node("Dropout", {"b"}, {"c"}, {}, 13)
      .Node("Sigmoid", {"b"}, {"unused"})  // Reaches no output.
      .Node("Identity", {"c"}, {"y"})
      .Output("y");
  Result<std::shared_ptr<const Model>> model = Model::Build(builder.Take(), FusionOnly());
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_EQ((*model)->stats().removed_nodes, 4);
  ASSERT_EQ((*model)->steps().size(), 1u);
  EXPECT_EQ((*model)->steps()[0].op_type, "Relu");
  // The output keeps its name although its value is now Relu's.
  EXPECT_EQ((*model)->outputs()[0].name, "y");

  Result<std::unique_ptr<Session>> session = Session::Create(*model);
  ASSERT_TRUE(session.ok());
  const Tensor x = FloatTensor(Shape({4}), {-1, 2, -3, 4});
  Result<std::vector<Tensor>> y = (*session)->Run({{"x", x.view()}});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ(std::vector<float>((*y)[0].values<float>().begin(), (*y)[0].values<float>().end()),
            (std::vector<float>{0, 2, 0, 4}));
}

TEST(PassesTest, AGraphThatFoldsCompletelyStillAnswers) {
  GraphBuilder builder;
  builder.Input("x", DataType::kFloat32, {{2, ""}, {5, ""}})
      .Node("Shape", {"x"}, {"shape"})
      .Output("shape");
  Result<std::shared_ptr<const Model>> model = Model::Build(builder.Take(), FusionOnly());
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_EQ((*model)->stats().executed_nodes, 0);
  Result<std::unique_ptr<Session>> session = Session::Create(*model);
  ASSERT_TRUE(session.ok());
  const Tensor x = FloatTensor(Shape({2, 5}), std::vector<float>(10, 1.0f));
  Result<std::vector<Tensor>> y = (*session)->Run({{"x", x.view()}});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ((*y)[0].values<std::int64_t>()[1], 5);
}

TEST(PassesTest, FoldingRespectsTheMemoryLimit) {
  // Broadcasting two small constants makes a 4 MB one; with a 1 MB budget the model is refused
  // before anything that large is allocated.
  GraphBuilder builder;
  builder.Input("x", DataType::kFloat32, {{1, ""}})
      .Constant("column", testing::IotaTensor(Shape({1000, 1})))
      .Constant("row", testing::IotaTensor(Shape({1, 1000})))
      .Node("Add", {"column", "row"}, {"table"})
      .Node("Add", {"table", "x"}, {"y"})
      .Output("y");
  ModelOptions options;
  options.max_arena_bytes = 1 << 20;
  const Status status = Model::Build(builder.Take(), options).status();
  EXPECT_EQ(status.code(), StatusCode::kResourceExhausted);
  EXPECT_NE(status.message().find("float32[1000x1000]) is larger than the 1048576-byte limit"),
            std::string_view::npos)
      << status;
}

TEST(PassesTest, RefusesAttributesTheKernelDoesNotRead) {
  GraphBuilder builder;
  builder.Input("x", DataType::kFloat32, {{4, ""}})
      .Node("Relu", {"x"}, {"y"}, {IntAttribute("fancy_mode", 1)})
      .Output("y");
  const Status status = Model::Build(builder.Take(), FusionOnly()).status();
  EXPECT_TRUE(status.IsUnsupported());
  EXPECT_EQ(status.message(),
            "node 'Relu0' (Relu, opset 13): attribute 'fancy_mode' not supported");
}

TEST(PassesTest, RefusesNodesWithoutOutputs) {
  GraphBuilder builder;
  builder.Input("x", DataType::kFloat32, {{4, ""}})
      .Node("Shape", {"x"}, {})
      .Node("Relu", {"x"}, {"y"});
  builder.Output("y");
  EXPECT_EQ(Model::Build(builder.Take(), FusionOnly()).status().message(),
            "node 'Shape0' (Shape, opset 13): output 0 is missing");
}

TEST(PassesTest, RefusesNodesMissingRequiredInputs) {
  GraphBuilder builder;
  builder.Input("x", DataType::kFloat32, {{4, ""}}).Node("Dropout", {}, {"y"}).Output("y");
  EXPECT_EQ(Model::Build(builder.Take(), FusionOnly()).status().message(),
            "node 'Dropout0' (Dropout, opset 13): input 0 is required");
}

TEST(PassesTest, RefusesUnsupportedOpsNamingTheNode) {
  GraphBuilder builder;
  builder.Input("x", DataType::kFloat32, {{4, ""}}).Node("Frobnicate", {"x"}, {"y"}).Output("y");
  const Status status = Model::Build(builder.Take(), FusionOnly()).status();
  EXPECT_TRUE(status.IsUnsupported());
  EXPECT_EQ(status.message(),
            "node 'Frobnicate0' (Frobnicate, opset 13): no kernel for operator 'Frobnicate'");
}

TEST(PassesTest, RefusesUnsupportedTypesNamingTheNode) {
  GraphBuilder builder;
  builder.Input("x", DataType::kInt32, {{4, ""}}).Node("Relu", {"x"}, {"y"}).Output("y");
  const Status status = Model::Build(builder.Take(), FusionOnly()).status();
  EXPECT_TRUE(status.IsUnsupported());
  EXPECT_EQ(status.message(),
            "node 'Relu0' (Relu, opset 13): input 0 has type int32; supported: float32");
}

TEST(PassesTest, ComparesComputedShapesWithDeclaredOnes) {
  GraphBuilder builder;
  builder.Input("x", DataType::kFloat32, {{2, ""}, {3, ""}})
      .Node("Transpose", {"x"}, {"y"})
      .Output("y");
  Graph graph = builder.Take();
  graph.value(graph.FindValue("y")).declared =
      DeclaredType{DataType::kFloat32, true, {{2, ""}, {3, ""}}};
  const Status status = Model::Build(std::move(graph), FusionOnly()).status();
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find("has shape 3x2 but the model declares float32[2x3]"),
            std::string_view::npos)
      << status;
}

// x -> Conv -> BatchNormalization -> Relu, as exporters emit it when BatchNormalization is
// not folded (training-mode exports, other frameworks).
Graph ConvBatchNormRelu(bool conv_bias) {
  GraphBuilder builder;
  builder.Input("x", DataType::kFloat32, {{1, ""}, {3, ""}, {8, ""}, {7, ""}})
      .Constant("w", Random(Shape({4, 3, 3, 3}), 1))
      .Constant("b", Random(Shape({4}), 2))
      .Constant("scale", Random(Shape({4}), 3, 1.5f))
      .Constant("bias", Random(Shape({4}), 4))
      .Constant("mean", Random(Shape({4}), 5))
      .Constant("var", Random(Shape({4}), 6, 1.5f));
  if (conv_bias) {
    builder.Node("Conv", {"x", "w", "b"}, {"c"}, {IntsAttribute("pads", {1, 1, 1, 1})});
  } else {
    builder.Node("Conv", {"x", "w"}, {"c"}, {IntsAttribute("pads", {1, 1, 1, 1})});
  }
  builder
      .Node("BatchNormalization", {"c", "scale", "bias", "mean", "var"}, {"n"},
            {FloatAttr("epsilon", 1e-3f)}, 15)
      .Node("Relu", {"n"}, {"y"})
      .Output("y");
  return builder.Take();
}

TEST(OptimizeTest, FoldsBatchNormalizationIntoConvAndFusesRelu) {
  for (const bool bias : {true, false}) {
    const std::shared_ptr<const Model> model =
        BuildBothWaysAndCompare([bias] { return ConvBatchNormRelu(bias); });
    ASSERT_NE(model, nullptr);
    EXPECT_EQ(Labels(*model), std::vector<std::string>({"Conv+Relu"}));
    EXPECT_EQ(model->stats().fused_nodes, 2);
    EXPECT_EQ(model->outputs()[0].name, "y");
    // The original weights are no longer held.
    EXPECT_EQ(model->graph().value(model->graph().FindValue("w")).constant, nullptr);
  }
}

TEST(OptimizeTest, KeepsWeightsOtherNodesRead) {
  const auto make = [] {
    GraphBuilder builder;
    builder.Input("x", DataType::kFloat32, {{1, ""}, {2, ""}, {5, ""}, {5, ""}})
        .Constant("w", Random(Shape({2, 2, 1, 1}), 1))
        .Constant("scale", Random(Shape({2}), 3, 1.5f))
        .Constant("bias", Random(Shape({2}), 4))
        .Constant("mean", Random(Shape({2}), 5))
        .Constant("var", Random(Shape({2}), 6, 1.5f))
        .Node("Conv", {"x", "w"}, {"c1"})
        .Node("BatchNormalization", {"c1", "scale", "bias", "mean", "var"}, {"n1"})
        .Node("Conv", {"x", "w"}, {"c2"})
        .Node("Add", {"n1", "c2"}, {"y"})
        .Output("y");
    return builder.Take();
  };
  const std::shared_ptr<const Model> model = BuildBothWaysAndCompare(make);
  ASSERT_NE(model, nullptr);
  EXPECT_EQ(Labels(*model), std::vector<std::string>({"Conv", "Conv", "Add"}));
  EXPECT_NE(model->graph().value(model->graph().FindValue("w")).constant, nullptr);
}

TEST(OptimizeTest, FusesTheResidualRelu) {
  const auto make = [] {
    GraphBuilder builder;
    builder.Input("x", DataType::kFloat32, {{1, ""}, {2, ""}, {4, ""}, {4, ""}})
        .Constant("w", Random(Shape({2, 2, 3, 3}), 1))
        .Node("Conv", {"x", "w"}, {"c"}, {IntsAttribute("pads", {1, 1, 1, 1})})
        .Node("Relu", {"c"}, {"r"})
        .Node("Add", {"r", "x"}, {"s"})
        .Node("Relu", {"s"}, {"y"})
        .Output("y");
    return builder.Take();
  };
  const std::shared_ptr<const Model> model = BuildBothWaysAndCompare(make);
  ASSERT_NE(model, nullptr);
  EXPECT_EQ(Labels(*model), std::vector<std::string>({"Conv+Relu", "Add+Relu"}));
}

TEST(OptimizeTest, RecognisesSiluAndHardSwishPatterns) {
  for (const bool swapped : {false, true}) {
    const auto make = [swapped] {
      GraphBuilder builder;
      builder.Input("a", DataType::kFloat32, {{3, ""}, {8, ""}})
          .Input("x", DataType::kFloat32, {{1, ""}, {2, ""}, {4, ""}, {4, ""}})
          .Constant("b", Random(Shape({8, 5}), 1, 0.5f))
          .Constant("w", Random(Shape({2, 2, 1, 1}), 2))
          .Node("Gemm", {"a", "b"}, {"g"})
          .Node("Sigmoid", {"g"}, {"s"})
          .Node("Mul",
                swapped ? std::vector<std::string>{"s", "g"} : std::vector<std::string>{"g", "s"},
                {"y1"})
          .Node("Conv", {"x", "w"}, {"c"})
          .Node("HardSigmoid", {"c"}, {"h"},
                {FloatAttr("alpha", kHardSwishAlpha), FloatAttr("beta", 0.5f)})
          .Node("Mul",
                swapped ? std::vector<std::string>{"h", "c"} : std::vector<std::string>{"c", "h"},
                {"y2"})
          .Output("y1")
          .Output("y2");
      return builder.Take();
    };
    const std::shared_ptr<const Model> model = BuildBothWaysAndCompare(make);
    ASSERT_NE(model, nullptr);
    EXPECT_EQ(Labels(*model), std::vector<std::string>({"Gemm+Silu", "Conv+HardSwish"}));
    EXPECT_EQ(model->stats().fused_nodes, 4);
  }
}

TEST(OptimizeTest, LeavesWhatItCannotFuse) {
  const auto make = [] {
    GraphBuilder builder;
    builder.Input("x", DataType::kFloat32, {{1, ""}, {2, ""}, {4, ""}, {4, ""}})
        .Input("lo", DataType::kFloat32, {})
        .Constant("w", Random(Shape({2, 2, 1, 1}), 2))
        .Constant("six", FloatTensor(Shape(), {6}))
        // Read twice: the Conv output is needed unactivated by the Add.
        .Node("Conv", {"x", "w"}, {"c1"})
        .Node("Relu", {"c1"}, {"r1"})
        .Node("Add", {"r1", "c1"}, {"y1"})
        // A graph output itself.
        .Node("Conv", {"x", "w"}, {"c2"})
        .Node("Sigmoid", {"c2"}, {"y2"})
        // Sub applies no fused activation.
        .Node("Sub", {"x", "x"}, {"d"})
        .Node("Relu", {"d"}, {"y3"})
        // A Clip bound computed at run time.
        .Node("Conv", {"x", "w"}, {"c4"})
        .Node("Clip", {"c4", "lo", "six"}, {"y4"})
        // A HardSigmoid gate without HardSwish's constants is not HardSwish.
        .Node("Conv", {"x", "w"}, {"c5"})
        .Node("HardSigmoid", {"c5"}, {"h5"})
        .Node("Mul", {"c5", "h5"}, {"y5"})
        .Output("y1")
        .Output("c2")
        .Output("y2")
        .Output("y3")
        .Output("y4")
        .Output("y5");
    return builder.Take();
  };
  const std::shared_ptr<const Model> model = BuildBothWaysAndCompare(make);
  ASSERT_NE(model, nullptr);
  EXPECT_EQ(model->stats().fused_nodes, 0);
  EXPECT_EQ(model->steps().size(), 12u);
}

TEST(OptimizeTest, FusesClipWithConstantBounds) {
  const auto make = [] {
    GraphBuilder builder;
    builder.Input("a", DataType::kFloat32, {{2, ""}, {3, ""}, {4, ""}})
        .Constant("b", Random(Shape({4, 5}), 1, 0.5f))
        .Constant("zero", FloatTensor(Shape(), {0}))
        .Constant("top", FloatTensor(Shape(), {0.25f}))
        .Node("MatMul", {"a", "b"}, {"m"})
        .Node("Clip", {"m", "zero", "top"}, {"y"})
        .Output("y");
    return builder.Take();
  };
  const std::shared_ptr<const Model> model = BuildBothWaysAndCompare(make);
  ASSERT_NE(model, nullptr);
  ASSERT_EQ(model->steps().size(), 1u);
  EXPECT_EQ(model->steps()[0].activation, FusedActivation::Clip(0.0f, 0.25f));
}

TEST(BindInputShapesTest, BindsSymbolsAndChecksNumbers) {
  GraphBuilder builder;
  builder.Input("a", DataType::kFloat32, {{-1, "batch"}, {3, ""}})
      .Input("b", DataType::kFloat32, {{-1, "batch"}});
  Graph graph = builder.Take();

  EXPECT_EQ(BindInputShapes(graph, {}).message(),
            "input 'a' (float32[batchx3]) has unresolved dimension 0 ('batch'); its shape must "
            "be given");
  EXPECT_EQ(BindInputShapes(graph, {{"a", {2, 4}}, {"b", {2}}}).message(),
            "input 'a' dimension 1 is 3 in the model (float32[batchx3]); 2x4 was given");
  EXPECT_EQ(BindInputShapes(graph, {{"a", {2, 3, 1}}, {"b", {2}}}).message(),
            "input 'a' has rank 2 (float32[batchx3]); shape 2x3x1 was given");
  EXPECT_EQ(BindInputShapes(graph, {{"a", {2, 3}}, {"b", {5}}}).message(),
            "dimension 'batch' is bound to both 2 and 5 (input 'b')");
  EXPECT_EQ(BindInputShapes(graph, {{"a", {2, 3}}, {"b", {2}}, {"c", {1}}}).message(),
            "a shape was given for 'c', which is not a model input (inputs: a, b)");
  EXPECT_EQ(BindInputShapes(graph, {{"a", {std::int64_t{1} << 40, 3}}, {"b", {1}}}).code(),
            StatusCode::kResourceExhausted);
  ASSERT_TRUE(BindInputShapes(graph, {{"a", {2, 3}}, {"b", {2}}}).ok());
  EXPECT_EQ(graph.value(graph.FindValue("a")).info->shape, Shape({2, 3}));
}

TEST(FreezeInputsTest, TurnsInputsIntoConstants) {
  GraphBuilder builder;
  builder.Input("x", DataType::kFloat32, {{6, ""}})
      .Input("shape", DataType::kInt64, {{2, ""}})
      .Node("Reshape", {"x", "shape"}, {"y"})
      .Output("y");
  ModelOptions options;
  options.constant_inputs["shape"] =
      std::make_shared<const Tensor>(Int64Tensor(Shape({2}), {2, 3}));
  Result<std::shared_ptr<const Model>> model = Model::Build(builder.Take(), options);
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_EQ((*model)->inputs().size(), 1u);
  EXPECT_EQ((*model)->outputs()[0].info.shape, Shape({2, 3}));
}

TEST(FreezeInputsTest, RefusesAMismatchedConstant) {
  GraphBuilder builder;
  builder.Input("shape", DataType::kInt64, {{2, ""}})
      .Node("Identity", {"shape"}, {"y"})
      .Output("y");
  ModelOptions options;
  options.constant_inputs["shape"] =
      std::make_shared<const Tensor>(Int64Tensor(Shape({3}), {1, 2, 3}));
  EXPECT_EQ(Model::Build(builder.Take(), options).status().message(),
            "input 'shape' is int64[2]; the constant given is int64[3]");
}

}  // namespace
}  // namespace edgemond::engine
