#include "engine/tensor.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace edgemond::engine {
namespace {

TEST(ShapeTest, FormatsAndCounts) {
  EXPECT_EQ(Shape({1, 3, 224, 224}).ToString(), "1x3x224x224");
  EXPECT_EQ(Shape().ToString(), "scalar");
  EXPECT_EQ(Shape().num_elements(), 1);
  EXPECT_EQ(Shape({2, 0, 5}).num_elements(), 0);
  // Found by fuzzing: huge dimensions next to a zero must not overflow.
  EXPECT_EQ(Shape({std::int64_t{1} << 40, std::int64_t{1} << 40, 0}).num_elements(), 0);
}

TEST(CheckedByteSizeTest, ComputesBytes) {
  EXPECT_EQ(*CheckedByteSize(Shape({2, 3}), DataType::kFloat32), 24);
  EXPECT_EQ(*CheckedByteSize(Shape({2, 3}), DataType::kInt64), 48);
  EXPECT_EQ(*CheckedByteSize(Shape(), DataType::kBool), 1);
  EXPECT_EQ(*CheckedByteSize(Shape({0, 1 << 20}), DataType::kFloat32), 0);
  // An empty tensor's other dimensions are still bounded: kernels multiply them.
  EXPECT_EQ(CheckedByteSize(Shape({0, std::int64_t{1} << 62}), DataType::kFloat32).status().code(),
            StatusCode::kResourceExhausted);
}

TEST(CheckedByteSizeTest, RefusesAbsurdShapes) {
  EXPECT_EQ(CheckedByteSize(Shape({-1, 3}), DataType::kFloat32).status().code(),
            StatusCode::kInvalidArgument);
  // 2^62 elements overflow int64 bytes; the check must not overflow itself.
  EXPECT_EQ(
      CheckedByteSize(Shape({std::int64_t{1} << 31, std::int64_t{1} << 31}), DataType::kFloat32)
          .status()
          .code(),
      StatusCode::kResourceExhausted);
  EXPECT_EQ(CheckedByteSize(Shape({INT64_MAX, INT64_MAX}), DataType::kInt64).status().code(),
            StatusCode::kResourceExhausted);
  EXPECT_FALSE(
      CheckedByteSize(Shape(std::vector<std::int64_t>(kMaxRank + 1, 1)), DataType::kFloat32).ok());
}

TEST(TensorTest, CreateZeroFillsAndAligns) {
  Result<Tensor> tensor = Tensor::Create(DataType::kFloat32, Shape({3, 5}));
  ASSERT_TRUE(tensor.ok());
  EXPECT_EQ(tensor->byte_size(), 60u);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(tensor->raw_data()) % kTensorAlignment, 0u);
  for (const float v : tensor->values<float>()) EXPECT_EQ(v, 0.0f);
}

TEST(TensorTest, CopyOfIsDeep) {
  Result<Tensor> original = Tensor::FromVector<std::int64_t>(Shape({2}), {7, 9});
  ASSERT_TRUE(original.ok());
  Result<Tensor> copy = Tensor::CopyOf(original->view());
  ASSERT_TRUE(copy.ok());
  original->mutable_values<std::int64_t>()[0] = 1;
  EXPECT_EQ(copy->values<std::int64_t>()[0], 7);
  EXPECT_EQ(copy->shape(), Shape({2}));
}

TEST(TensorTest, FromValuesChecksTheCount) {
  EXPECT_FALSE(Tensor::FromVector<float>(Shape({2, 2}), {1, 2, 3}).ok());
}

TEST(DataTypeTest, MapsOnnxCodes) {
  EXPECT_EQ(*DataTypeFromOnnx(1), DataType::kFloat32);
  EXPECT_EQ(*DataTypeFromOnnx(7), DataType::kInt64);
  EXPECT_EQ(*DataTypeFromOnnx(16), DataType::kBFloat16);
  const Status string_type = DataTypeFromOnnx(8).status();
  EXPECT_TRUE(string_type.IsUnsupported());
  EXPECT_NE(string_type.message().find("STRING"), std::string_view::npos);
  EXPECT_NE(DataTypeFromOnnx(1000).status().message().find("type 1000"), std::string_view::npos);
}

}  // namespace
}  // namespace edgemond::engine
