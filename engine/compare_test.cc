#include "engine/compare.h"

#include <gtest/gtest.h>

#include <cmath>

#include "engine/testing/op_tester.h"

namespace edgemond::engine {
namespace {

using testing::FloatTensor;

TEST(CompareTest, ToleranceScalesWithLargeValues) {
  const Tensor expected = FloatTensor(Shape({1, 3}), {80.0f, 0.5f, -2.0f});
  const Tensor close = FloatTensor(Shape({1, 3}), {80.006f, 0.50009f, -2.0001f});
  const Comparison ok = CompareTensors(close.view(), expected.view(), Tolerance{});
  EXPECT_TRUE(ok.ok()) << ok.detail;
  EXPECT_NEAR(ok.max_abs_error, 0.006, 1e-5);

  const Tensor far = FloatTensor(Shape({1, 3}), {80.0f, 0.5002f, -2.0f});
  const Comparison bad = CompareTensors(far.view(), expected.view(), Tolerance{});
  EXPECT_FALSE(bad.ok());
  EXPECT_EQ(bad.mismatches, 1);
  EXPECT_NE(bad.detail.find("element 1"), std::string::npos);
}

TEST(CompareTest, DetectsTop1ChangesAndNaN) {
  const Tensor expected = FloatTensor(Shape({1, 2}), {1.0f, 1.00001f});
  const Tensor swapped = FloatTensor(Shape({1, 2}), {1.00001f, 1.0f});
  const Comparison comparison = CompareTensors(swapped.view(), expected.view(), Tolerance{});
  EXPECT_EQ(comparison.mismatches, 0);
  EXPECT_FALSE(comparison.top1_match);
  EXPECT_FALSE(comparison.ok());

  const Tensor nan = FloatTensor(Shape({2}), {NAN, 1.0f});
  const Tensor one = FloatTensor(Shape({2}), {1.0f, 1.0f});
  EXPECT_FALSE(CompareTensors(nan.view(), one.view(), Tolerance{}).ok());
  EXPECT_TRUE(CompareTensors(nan.view(), nan.view(), Tolerance{}).ok());
}

TEST(CompareTest, OnnxFormAndExactIntegers) {
  const Tolerance onnx{1e-3, 1e-7, /*floor_one=*/false, /*check_top1=*/false};
  const Tensor expected = FloatTensor(Shape({2}), {1e-6f, 100.0f});
  const Tensor actual = FloatTensor(Shape({2}), {1.05e-6f, 100.09f});
  EXPECT_TRUE(CompareTensors(actual.view(), expected.view(), onnx).ok());
  const Tensor off = FloatTensor(Shape({2}), {2e-6f, 100.0f});
  EXPECT_FALSE(CompareTensors(off.view(), expected.view(), onnx).ok());

  const Tensor a = testing::Int64Tensor(Shape({2}), {1, 2});
  const Tensor b = testing::Int64Tensor(Shape({2}), {1, 3});
  EXPECT_EQ(CompareTensors(a.view(), b.view(), onnx).mismatches, 1);
  EXPECT_FALSE(CompareTensors(a.view(), expected.view(), onnx).same_type_and_shape);
}

}  // namespace
}  // namespace edgemond::engine
