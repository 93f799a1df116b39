// Split, Squeeze, ConstantOfShape, Expand, Pad and ChannelShuffle: shapes, values, and the refusal
// of inconsistent or absurd parameters.

#include <gtest/gtest.h>

#include "engine/testing/op_tester.h"

namespace edgemond::engine {
namespace {

using testing::FloatTensor;
using testing::FloatValues;
using testing::Int64Tensor;
using testing::IotaTensor;
using testing::OpTester;

TEST(SplitKernelTest, SizesFromAttributeInputAndNumOutputs) {
  OpTester attribute("Split", 11);
  attribute.Input("x", IotaTensor(Shape({2, 5})))
      .AttrInt("axis", -1)
      .AttrInts("split", {2, 3})
      .Output("a")
      .Output("b");
  Result<std::vector<Tensor>> y = attribute.Run();
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ(FloatValues((*y)[0]), (std::vector<float>{0, 1, 5, 6}));
  EXPECT_EQ(FloatValues((*y)[1]), (std::vector<float>{2, 3, 4, 7, 8, 9}));

  OpTester input("Split", 13);
  input.Input("x", IotaTensor(Shape({4})))
      .Constant("split", Int64Tensor(Shape({2}), {1, 3}))
      .Output("a")
      .Output("b");
  y = input.Run();
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ((*y)[1].shape(), Shape({3}));

  // From opset 18 the last part may be smaller: 7 into 3 is 3, 3, 1.
  OpTester uneven("Split", 18);
  uneven.Input("x", IotaTensor(Shape({7})))
      .AttrInt("num_outputs", 3)
      .Output("a")
      .Output("b")
      .Output("c");
  y = uneven.Run();
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ(FloatValues((*y)[2]), (std::vector<float>{6}));
}

// edgemond.ChannelShuffle (the layout pass's, from ShuffleNet's Reshape-Transpose-Reshape):
// channel i * per_group + j of each pixel goes to j * group + i. Two groups take an
// interleaving loop of their own, others the general one.
TEST(ChannelShuffleKernelTest, MovesEachChannelToItsPlace) {
  for (const std::int64_t group : {2, 3}) {
    const std::int64_t channels = 6 * group + (group == 2 ? 58 : 0);  // 70 or 18.
    const std::int64_t per_group = channels / group;
    OpTester shuffle("ChannelShuffle", 1, "edgemond");
    shuffle.Input("x", IotaTensor(Shape({1, 3, 2, channels}))).AttrInt("group", group).Output("y");
    Result<std::vector<Tensor>> y = shuffle.Run();
    ASSERT_TRUE(y.ok()) << y.status();
    const std::vector<float> values = FloatValues((*y)[0]);
    ASSERT_EQ(static_cast<std::int64_t>(values.size()), 6 * channels);
    for (std::int64_t p = 0; p < 6; ++p) {
      for (std::int64_t i = 0; i < group; ++i) {
        for (std::int64_t j = 0; j < per_group; ++j) {
          EXPECT_EQ(values[static_cast<std::size_t>(p * channels + j * group + i)],
                    static_cast<float>(p * channels + i * per_group + j))
              << "group " << group << " pixel " << p << " channel " << i * per_group + j;
        }
      }
    }
  }
}

TEST(SplitKernelTest, RefusesInconsistentSizes) {
  OpTester wrong_total("Split", 13);
  wrong_total.Input("x", IotaTensor(Shape({4})))
      .Constant("split", Int64Tensor(Shape({2}), {1, 2}))
      .Output("a")
      .Output("b");
  EXPECT_NE(wrong_total.Build().status().message().find("add up to 3"), std::string_view::npos);
  OpTester uneven("Split", 13);
  uneven.Input("x", IotaTensor(Shape({5}))).Output("a").Output("b");
  EXPECT_NE(uneven.Build().status().message().find("does not split evenly"),
            std::string_view::npos);
  OpTester negative("Split", 11);
  negative.Input("x", IotaTensor(Shape({4}))).AttrInts("split", {-1, 5}).Output("a").Output("b");
  EXPECT_EQ(negative.Build().status().code(), StatusCode::kInvalidArgument);
}

TEST(SqueezeKernelTest, RemovesUnitDimensions) {
  OpTester all("Squeeze", 13);
  all.Input("x", IotaTensor(Shape({1, 3, 1, 2}))).Output("y");
  Result<std::shared_ptr<const Model>> model = all.Build();
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_EQ((*model)->outputs()[0].info.shape, Shape({3, 2}));

  OpTester some("Squeeze", 13);
  some.Input("x", IotaTensor(Shape({1, 3, 1, 2})))
      .Constant("axes", Int64Tensor(Shape({1}), {-2}))
      .Output("y");
  model = some.Build();
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_EQ((*model)->outputs()[0].info.shape, Shape({1, 3, 2}));

  OpTester not_one("Squeeze", 11);
  not_one.Input("x", IotaTensor(Shape({1, 3}))).AttrInts("axes", {1}).Output("y");
  EXPECT_NE(not_one.Build().status().message().find("cannot squeeze dimension 1 of size 3"),
            std::string_view::npos);
}

TEST(ConstantOfShapeKernelTest, FillsTheValueAndRefusesAbsurdShapes) {
  Result<Tensor> value = Tensor::FromVector<std::int64_t>(Shape({1}), {7});
  OpTester test("ConstantOfShape", 20);
  test.Constant("shape", Int64Tensor(Shape({2}), {2, 3}))
      .AttrTensor("value", std::move(value).value())
      .Output("y");
  Result<std::vector<Tensor>> y = test.Run();
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ((*y)[0].dtype(), DataType::kInt64);
  EXPECT_EQ((*y)[0].values<std::int64_t>()[5], 7);

  OpTester negative("ConstantOfShape", 20);
  negative.Constant("shape", Int64Tensor(Shape({2}), {2, -3})).Output("y");
  EXPECT_NE(negative.Build().status().message().find("negative dimension"), std::string_view::npos);
  OpTester huge("ConstantOfShape", 20);
  huge.Constant("shape", Int64Tensor(Shape({2}), {1 << 30, 1 << 30})).Output("y");
  EXPECT_EQ(huge.Build().status().code(), StatusCode::kResourceExhausted);
}

TEST(ExpandKernelTest, BroadcastsBothWays) {
  OpTester test("Expand", 13);
  test.Input("x", FloatTensor(Shape({3, 1}), {1, 2, 3}))
      .Constant("shape", Int64Tensor(Shape({3}), {2, 1, 2}))
      .Output("y");
  Result<std::vector<Tensor>> y = test.Run();
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ((*y)[0].shape(), Shape({2, 3, 2}));
  EXPECT_EQ(FloatValues((*y)[0]), (std::vector<float>{1, 1, 2, 2, 3, 3, 1, 1, 2, 2, 3, 3}));

  OpTester incompatible("Expand", 13);
  incompatible.Input("x", FloatTensor(Shape({3}), {1, 2, 3}))
      .Constant("shape", Int64Tensor(Shape({1}), {2}))
      .Output("y");
  EXPECT_NE(incompatible.Build().status().message().find("do not broadcast"),
            std::string_view::npos);

  // Found by fuzzing: a requested shape whose strides overflow int64 is refused before any
  // stride is computed.
  OpTester absurd("Expand", 13);
  absurd.Input("x", FloatTensor(Shape({1}), {1}))
      .Constant("shape", Int64Tensor(Shape({3}), {std::int64_t{1} << 32, std::int64_t{1} << 32,
                                                  std::int64_t{1} << 32}))
      .Output("y");
  EXPECT_EQ(absurd.Build().status().code(), StatusCode::kResourceExhausted);
}

std::vector<float> Pad1D(const std::string& mode, std::vector<std::int64_t> pads) {
  OpTester test("Pad", 19);
  test.Input("x", FloatTensor(Shape({1, 4}), {1, 2, 3, 4}))
      .Constant("pads", Int64Tensor(Shape({4}), {0, pads[0], 0, pads[1]}))
      .AttrString("mode", mode)
      .Output("y");
  Result<std::vector<Tensor>> y = test.Run();
  EXPECT_TRUE(y.ok()) << y.status();
  return y.ok() ? FloatValues((*y)[0]) : std::vector<float>();
}

TEST(PadKernelTest, EveryModeAndCropping) {
  EXPECT_EQ(Pad1D("constant", {2, 1}), (std::vector<float>{0, 0, 1, 2, 3, 4, 0}));
  EXPECT_EQ(Pad1D("edge", {2, 1}), (std::vector<float>{1, 1, 1, 2, 3, 4, 4}));
  EXPECT_EQ(Pad1D("reflect", {3, 2}), (std::vector<float>{4, 3, 2, 1, 2, 3, 4, 3, 2}));
  EXPECT_EQ(Pad1D("wrap", {2, 3}), (std::vector<float>{3, 4, 1, 2, 3, 4, 1, 2, 3}));
  // Negative pads crop; the rest pads what is left.
  EXPECT_EQ(Pad1D("edge", {-1, 2}), (std::vector<float>{2, 3, 4, 4, 4}));

  OpTester value("Pad", 13);
  value.Input("x", FloatTensor(Shape({2}), {1, 2}))
      .Constant("pads", Int64Tensor(Shape({2}), {1, 1}))
      .Constant("value", FloatTensor(Shape({}), {9}))
      .Output("y");
  Result<std::vector<Tensor>> y = value.Run();
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ(FloatValues((*y)[0]), (std::vector<float>{9, 1, 2, 9}));
}

TEST(PadKernelTest, RefusesAbsurdPads) {
  OpTester huge("Pad", 13);
  huge.Input("x", FloatTensor(Shape({2}), {1, 2}))
      .Constant("pads", Int64Tensor(Shape({2}), {0, std::int64_t{1} << 62}))
      .Output("y");
  EXPECT_NE(huge.Build().status().message().find("out of range"), std::string_view::npos);
  OpTester crop("Pad", 13);
  crop.Input("x", FloatTensor(Shape({2}), {1, 2}))
      .Constant("pads", Int64Tensor(Shape({2}), {-2, -1}))
      .Output("y");
  EXPECT_EQ(crop.Build().status().code(), StatusCode::kInvalidArgument);
  OpTester count("Pad", 13);
  count.Input("x", FloatTensor(Shape({2}), {1, 2}))
      .Constant("pads", Int64Tensor(Shape({3}), {1, 1, 1}))
      .Output("y");
  EXPECT_NE(count.Build().status().message().find("pads has 3 values for 1 axes"),
            std::string_view::npos);
  OpTester reflect_empty("Pad", 13);
  reflect_empty.Input("x", FloatTensor(Shape({0}), {}))
      .Constant("pads", Int64Tensor(Shape({2}), {1, 1}))
      .AttrString("mode", "reflect")
      .Output("y");
  EXPECT_NE(reflect_empty.Build().status().message().find("cannot pad an empty dimension"),
            std::string_view::npos);
  OpTester wrap_old("Pad", 13);
  wrap_old.Input("x", FloatTensor(Shape({2}), {1, 2}))
      .Constant("pads", Int64Tensor(Shape({2}), {1, 1}))
      .AttrString("mode", "wrap")
      .Output("y");
  EXPECT_TRUE(wrap_old.Build().status().IsUnsupported());
}

}  // namespace
}  // namespace edgemond::engine
