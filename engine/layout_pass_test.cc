#include "engine/layout_pass.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "engine/benchmark.h"
#include "engine/model.h"
#include "engine/session.h"
#include "engine/testing/graph_builder.h"

namespace edgemond::engine {
namespace {

using testing::GraphBuilder;
using testing::IntAttribute;
using testing::IntsAttribute;

Tensor Weights(Shape shape, std::uint64_t seed, float scale) {
  Tensor tensor = *MakeDeterministicTensor({DataType::kFloat32, std::move(shape)}, seed);
  for (float& v : tensor.mutable_values<float>()) v *= scale;
  return tensor;
}

std::vector<Dim> Dims(std::vector<std::int64_t> values) {
  std::vector<Dim> dims;
  for (const std::int64_t v : values) dims.push_back({v, ""});
  return dims;
}

// A 2-D convolution node with constant weights W<name> and bias B<name>.
void AddConv(GraphBuilder& b, const std::string& name, const std::string& x, const std::string& y,
             std::int64_t in_c, std::int64_t out_c, std::int64_t kernel, std::int64_t stride,
             std::int64_t group, std::uint64_t seed) {
  const float scale = 1.0f / std::sqrt(static_cast<float>(in_c / group * kernel * kernel));
  b.Constant("W" + name, Weights(Shape({out_c, in_c / group, kernel, kernel}), seed, scale))
      .Constant("B" + name, Weights(Shape({out_c}), seed + 1, 0.1f))
      .Node("Conv", {x, "W" + name, "B" + name}, {y},
            {IntAttribute("group", group), IntsAttribute("strides", {stride, stride}),
             IntsAttribute("pads", {kernel / 2, kernel / 2, kernel / 2, kernel / 2})});
}

std::vector<std::string> Labels(const Model& model) {
  std::vector<std::string> labels;
  for (const Model::Step& step : model.steps()) labels.push_back(step.label);
  return labels;
}

int Count(const std::vector<std::string>& labels, const std::string& label) {
  return static_cast<int>(std::count(labels.begin(), labels.end(), label));
}

// Builds the graph with and without the layout pass (both fused), runs both on the same
// deterministic inputs and expects the same outputs: the optimized kernels and the layout
// changes around them compute what the reference kernels do, up to float rounding. Returns the
// model with the layout pass.
std::shared_ptr<const Model> BuildBothWaysAndCompare(const std::function<GraphBuilder()>& make) {
  ModelOptions plain_options;
  plain_options.cpu_layout = false;
  GraphBuilder plain_builder = make();
  GraphBuilder nhwc_builder = make();
  EXPECT_TRUE(plain_builder.status().ok()) << plain_builder.status();
  Result<std::shared_ptr<const Model>> plain = Model::Build(plain_builder.Take(), plain_options);
  Result<std::shared_ptr<const Model>> nhwc = Model::Build(nhwc_builder.Take(), ModelOptions{});
  EXPECT_TRUE(plain.ok()) << plain.status();
  EXPECT_TRUE(nhwc.ok()) << nhwc.status();
  if (!plain.ok() || !nhwc.ok()) return nullptr;
  std::unique_ptr<Session> a = *Session::Create(*plain);
  std::unique_ptr<Session> b = *Session::Create(*nhwc, {.threads = 2});
  EXPECT_TRUE(SetDeterministicInputs(*a, 3).ok());
  EXPECT_TRUE(SetDeterministicInputs(*b, 3).ok());
  EXPECT_TRUE(a->Run().ok());
  EXPECT_TRUE(b->Run().ok());
  for (const IoInfo& output : (*plain)->outputs()) {
    const std::span<const float> expected = a->Output(output.name)->values<float>();
    const std::span<const float> actual = b->Output(output.name)->values<float>();
    EXPECT_EQ(actual.size(), expected.size());
    int reported = 0;
    for (std::size_t i = 0; i < expected.size() && i < actual.size(); ++i) {
      if (std::fabs(actual[i] - expected[i]) > 1e-5f * std::max(1.0f, std::fabs(expected[i])) &&
          reported++ < 5) {
        ADD_FAILURE() << output.name << " element " << i << ": " << actual[i] << ", expected "
                      << expected[i];
      }
    }
  }
  return *nhwc;
}

// MobileNetV2 and ResNet in miniature: an RGB stem, a depthwise-separable block with a residual
// connection, global pooling and a classifier.
TEST(LayoutPassTest, ConvolutionsResidualsAndClassifierRunInNhwc) {
  const auto make = [] {
    GraphBuilder b;
    b.Input("x", DataType::kFloat32, Dims({1, 3, 30, 31}));
    AddConv(b, "stem", "x", "s", 3, 16, 3, 2, 1, 10);
    b.Node("Relu", {"s"}, {"s_relu"});
    AddConv(b, "expand", "s_relu", "e", 16, 48, 1, 1, 1, 20);
    b.Node("Relu", {"e"}, {"e_relu"});
    AddConv(b, "dw", "e_relu", "d", 48, 48, 3, 1, 48, 30);
    b.Node("Relu", {"d"}, {"d_relu"});
    AddConv(b, "project", "d_relu", "p", 48, 16, 1, 1, 1, 40);
    b.Node("Add", {"p", "s_relu"}, {"sum"});
    b.Node("Relu", {"sum"}, {"block"});
    b.Node("GlobalAveragePool", {"block"}, {"pooled"});
    b.Node("Flatten", {"pooled"}, {"flat"}, {IntAttribute("axis", 1)});
    b.Constant("fc_w", Weights(Shape({10, 16}), 50, 0.25f))
        .Constant("fc_b", Weights(Shape({10}), 51, 0.1f))
        .Node("Gemm", {"flat", "fc_w", "fc_b"}, {"logits"}, {IntAttribute("transB", 1)})
        .Output("logits");
    return b;
  };
  const std::shared_ptr<const Model> model = BuildBothWaysAndCompare(make);
  ASSERT_NE(model, nullptr);
  const std::vector<std::string> labels = Labels(*model);
  // The stem reads the planar image itself (no transposed copy), the projection takes the
  // residual Add and its Relu, and nothing converts back: the Flatten of the 1x1-pixel pooled
  // tensor reads the NHWC bytes, which are the NCHW ones.
  EXPECT_EQ(labels, (std::vector<std::string>{"NhwcConv+Relu", "NhwcConv+Relu", "NhwcConv+Relu",
                                              "NhwcConv+Relu", "NhwcGlobalAveragePool", "Flatten",
                                              "Dense"}));
  EXPECT_EQ(model->stats().layout_reorders, 0);
}

// An image of more than four planes is transposed once; stride-2 and 5x5 convolutions, a
// MaxPool with ceil_mode and a channel Concat (SqueezeNet's fire module) stay in NHWC.
TEST(LayoutPassTest, ConcatAndMaxPoolFollowTheirInputs) {
  const auto make = [] {
    GraphBuilder b;
    b.Input("x", DataType::kFloat32, Dims({2, 8, 17, 16}));
    AddConv(b, "c0", "x", "a", 8, 24, 5, 2, 1, 60);
    b.Node("Relu", {"a"}, {"a_relu"});
    b.Node("MaxPool", {"a_relu"}, {"pool"},
           {IntsAttribute("kernel_shape", {3, 3}), IntsAttribute("strides", {2, 2}),
            IntAttribute("ceil_mode", 1)});
    AddConv(b, "left", "pool", "l", 24, 20, 1, 1, 1, 70);
    AddConv(b, "right", "pool", "r", 24, 36, 3, 1, 1, 80);
    b.Node("Concat", {"l", "r"}, {"cat"}, {IntAttribute("axis", 1)});
    b.Node("Sigmoid", {"cat"}, {"y"});
    b.Output("y");
    return b;
  };
  const std::shared_ptr<const Model> model = BuildBothWaysAndCompare(make);
  ASSERT_NE(model, nullptr);
  const std::vector<std::string> labels = Labels(*model);
  EXPECT_EQ(labels.front(), "Transpose");
  EXPECT_EQ(Count(labels, "NhwcMaxPool"), 1);
  EXPECT_EQ(Count(labels, "NhwcConcat"), 1);
  EXPECT_EQ(Count(labels, "Transpose"), 2);  // In, and the output back to NCHW.
  EXPECT_EQ(model->stats().layout_reorders, 2);
}

// Where a channel Concat's inputs come from: convolutions that feed only the Concat write into
// its output (20 and 36 channels: partial panels, masked stores between the neighbours' channels),
// the others are copied: a convolution whose output is also read elsewhere, a max pool, and one
// with a residual input.
TEST(LayoutPassTest, ConvolutionsWriteConcatInputsInPlace) {
  const auto make = [] {
    GraphBuilder b;
    b.Input("x", DataType::kFloat32, Dims({2, 16, 9, 10}));
    AddConv(b, "squeeze", "x", "s", 16, 12, 1, 1, 1, 90);
    b.Node("Relu", {"s"}, {"s_relu"});
    AddConv(b, "e1", "s_relu", "e1", 12, 20, 1, 1, 1, 100);
    b.Node("Relu", {"e1"}, {"e1_relu"});
    AddConv(b, "e3", "s_relu", "e3", 12, 36, 3, 1, 1, 110);
    AddConv(b, "shared", "s_relu", "shared", 12, 8, 1, 1, 1, 120);
    b.Node("MaxPool", {"s_relu"}, {"pool"},
           {IntsAttribute("kernel_shape", {3, 3}), IntsAttribute("pads", {1, 1, 1, 1})});
    AddConv(b, "res", "s_relu", "r", 12, 12, 3, 1, 1, 130);
    b.Node("Add", {"r", "s_relu"}, {"r_sum"});
    b.Node("Concat", {"e1_relu", "shared", "e3", "pool", "r_sum"}, {"cat"},
           {IntAttribute("axis", 1)});
    b.Node("Sigmoid", {"shared"}, {"side"});
    b.Node("Relu", {"cat"}, {"y"});
    b.Output("y").Output("side");
    return b;
  };
  const std::shared_ptr<const Model> model = BuildBothWaysAndCompare(make);
  ASSERT_NE(model, nullptr);
  EXPECT_EQ(model->stats().layout_reorders, 3);  // x in; y and side out.
  // e1 (with its Relu) and e3 write in place; shared, pool and the residual sum are copied.
  const Model::Step* concat = nullptr;
  for (const Model::Step& step : model->steps()) {
    if (step.label == "NhwcConcat") concat = &step;
  }
  ASSERT_NE(concat, nullptr);
  ASSERT_EQ(concat->inputs.size(), 5u);
  const std::vector<Model::Slot>& slots = model->slots();
  const auto offset = [&](ValueId v) { return slots[static_cast<std::size_t>(v)].offset; };
  const std::int64_t base = offset(concat->outputs[0]);
  EXPECT_EQ(offset(concat->inputs[0]), base);                 // Channels 0-19.
  EXPECT_EQ(offset(concat->inputs[2]), base + (20 + 8) * 4);  // Channels 28-63.
  for (const std::size_t copied : {1u, 3u, 4u}) {
    const std::int64_t at = offset(concat->inputs[copied]);
    const std::int64_t size =
        slots[static_cast<std::size_t>(concat->inputs[copied])].info.byte_size();
    const std::int64_t concat_size =
        slots[static_cast<std::size_t>(concat->outputs[0])].info.byte_size();
    EXPECT_TRUE(at + size <= base || at >= base + concat_size) << "input " << copied;
  }
}

// ResNet's residual path: a convolution that adds its block's input as its last reader writes
// its output over that input (Kernel::OutputReusesInput), down the chain of blocks; one whose
// residual is still needed later (by the Concat here) gets a buffer of its own. 64 channels:
// 3x3 tiles read in place inside the image and through the chunk buffer (two chunks) at the
// borders, so partial sums pass through the shared buffer.
TEST(LayoutPassTest, ResidualConvolutionsWriteOverTheirResidual) {
  const auto make = [] {
    GraphBuilder b;
    b.Input("x", DataType::kFloat32, Dims({1, 8, 10, 14}));
    AddConv(b, "stem", "x", "s", 8, 64, 3, 1, 1, 140);
    b.Node("Relu", {"s"}, {"a"});
    std::string in = "a";
    for (const std::string block : {"b1", "b2", "b3"}) {
      AddConv(b, block + "c1", in, block + "h", 64, 64, 3, 1, 1, 150);
      b.Node("Relu", {block + "h"}, {block + "h_relu"});
      AddConv(b, block + "c2", block + "h_relu", block + "o", 64, 64, 3, 1, 1, 160);
      b.Node("Add", {in, block + "o"}, {block + "sum"});
      b.Node("Relu", {block + "sum"}, {block});
      in = block;
    }
    b.Node("Concat", {"b3", "b1"}, {"y"}, {IntAttribute("axis", 1)});
    b.Output("y");
    return b;
  };
  const std::shared_ptr<const Model> model = BuildBothWaysAndCompare(make);
  ASSERT_NE(model, nullptr);
  // b1 writes over a; b2 may not write over b1 (the Concat reads it), b3 writes over b2.
  EXPECT_EQ(model->stats().outputs_reusing_inputs, 2);
  const std::vector<Model::Slot>& slots = model->slots();
  std::vector<const Model::Step*> residual_steps;
  for (const Model::Step& step : model->steps()) {
    if (step.inputs.size() > 3 && step.inputs[3] != kNoValue) residual_steps.push_back(&step);
  }
  ASSERT_EQ(residual_steps.size(), 3u);
  const auto offset = [&](ValueId v) { return slots[static_cast<std::size_t>(v)].offset; };
  EXPECT_EQ(offset(residual_steps[0]->outputs[0]), offset(residual_steps[0]->inputs[3]));
  EXPECT_NE(offset(residual_steps[1]->outputs[0]), offset(residual_steps[1]->inputs[3]));
  EXPECT_EQ(offset(residual_steps[2]->outputs[0]), offset(residual_steps[2]->inputs[3]));
}

// A squeeze-and-excitation gate (EfficientNet, MobileNetV3): global pooling, two 1x1
// convolutions and a Sigmoid make one factor per channel, and Mul(x, gate) scales x for the
// projection after it.
void AddSqueezeExcite(GraphBuilder& b, const std::string& name, const std::string& x,
                      const std::string& gate, std::int64_t channels, std::uint64_t seed) {
  b.Node("GlobalAveragePool", {x}, {name + "pool"});
  AddConv(b, name + "reduce", name + "pool", name + "r", channels, channels / 4, 1, 1, 1, seed);
  b.Node("Relu", {name + "r"}, {name + "r_relu"});
  AddConv(b, name + "expand", name + "r_relu", name + "e", channels / 4, channels, 1, 1, 1,
          seed + 10);
  b.Node("Sigmoid", {name + "e"}, {gate});
}

// The gate's Mul joins the projection after it, which scales its packed weights per run,
// where those are shorter than the image (2 x taps x padded output channels <= pixels): a 1x1
// projection with a residual, the gate as the Mul's first or second input, and a 3x3 one
// whose reduction (9 x 40) runs in two chunks over two panels (AVX-512: a partial panel
// group). The last stage's (2x2 pixels, 24 output channels) keeps its Mul, as does a gate
// per image of a batch.
TEST(LayoutPassTest, SqueezeExciteGatesJoinTheProjection) {
  const auto make = [](std::int64_t batch) {
    return [batch] {
      GraphBuilder b;
      b.Input("x", DataType::kFloat32, Dims({batch, 8, 24, 24}));
      AddConv(b, "stem", "x", "s", 8, 40, 1, 1, 1, 200);
      b.Node("Relu", {"s"}, {"a"});
      AddConv(b, "dw", "a", "d", 40, 40, 3, 1, 40, 210);
      b.Node("Relu", {"d"}, {"d_relu"});
      AddSqueezeExcite(b, "se1", "d_relu", "g1", 40, 220);
      b.Node("Mul", {"d_relu", "g1"}, {"scaled1"});
      AddConv(b, "project1", "scaled1", "p1", 40, 40, 1, 1, 1, 240);
      b.Node("Add", {"p1", "a"}, {"block1"});
      AddSqueezeExcite(b, "se2", "block1", "g2", 40, 250);
      b.Node("Mul", {"g2", "block1"}, {"scaled2"});
      AddConv(b, "project2", "scaled2", "p2", 40, 24, 3, 1, 1, 270);
      b.Node("Relu", {"p2"}, {"block2"});
      b.Node("MaxPool", {"block2"}, {"small"},
             {IntsAttribute("kernel_shape", {9, 9}), IntsAttribute("strides", {9, 9})});
      AddSqueezeExcite(b, "se3", "small", "g3", 24, 280);
      b.Node("Mul", {"small", "g3"}, {"scaled3"});
      AddConv(b, "project3", "scaled3", "y", 24, 24, 1, 1, 1, 290);
      b.Output("y");
      return b;
    };
  };
  const std::shared_ptr<const Model> model = BuildBothWaysAndCompare(make(1));
  ASSERT_NE(model, nullptr);
  const std::vector<std::string> labels = Labels(*model);
  EXPECT_EQ(Count(labels, "Mul"), 1);
  int scaled = 0;
  for (const Model::Step& step : model->steps()) {
    if (step.inputs.size() > 4 && step.inputs[4] != kNoValue) ++scaled;
  }
  EXPECT_EQ(scaled, 2);

  const std::shared_ptr<const Model> batched = BuildBothWaysAndCompare(make(2));
  ASSERT_NE(batched, nullptr);
  EXPECT_EQ(Count(Labels(*batched), "Mul"), 3);
}

// ShuffleNetV2's channel split and shuffle, and a ReduceMean over the pixels.
TEST(LayoutPassTest, ChannelShuffleSliceAndReduceMean) {
  const auto make = [] {
    GraphBuilder b;
    b.Input("x", DataType::kFloat32, Dims({1, 3, 12, 12}));
    AddConv(b, "stem", "x", "s", 3, 32, 3, 1, 1, 90);
    b.Constant("starts", Tensor::FromVector(Shape({1}), std::vector<std::int64_t>{16}).value())
        .Constant("ends", Tensor::FromVector(Shape({1}), std::vector<std::int64_t>{32}).value())
        .Constant("axes", Tensor::FromVector(Shape({1}), std::vector<std::int64_t>{1}).value())
        .Node("Slice", {"s", "starts", "ends", "axes"}, {"half"});
    AddConv(b, "branch", "half", "h", 16, 32, 1, 1, 1, 100);
    b.Constant("split_shape",
               Tensor::FromVector(Shape({5}), std::vector<std::int64_t>{1, 2, 16, 12, 12}).value())
        .Constant("merge_shape",
                  Tensor::FromVector(Shape({4}), std::vector<std::int64_t>{1, 32, 12, 12}).value())
        .Node("Reshape", {"h", "split_shape"}, {"r1"})
        .Node("Transpose", {"r1"}, {"t"}, {IntsAttribute("perm", {0, 2, 1, 3, 4})})
        .Node("Reshape", {"t", "merge_shape"}, {"shuffled"})
        .Node("ReduceMean", {"shuffled"}, {"y"},
              {IntsAttribute("axes", {2, 3}), IntAttribute("keepdims", 0)})
        .Output("y");
    return b;
  };
  const std::shared_ptr<const Model> model = BuildBothWaysAndCompare(make);
  ASSERT_NE(model, nullptr);
  const std::vector<std::string> labels = Labels(*model);
  EXPECT_EQ(Count(labels, "ChannelShuffle"), 1);
  EXPECT_EQ(Count(labels, "Transpose"), 0);
  EXPECT_EQ(model->stats().layout_reorders, 0);
}

TEST(LayoutPassTest, LeavesAModelWithoutConvolutionsAlone) {
  GraphBuilder b;
  b.Input("x", DataType::kFloat32, Dims({1, 4, 5, 6})).Node("Relu", {"x"}, {"y"}).Output("y");
  ASSERT_TRUE(b.status().ok());
  Result<std::shared_ptr<const Model>> model = Model::Build(b.Take(), ModelOptions{});
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_EQ(Labels(**model), std::vector<std::string>{"Relu"});
  EXPECT_EQ((*model)->stats().layout_reorders, 0);
}

}  // namespace
}  // namespace edgemond::engine
