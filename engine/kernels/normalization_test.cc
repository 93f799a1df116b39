// LayerNormalization, LRN, LogSoftmax, GlobalMaxPool and the Reduce* kernels against
// hand-computed values.

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "engine/testing/op_tester.h"

namespace edgemond::engine {
namespace {

using testing::FloatTensor;
using testing::FloatValues;
using testing::Int64Tensor;
using testing::OpTester;

TEST(LayerNormalizationKernelTest, NormalizesRowsAndReportsStatistics) {
  OpTester test("LayerNormalization", 17);
  test.Input("x", FloatTensor(Shape({2, 2, 2}), {1, 2, 3, 4, -1, -1, -1, 7}))
      .Constant("scale", FloatTensor(Shape({2}), {1, 2}))
      .Constant("bias", FloatTensor(Shape({2}), {0, 1}))
      .AttrInt("axis", 1)
      .AttrFloat("epsilon", 0.0f)
      .Output("y")
      .Output("mean")
      .Output("inv_std");
  Result<std::vector<Tensor>> y = test.Run();
  ASSERT_TRUE(y.ok()) << y.status();
  // Row 0: mean 2.5, variance 1.25. Row 1: mean 1, variance 12.
  const float s0 = 1.0f / std::sqrt(1.25f);
  const float s1 = 1.0f / std::sqrt(12.0f);
  const std::vector<float> v = FloatValues((*y)[0]);
  EXPECT_FLOAT_EQ(v[0], -1.5f * s0);
  EXPECT_FLOAT_EQ(v[1], -0.5f * s0 * 2 + 1);
  EXPECT_FLOAT_EQ(v[7], 6 * s1 * 2 + 1);
  EXPECT_EQ((*y)[1].shape(), Shape({2, 1, 1}));
  EXPECT_EQ(FloatValues((*y)[1]), (std::vector<float>{2.5f, 1}));
  EXPECT_FLOAT_EQ(FloatValues((*y)[2])[1], s1);
}

TEST(LayerNormalizationKernelTest, RefusesScalesThatDoNotFit) {
  OpTester test("LayerNormalization", 17);
  test.Input("x", FloatTensor(Shape({2, 3}), {1, 2, 3, 4, 5, 6}))
      .Constant("scale", FloatTensor(Shape({2}), {1, 2}))
      .Output("y");
  EXPECT_NE(test.Build().status().message().find("does not broadcast to the normalized shape 3"),
            std::string_view::npos);
}

TEST(LrnKernelTest, SumsSquaresOverNeighbouringChannels) {
  OpTester test("LRN", 13);
  test.Input("x", FloatTensor(Shape({1, 3, 1, 1}), {1, 2, 3}))
      .AttrInt("size", 3)
      .AttrFloat("alpha", 3.0f)
      .AttrFloat("beta", 1.0f)
      .AttrFloat("bias", 1.0f)
      .Output("y");
  Result<std::vector<Tensor>> y = test.Run();
  ASSERT_TRUE(y.ok()) << y.status();
  // Channel 0 sees channels 0-1 (1 + 4), channel 1 all three (14), channel 2 channels 1-2 (13).
  const std::vector<float> v = FloatValues((*y)[0]);
  EXPECT_FLOAT_EQ(v[0], 1.0f / (1 + 5));
  EXPECT_FLOAT_EQ(v[1], 2.0f / (1 + 14));
  EXPECT_FLOAT_EQ(v[2], 3.0f / (1 + 13));

  OpTester zero("LRN", 13);
  zero.Input("x", FloatTensor(Shape({1, 3, 1, 1}), {1, 2, 3})).AttrInt("size", 0).Output("y");
  EXPECT_EQ(zero.Build().status().code(), StatusCode::kInvalidArgument);
}

TEST(LogSoftmaxKernelTest, StableForLargeInputs) {
  OpTester test("LogSoftmax", 13);
  test.Input("x", FloatTensor(Shape({1, 3}), {1000, 1001, 1002})).Output("y");
  Result<std::vector<Tensor>> y = test.Run();
  ASSERT_TRUE(y.ok()) << y.status();
  const double log_sum = std::log(std::exp(-2.0) + std::exp(-1.0) + 1.0);
  EXPECT_NEAR(FloatValues((*y)[0])[2], -log_sum, 1e-6);
  EXPECT_NEAR(FloatValues((*y)[0])[0], -2 - log_sum, 1e-6);
}

TEST(GlobalMaxPoolKernelTest, MaximumPerChannel) {
  OpTester test("GlobalMaxPool", 1);
  test.Input("x", FloatTensor(Shape({1, 2, 2, 2}), {1, 5, -3, 2, -7, -8, -2, -9})).Output("y");
  Result<std::vector<Tensor>> y = test.Run();
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ((*y)[0].shape(), Shape({1, 2, 1, 1}));
  EXPECT_EQ(FloatValues((*y)[0]), (std::vector<float>{5, -2}));
}

TEST(ReduceKernelTest, SumMaxAndMeanOverAxes) {
  const auto run = [](const std::string& op, int opset, bool axes_input, std::int64_t keepdims) {
    OpTester test(op, opset);
    test.Input("x", FloatTensor(Shape({2, 3}), {1, 5, 3, -4, 2, 6})).AttrInt("keepdims", keepdims);
    if (axes_input) {
      test.Constant("axes", Int64Tensor(Shape({1}), {-1}));
    } else {
      test.AttrInts("axes", {1});
    }
    test.Output("y");
    Result<std::vector<Tensor>> y = test.Run();
    EXPECT_TRUE(y.ok()) << y.status();
    return *std::move(y);
  };
  std::vector<Tensor> y = run("ReduceSum", 13, true, 0);
  EXPECT_EQ(y[0].shape(), Shape({2}));
  EXPECT_EQ(FloatValues(y[0]), (std::vector<float>{9, 4}));
  y = run("ReduceSum", 11, false, 1);
  EXPECT_EQ(y[0].shape(), Shape({2, 1}));
  EXPECT_EQ(FloatValues(run("ReduceMax", 18, true, 1)[0]), (std::vector<float>{5, 6}));
  EXPECT_EQ(FloatValues(run("ReduceMax", 13, false, 1)[0]), (std::vector<float>{5, 6}));
  EXPECT_EQ(FloatValues(run("ReduceMean", 18, true, 0)[0]), (std::vector<float>{3, 4.0f / 3}));
}

TEST(ReduceKernelTest, EmptySetsAndPassThrough) {
  OpTester sum("ReduceSum", 13);
  sum.Input("x", FloatTensor(Shape({2, 0}), {}))
      .Constant("axes", Int64Tensor(Shape({1}), {1}))
      .Output("y");
  Result<std::vector<Tensor>> y = sum.Run();
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ(FloatValues((*y)[0]), (std::vector<float>{0, 0}));

  OpTester max("ReduceMax", 18);
  max.Input("x", FloatTensor(Shape({2, 0}), {}))
      .Constant("axes", Int64Tensor(Shape({1}), {1}))
      .Output("y");
  y = max.Run();
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ(FloatValues((*y)[0])[0], -std::numeric_limits<float>::infinity());

  OpTester noop("ReduceSum", 13);
  noop.Input("x", FloatTensor(Shape({2}), {1, 2}))
      .Constant("axes", Int64Tensor(Shape({0}), {}))
      .AttrInt("noop_with_empty_axes", 1)
      .Output("y");
  y = noop.Run();
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ(FloatValues((*y)[0]), (std::vector<float>{1, 2}));

  OpTester integer("ReduceSum", 13);
  integer.Input("x", Int64Tensor(Shape({3}), {std::numeric_limits<std::int64_t>::max(), 1, 1}))
      .Output("y");
  y = integer.Run();
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ((*y)[0].values<std::int64_t>()[0], std::numeric_limits<std::int64_t>::min() + 1);

  OpTester bad_axis("ReduceMax", 13);
  bad_axis.Input("x", FloatTensor(Shape({2}), {1, 2})).AttrInts("axes", {3}).Output("y");
  EXPECT_NE(bad_axis.Build().status().message().find("out of range for rank 1"),
            std::string_view::npos);
}

}  // namespace
}  // namespace edgemond::engine
