#include "engine/kernels/conv.h"

#include <gtest/gtest.h>

#include <cmath>

#include "engine/benchmark.h"
#include "engine/testing/op_tester.h"

namespace edgemond::engine {
namespace {

using testing::OpTester;

struct ConvCase {
  std::string name;
  std::vector<std::int64_t> x;  // N, C, H, W
  std::vector<std::int64_t> w;  // M, C/group, kH, kW
  std::int64_t group;
  std::vector<std::int64_t> strides, dilations, pads;  // pads: top, left, bottom, right
  std::string auto_pad;
};

// An independent 2-D oracle: the textbook formula, one output at a time, bounds-checked.
std::vector<float> NaiveConv(const Tensor& x, const Tensor& w, const Tensor& b, const ConvCase& c,
                             std::int64_t out_h, std::int64_t out_w, std::int64_t pad_top,
                             std::int64_t pad_left) {
  const std::int64_t n = c.x[0], channels = c.x[1], height = c.x[2], width = c.x[3];
  const std::int64_t m = c.w[0], kh = c.w[2], kw = c.w[3];
  const std::int64_t per_group = channels / c.group;
  std::vector<float> y;
  for (std::int64_t in = 0; in < n; ++in) {
    for (std::int64_t om = 0; om < m; ++om) {
      const std::int64_t g = om / (m / c.group);
      for (std::int64_t oy = 0; oy < out_h; ++oy) {
        for (std::int64_t ox = 0; ox < out_w; ++ox) {
          double sum = b.values<float>()[static_cast<std::size_t>(om)];
          for (std::int64_t ic = 0; ic < per_group; ++ic) {
            for (std::int64_t ky = 0; ky < kh; ++ky) {
              for (std::int64_t kx = 0; kx < kw; ++kx) {
                const std::int64_t iy = oy * c.strides[0] + ky * c.dilations[0] - pad_top;
                const std::int64_t ix = ox * c.strides[1] + kx * c.dilations[1] - pad_left;
                if (iy < 0 || iy >= height || ix < 0 || ix >= width) continue;
                const std::int64_t channel = g * per_group + ic;
                sum += static_cast<double>(x.values<float>()[static_cast<std::size_t>(
                           ((in * channels + channel) * height + iy) * width + ix)]) *
                       w.values<float>()[static_cast<std::size_t>(
                           ((om * per_group + ic) * kh + ky) * kw + kx)];
              }
            }
          }
          y.push_back(static_cast<float>(sum));
        }
      }
    }
  }
  return y;
}

class ConvTest : public ::testing::TestWithParam<ConvCase> {};

TEST_P(ConvTest, MatchesTheTextbookFormula) {
  const ConvCase& c = GetParam();
  Tensor x = *MakeDeterministicTensor({DataType::kFloat32, Shape(c.x)}, 1);
  Tensor w = *MakeDeterministicTensor({DataType::kFloat32, Shape(c.w)}, 2);
  Tensor b = *MakeDeterministicTensor({DataType::kFloat32, Shape({c.w[0]})}, 3);
  OpTester test("Conv", 13);
  test.Input("x", *Tensor::CopyOf(x.view()))
      .Constant("w", *Tensor::CopyOf(w.view()))
      .Constant("b", *Tensor::CopyOf(b.view()))
      .Output("y")
      .AttrInt("group", c.group)
      .AttrInts("strides", c.strides)
      .AttrInts("dilations", c.dilations);
  if (c.auto_pad.empty()) {
    test.AttrInts("pads", c.pads);
  } else {
    test.AttrString("auto_pad", c.auto_pad);
  }
  Result<std::vector<Tensor>> y = test.Run();
  ASSERT_TRUE(y.ok()) << y.status();
  const Shape& shape = (*y)[0].shape();
  ASSERT_EQ(shape.rank(), 4);
  const std::int64_t out_h = shape.dim(2), out_w = shape.dim(3);
  std::int64_t pad_top = c.pads.empty() ? 0 : c.pads[0];
  std::int64_t pad_left = c.pads.empty() ? 0 : c.pads[1];
  if (c.auto_pad == "SAME_UPPER" || c.auto_pad == "SAME_LOWER") {
    // Expected sizes: ceil(in / stride); the total padding split as ONNX says.
    EXPECT_EQ(out_h, (c.x[2] + c.strides[0] - 1) / c.strides[0]);
    const auto total = [&](int axis) {
      const std::int64_t span = (c.w[2 + axis] - 1) * c.dilations[axis] + 1;
      return std::max<std::int64_t>(
          0, (shape.dim(2 + axis) - 1) * c.strides[axis] + span - c.x[2 + axis]);
    };
    pad_top = c.auto_pad == "SAME_UPPER" ? total(0) / 2 : total(0) - total(0) / 2;
    pad_left = c.auto_pad == "SAME_UPPER" ? total(1) / 2 : total(1) - total(1) / 2;
  }
  const std::vector<float> expected = NaiveConv(x, w, b, c, out_h, out_w, pad_top, pad_left);
  ASSERT_EQ(static_cast<std::size_t>((*y)[0].num_elements()), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_NEAR((*y)[0].values<float>()[i], expected[i],
                1e-5f * std::max(1.0f, std::fabs(expected[i])))
        << "element " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, ConvTest,
    ::testing::Values(
        ConvCase{"Dense3x3", {1, 3, 9, 7}, {4, 3, 3, 3}, 1, {1, 1}, {1, 1}, {1, 1, 1, 1}, ""},
        ConvCase{"Stride2AsymmetricPads",
                 {2, 2, 10, 9},
                 {3, 2, 3, 3},
                 1,
                 {2, 2},
                 {1, 1},
                 {0, 1, 2, 0},
                 ""},
        ConvCase{"Depthwise", {1, 6, 8, 8}, {6, 1, 3, 3}, 6, {1, 1}, {1, 1}, {1, 1, 1, 1}, ""},
        ConvCase{
            "DepthwiseDilated", {1, 4, 11, 10}, {4, 1, 3, 3}, 4, {1, 2}, {2, 3}, {2, 3, 2, 3}, ""},
        ConvCase{"Grouped", {1, 4, 6, 6}, {6, 2, 2, 3}, 2, {1, 1}, {1, 1}, {0, 0, 0, 0}, ""},
        ConvCase{
            "SameUpperStride2", {1, 2, 7, 8}, {2, 2, 4, 3}, 1, {2, 2}, {1, 1}, {}, "SAME_UPPER"},
        ConvCase{
            "SameLowerStride2", {1, 2, 7, 8}, {2, 2, 4, 3}, 1, {2, 2}, {1, 1}, {}, "SAME_LOWER"},
        ConvCase{"Valid", {1, 1, 5, 5}, {1, 1, 2, 2}, 1, {2, 2}, {1, 1}, {}, "VALID"},
        ConvCase{"Pointwise", {1, 8, 4, 4}, {5, 8, 1, 1}, 1, {1, 1}, {1, 1}, {0, 0, 0, 0}, ""}),
    [](const ::testing::TestParamInfo<ConvCase>& param) { return param.param.name; });

TEST(ConvKernelTest, OneAndThreeDimensional) {
  // 1-D: a moving sum of three.
  OpTester one("Conv", 13);
  one.Input("x", testing::FloatTensor(Shape({1, 1, 5}), {1, 2, 3, 4, 5}))
      .Constant("w", testing::FloatTensor(Shape({1, 1, 3}), {1, 1, 1}))
      .Output("y");
  Result<std::vector<Tensor>> y = one.Run();
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ((*y)[0].shape(), Shape({1, 1, 3}));
  EXPECT_EQ((*y)[0].values<float>()[2], 12.0f);

  // 3-D: a 2x2x2 box sum of ones with padding 1 counts the in-range taps.
  OpTester three("Conv", 13);
  three.Input("x", testing::FloatTensor(Shape({1, 1, 2, 2, 2}), std::vector<float>(8, 1.0f)))
      .Constant("w", testing::FloatTensor(Shape({1, 1, 2, 2, 2}), std::vector<float>(8, 1.0f)))
      .AttrInts("pads", {1, 1, 1, 1, 1, 1})
      .Output("y");
  y = three.Run();
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ((*y)[0].shape(), Shape({1, 1, 3, 3, 3}));
  EXPECT_EQ((*y)[0].values<float>()[0], 1.0f);   // Corner: one tap inside.
  EXPECT_EQ((*y)[0].values<float>()[13], 8.0f);  // Centre: all eight.
}

TEST(ConvKernelTest, RefusesInconsistentShapes) {
  OpTester test("Conv", 13);
  test.Input("x", testing::IotaTensor(Shape({1, 3, 4, 4})))
      .Constant("w", testing::IotaTensor(Shape({2, 2, 3, 3})))
      .Output("y");
  const Status status = test.Build().status();
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find("do not match 3 input channels"), std::string_view::npos);

  OpTester too_small("Conv", 13);
  too_small.Input("x", testing::IotaTensor(Shape({1, 1, 2, 2})))
      .Constant("w", testing::IotaTensor(Shape({1, 1, 3, 3})))
      .Output("y");
  EXPECT_NE(too_small.Build().status().message().find("does not fit"), std::string_view::npos);
}

}  // namespace
}  // namespace edgemond::engine
