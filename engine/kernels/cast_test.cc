#include "engine/kernels/cast.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "engine/testing/op_tester.h"

namespace edgemond::engine {
namespace {

using testing::FloatTensor;
using testing::OpTester;

Result<std::vector<Tensor>> Cast(Tensor x, int to) {
  OpTester test("Cast", 13);
  test.Input("x", std::move(x)).AttrInt("to", to).Output("y");
  return test.Run();
}

TEST(CastKernelTest, FloatToIntegerTruncatesAndSaturates) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  Result<std::vector<Tensor>> y =
      Cast(FloatTensor(Shape({6}), {2.7f, -2.7f, 300.0f, -300.0f, nan, -inf}), /*INT8=*/3);
  ASSERT_TRUE(y.ok()) << y.status();
  const std::span<const std::int8_t> values = (*y)[0].values<std::int8_t>();
  EXPECT_EQ(std::vector<int>(values.begin(), values.end()),
            (std::vector<int>{2, -2, 127, -128, 0, -128}));
}

TEST(CastKernelTest, Float16RoundTripsAndRounds) {
  // 1 + 2^-11 is halfway between two halves: ties go to even (1.0).
  const std::vector<float> in = {0.0f, -1.5f, 65504.0f, 1e-7f, 1.0f + 1.0f / 2048, 70000.0f};
  Result<std::vector<Tensor>> half = Cast(FloatTensor(Shape({6}), in), /*FLOAT16=*/10);
  ASSERT_TRUE(half.ok()) << half.status();
  Result<std::vector<Tensor>> back = Cast(std::move((*half)[0]), /*FLOAT=*/1);
  ASSERT_TRUE(back.ok()) << back.status();
  const std::span<const float> out = (*back)[0].values<float>();
  EXPECT_EQ(out[0], 0.0f);
  EXPECT_EQ(out[1], -1.5f);
  EXPECT_EQ(out[2], 65504.0f);
  EXPECT_NEAR(out[3], 1.19e-7f, 1e-9f);  // Subnormal half.
  EXPECT_EQ(out[4], 1.0f);
  EXPECT_TRUE(std::isinf(out[5]));
}

TEST(CastKernelTest, ToBoolIsNonZero) {
  Result<std::vector<Tensor>> y = Cast(FloatTensor(Shape({3}), {0.0f, -0.5f, 2.0f}), /*BOOL=*/9);
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_FALSE((*y)[0].values<bool>()[0]);
  EXPECT_TRUE((*y)[0].values<bool>()[1]);
  EXPECT_TRUE((*y)[0].values<bool>()[2]);
}

TEST(CastKernelTest, RefusesStrings) {
  const Status status = Cast(FloatTensor(Shape({1}), {1.0f}), /*STRING=*/8).status();
  EXPECT_TRUE(status.IsUnsupported());
  EXPECT_NE(status.message().find("STRING"), std::string_view::npos);
}

}  // namespace
}  // namespace edgemond::engine
