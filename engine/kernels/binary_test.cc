#include "engine/kernels/binary.h"

#include <gtest/gtest.h>

#include <limits>

#include "engine/testing/op_tester.h"

namespace edgemond::engine {
namespace {

using testing::FloatTensor;
using testing::Int64Tensor;
using testing::OpTester;

Result<std::vector<Tensor>> Binary(const std::string& op, Tensor a, Tensor b) {
  OpTester test(op, 14);
  test.Input("a", std::move(a)).Input("b", std::move(b)).Output("y");
  return test.Run();
}

TEST(BinaryKernelTest, BroadcastsBothWays) {
  // [2, 1] + [3] -> [2, 3].
  Result<std::vector<Tensor>> y =
      Binary("Add", FloatTensor(Shape({2, 1}), {10, 20}), FloatTensor(Shape({3}), {1, 2, 3}));
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ((*y)[0].shape(), Shape({2, 3}));
  const std::span<const float> v = (*y)[0].values<float>();
  EXPECT_EQ(std::vector<float>(v.begin(), v.end()), (std::vector<float>{11, 12, 13, 21, 22, 23}));
  EXPECT_FALSE(
      Binary("Mul", FloatTensor(Shape({2}), {1, 2}), FloatTensor(Shape({3}), {1, 2, 3})).ok());
}

TEST(BinaryKernelTest, IntegerDivisionTruncatesAndRefusesZero) {
  Result<std::vector<Tensor>> y =
      Binary("Div", Int64Tensor(Shape({4}), {7, -7, std::numeric_limits<std::int64_t>::min(), 9}),
             Int64Tensor(Shape({4}), {2, 2, -1, -4}));
  ASSERT_TRUE(y.ok()) << y.status();
  const std::span<const std::int64_t> v = (*y)[0].values<std::int64_t>();
  EXPECT_EQ(v[0], 3);
  EXPECT_EQ(v[1], -3);
  EXPECT_EQ(v[2], std::numeric_limits<std::int64_t>::min());  // Wraps instead of trapping.
  EXPECT_EQ(v[3], -2);
  const Status zero =
      Binary("Div", Int64Tensor(Shape({1}), {1}), Int64Tensor(Shape({1}), {0})).status();
  EXPECT_EQ(zero.message(), "node 'node' (Div): integer division by zero");
}

TEST(BinaryKernelTest, IntegerOverflowWraps) {
  Result<std::vector<Tensor>> y =
      Binary("Mul", Int64Tensor(Shape({1}), {std::numeric_limits<std::int64_t>::max()}),
             Int64Tensor(Shape({1}), {2}));
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ((*y)[0].values<std::int64_t>()[0], -2);
}

TEST(BinaryKernelTest, RefusesMixedTypes) {
  EXPECT_EQ(
      Binary("Sub", FloatTensor(Shape({1}), {1}), Int64Tensor(Shape({1}), {1})).status().code(),
      StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace edgemond::engine
