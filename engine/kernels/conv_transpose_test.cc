#include "engine/kernels/conv_transpose.h"

#include <gtest/gtest.h>

#include <cmath>

#include "engine/benchmark.h"
#include "engine/testing/op_tester.h"

namespace edgemond::engine {
namespace {

using testing::FloatTensor;
using testing::OpTester;

struct Case {
  std::string name;
  std::vector<std::int64_t> x;  // N, C, H, W
  std::vector<std::int64_t> w;  // C, M/group, kH, kW
  std::int64_t group;
  std::vector<std::int64_t> strides, dilations, pads, output_padding;
};

// An independent oracle: each output element gathers the input elements whose scatter lands on
// it, o = i * stride + k * dilation - pad, written from the output's side.
std::vector<float> Naive(const Tensor& x, const Tensor& w, const Tensor& b, const Case& c,
                         std::int64_t out_h, std::int64_t out_w) {
  const std::int64_t n = c.x[0], channels = c.x[1], height = c.x[2], width = c.x[3];
  const std::int64_t per_group_out = c.w[1], kh = c.w[2], kw = c.w[3];
  const std::int64_t per_group_in = channels / c.group;
  const std::int64_t m = per_group_out * c.group;
  std::vector<float> y;
  for (std::int64_t in = 0; in < n; ++in) {
    for (std::int64_t om = 0; om < m; ++om) {
      const std::int64_t g = om / per_group_out;
      for (std::int64_t oy = 0; oy < out_h; ++oy) {
        for (std::int64_t ox = 0; ox < out_w; ++ox) {
          double sum = b.values<float>()[static_cast<std::size_t>(om)];
          for (std::int64_t ic = g * per_group_in; ic < (g + 1) * per_group_in; ++ic) {
            for (std::int64_t ky = 0; ky < kh; ++ky) {
              for (std::int64_t kx = 0; kx < kw; ++kx) {
                const std::int64_t ty = oy + c.pads[0] - ky * c.dilations[0];
                const std::int64_t tx = ox + c.pads[1] - kx * c.dilations[1];
                if (ty < 0 || tx < 0 || ty % c.strides[0] != 0 || tx % c.strides[1] != 0) {
                  continue;
                }
                const std::int64_t iy = ty / c.strides[0], ix = tx / c.strides[1];
                if (iy >= height || ix >= width) continue;
                sum += static_cast<double>(x.values<float>()[static_cast<std::size_t>(
                           ((in * channels + ic) * height + iy) * width + ix)]) *
                       w.values<float>()[static_cast<std::size_t>(
                           ((ic * per_group_out + om % per_group_out) * kh + ky) * kw + kx)];
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

class ConvTransposeTest : public ::testing::TestWithParam<Case> {};

TEST_P(ConvTransposeTest, MatchesTheGatherFormula) {
  const Case& c = GetParam();
  Tensor x = *MakeDeterministicTensor({DataType::kFloat32, Shape(c.x)}, 1);
  Tensor w = *MakeDeterministicTensor({DataType::kFloat32, Shape(c.w)}, 2);
  Tensor b = *MakeDeterministicTensor({DataType::kFloat32, Shape({c.w[1] * c.group})}, 3);
  OpTester test("ConvTranspose", 11);
  test.Input("x", *Tensor::CopyOf(x.view()))
      .Constant("w", *Tensor::CopyOf(w.view()))
      .Constant("b", *Tensor::CopyOf(b.view()))
      .AttrInt("group", c.group)
      .AttrInts("strides", c.strides)
      .AttrInts("dilations", c.dilations)
      .AttrInts("pads", c.pads)
      .AttrInts("output_padding", c.output_padding)
      .Output("y");
  Result<std::vector<Tensor>> y = test.Run();
  ASSERT_TRUE(y.ok()) << y.status();
  const Shape& shape = (*y)[0].shape();
  for (int i = 0; i < 2; ++i) {
    const std::int64_t expected = c.strides[i] * (c.x[2 + i] - 1) + c.output_padding[i] +
                                  (c.w[2 + i] - 1) * c.dilations[i] + 1 - c.pads[i] - c.pads[2 + i];
    EXPECT_EQ(shape.dim(2 + i), expected);
  }
  const std::vector<float> expected = Naive(x, w, b, c, shape.dim(2), shape.dim(3));
  ASSERT_EQ(static_cast<std::size_t>((*y)[0].num_elements()), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_NEAR((*y)[0].values<float>()[i], expected[i],
                1e-5f * std::max(1.0f, std::fabs(expected[i])))
        << "element " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, ConvTransposeTest,
    ::testing::Values(
        Case{"Plain", {1, 2, 4, 3}, {2, 3, 3, 3}, 1, {1, 1}, {1, 1}, {0, 0, 0, 0}, {0, 0}},
        Case{"Stride2Padded", {2, 3, 5, 4}, {3, 2, 4, 4}, 1, {2, 2}, {1, 1}, {1, 1, 1, 1}, {1, 0}},
        Case{"Grouped", {1, 4, 3, 3}, {4, 3, 2, 3}, 2, {3, 2}, {1, 1}, {0, 1, 2, 0}, {2, 1}},
        Case{"DepthwiseDilated",
             {1, 3, 4, 4},
             {3, 1, 3, 3},
             3,
             {1, 2},
             {2, 2},
             {1, 0, 1, 0},
             {1, 0}}),
    [](const ::testing::TestParamInfo<Case>& param) { return param.param.name; });

TEST(ConvTransposeKernelTest, SameUpperKeepsStrideTimesInput) {
  OpTester test("ConvTranspose", 11);
  test.Input("x", testing::IotaTensor(Shape({1, 1, 3, 3})))
      .Constant("w", FloatTensor(Shape({1, 1, 3, 3}), std::vector<float>(9, 1.0f)))
      .AttrString("auto_pad", "SAME_UPPER")
      .AttrInts("strides", {2, 2})
      .Output("y");
  Result<std::shared_ptr<const Model>> model = test.Build();
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_EQ((*model)->outputs()[0].info.shape, Shape({1, 1, 6, 6}));
}

TEST(ConvTransposeKernelTest, RefusesAbsurdAttributes) {
  const auto build = [](const std::string& name, std::vector<std::int64_t> values) {
    OpTester test("ConvTranspose", 11);
    test.Input("x", testing::IotaTensor(Shape({1, 1, 3, 3})))
        .Constant("w", testing::IotaTensor(Shape({1, 1, 2, 2})))
        .AttrInts(name, std::move(values))
        .Output("y");
    return test.Build().status();
  };
  EXPECT_EQ(build("strides", {std::int64_t{1} << 40, 1}).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(build("output_padding", {3, 0}).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(build("output_shape", {-1, 4}).code(), StatusCode::kInvalidArgument);
  EXPECT_NE(build("pads", {9, 9, 9, 9}).message().find("negative size"), std::string_view::npos);
  OpTester channels("ConvTranspose", 11);
  channels.Input("x", testing::IotaTensor(Shape({1, 2, 3, 3})))
      .Constant("w", testing::IotaTensor(Shape({3, 1, 2, 2})))
      .Output("y");
  EXPECT_NE(channels.Build().status().message().find("do not match 2 input channels"),
            std::string_view::npos);
}

}  // namespace
}  // namespace edgemond::engine
