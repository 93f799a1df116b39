// MaxPool's Indices output, storage orders and byte types against hand-computed values.

#include "engine/kernels/max_pool.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <limits>

#include "engine/testing/op_tester.h"

namespace edgemond::engine {
namespace {

using testing::FloatTensor;
using testing::FloatValues;
using testing::OpTester;

std::vector<std::int64_t> Int64Values(const Tensor& tensor) {
  const std::span<const std::int64_t> values = tensor.values<std::int64_t>();
  return {values.begin(), values.end()};
}

// X is [2, 1, 3, 3] (two planes); 2x2 windows, stride 1.
//   plane 0: 1 9 2    plane 1: 0 0 0
//            3 4 8             0 0 5
//            7 6 5             0 5 0
OpTester Pool(std::int64_t storage_order) {
  OpTester test("MaxPool", 12);
  test.Input("x", FloatTensor(Shape({2, 1, 3, 3}),
                              {1, 9, 2, 3, 4, 8, 7, 6, 5, 0, 0, 0, 0, 0, 5, 0, 5, 0}))
      .AttrInts("kernel_shape", {2, 2})
      .AttrInt("storage_order", storage_order)
      .Output("y")
      .Output("indices");
  return test;
}

TEST(MaxPoolKernelTest, IndicesAreFlatRowMajorPositionsInX) {
  Result<std::vector<Tensor>> y = Pool(0).Run();
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ(FloatValues((*y)[0]), (std::vector<float>{9, 9, 7, 8, 0, 5, 5, 5}));
  EXPECT_EQ((*y)[1].shape(), Shape({2, 1, 2, 2}));
  // The first maximum of a window wins (plane 1's top-left window is all zeros); plane 1
  // starts at 9.
  EXPECT_EQ(Int64Values((*y)[1]), (std::vector<std::int64_t>{1, 1, 6, 5, 9, 14, 16, 14}));
}

TEST(MaxPoolKernelTest, StorageOrderOneIsColumnMajorOverSpace) {
  Result<std::vector<Tensor>> y = Pool(1).Run();
  ASSERT_TRUE(y.ok()) << y.status();
  // (h, w) -> h + 3 * w within the plane.
  EXPECT_EQ(Int64Values((*y)[1]), (std::vector<std::int64_t>{3, 3, 2, 7, 9, 16, 14, 16}));
}

TEST(MaxPoolKernelTest, PoolsInt8AndUint8FromOpset12) {
  const auto bytes = [] {
    Tensor x = *Tensor::Create(DataType::kInt8, Shape({1, 1, 1, 4}));
    const std::int8_t values[] = {-128, -5, 3, -1};
    std::copy(std::begin(values), std::end(values), static_cast<std::int8_t*>(x.raw_data()));
    return x;
  };
  OpTester test("MaxPool", 12);
  test.Input("x", bytes()).AttrInts("kernel_shape", {1, 2}).AttrInts("strides", {1, 2}).Output("y");
  Result<std::vector<Tensor>> y = test.Run();
  ASSERT_TRUE(y.ok()) << y.status();
  ASSERT_EQ((*y)[0].dtype(), DataType::kInt8);
  EXPECT_EQ((*y)[0].values<std::int8_t>()[0], -5);
  EXPECT_EQ((*y)[0].values<std::int8_t>()[1], 3);

  OpTester old("MaxPool", 11);
  old.Input("x", bytes()).AttrInts("kernel_shape", {1, 2}).Output("y");
  EXPECT_TRUE(old.Build().status().IsUnsupported()) << old.Build().status();
}

TEST(MaxPoolKernelTest, RefusesBadStorageOrder) {
  EXPECT_EQ(Pool(2).Build().status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace edgemond::engine
