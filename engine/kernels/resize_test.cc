#include "engine/kernels/resize.h"

#include <gtest/gtest.h>

#include "engine/testing/op_tester.h"

namespace edgemond::engine {
namespace {

using testing::FloatTensor;
using testing::FloatValues;
using testing::Int64Tensor;
using testing::OpTester;

// Resizes the 1x1x1x3 row {0, 10, 20} along its last dimension.
std::vector<float> ResizeRow(const std::string& mode, const std::string& coordinates,
                             std::int64_t size, const std::string& nearest = "") {
  OpTester test("Resize", 13);
  test.Input("x", FloatTensor(Shape({1, 1, 1, 3}), {0, 10, 20}))
      .OmittedInput()
      .OmittedInput()
      .Constant("sizes", Int64Tensor(Shape({4}), {1, 1, 1, size}))
      .AttrString("mode", mode)
      .AttrString("coordinate_transformation_mode", coordinates)
      .Output("y");
  if (!nearest.empty()) test.AttrString("nearest_mode", nearest);
  Result<std::vector<Tensor>> y = test.Run();
  EXPECT_TRUE(y.ok()) << y.status();
  return y.ok() ? FloatValues((*y)[0]) : std::vector<float>();
}

TEST(ResizeKernelTest, NearestModes) {
  // asymmetric, x / 2: 0, 0.5, 1, 1.5, 2, 2.5.
  EXPECT_EQ(ResizeRow("nearest", "asymmetric", 6, "floor"),
            (std::vector<float>{0, 0, 10, 10, 20, 20}));
  EXPECT_EQ(ResizeRow("nearest", "asymmetric", 6, "round_prefer_ceil"),
            (std::vector<float>{0, 10, 10, 20, 20, 20}));
  EXPECT_EQ(ResizeRow("nearest", "asymmetric", 6, "round_prefer_floor"),
            (std::vector<float>{0, 0, 10, 10, 20, 20}));
}

TEST(ResizeKernelTest, LinearCoordinateModes) {
  // align_corners: x * 2 / 4 = 0, 0.5, 1, 1.5, 2.
  EXPECT_EQ(ResizeRow("linear", "align_corners", 5), (std::vector<float>{0, 5, 10, 15, 20}));
  // half_pixel at scale 2: (x + 0.5) / 2 - 0.5 = -0.25, 0.25, ..., 2.25, clamped at the edges.
  EXPECT_EQ(ResizeRow("linear", "half_pixel", 6),
            (std::vector<float>{0, 2.5f, 7.5f, 12.5f, 17.5f, 20}));
  // pytorch_half_pixel differs only for a one-element output (position -0.5: the edge).
  EXPECT_EQ(ResizeRow("linear", "pytorch_half_pixel", 1), (std::vector<float>{0}));
  EXPECT_EQ(ResizeRow("linear", "half_pixel", 1), (std::vector<float>{10}));
}

TEST(ResizeKernelTest, ScalesFloorTheOutputSize) {
  OpTester test("Resize", 13);
  test.Input("x", testing::IotaTensor(Shape({1, 1, 3, 3})))
      .OmittedInput()
      .Constant("scales", FloatTensor(Shape({4}), {1, 1, 1.5f, 0.7f}))
      .AttrString("mode", "linear")
      .Output("y");
  Result<std::shared_ptr<const Model>> model = test.Build();
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_EQ((*model)->outputs()[0].info.shape, Shape({1, 1, 4, 2}));
}

TEST(ResizeKernelTest, UpsampleRepeatsElements) {
  OpTester test("Upsample", 7);
  test.Input("x", FloatTensor(Shape({1, 2}), {1, 2})).AttrFloats("scales", {2, 3}).Output("y");
  Result<std::vector<Tensor>> y = test.Run();
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ((*y)[0].shape(), Shape({2, 6}));
  EXPECT_EQ(FloatValues((*y)[0]), (std::vector<float>{1, 1, 1, 2, 2, 2, 1, 1, 1, 2, 2, 2}));
}

TEST(ResizeKernelTest, RefusesWhatItCannotPlan) {
  const auto with_scales = [](std::vector<float> scales) {
    OpTester test("Resize", 13);
    test.Input("x", testing::IotaTensor(Shape({1, 1, 2, 2})))
        .OmittedInput()
        .Constant("scales", FloatTensor(Shape({4}), std::move(scales)))
        .Output("y");
    return test.Build().status();
  };
  EXPECT_EQ(with_scales({1, 1, 1e30f, 1}).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(with_scales({1, 1, -2, 1}).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(with_scales({1, 1, 1e9f, 1e9f}).code(), StatusCode::kResourceExhausted);

  OpTester run_time("Resize", 13);
  run_time.Input("x", testing::IotaTensor(Shape({1, 1, 2, 2})))
      .OmittedInput()
      .Input("scales", FloatTensor(Shape({4}), {1, 1, 2, 2}))
      .Output("y");
  EXPECT_TRUE(run_time.Build().status().IsUnsupported());

  OpTester both("Resize", 13);
  both.Input("x", testing::IotaTensor(Shape({1, 1, 2, 2})))
      .OmittedInput()
      .Constant("scales", FloatTensor(Shape({4}), {1, 1, 2, 2}))
      .Constant("sizes", Int64Tensor(Shape({4}), {1, 1, 4, 4}))
      .Output("y");
  EXPECT_NE(both.Build().status().message().find("exactly one of scales and sizes"),
            std::string_view::npos);

  OpTester mode("Resize", 13);
  mode.Input("x", testing::IotaTensor(Shape({1, 1, 2, 2})))
      .OmittedInput()
      .Constant("scales", FloatTensor(Shape({4}), {1, 1, 2, 2}))
      .AttrString("mode", "lanczos")
      .Output("y");
  EXPECT_EQ(mode.Build().status().message(),
            "node 'node' (Resize, opset 13): mode 'lanczos' is not supported");
}

}  // namespace
}  // namespace edgemond::engine
