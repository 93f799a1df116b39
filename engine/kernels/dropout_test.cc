// Dropout: the identity in inference mode, and in training mode only with ratio 0.

#include "engine/kernels/dropout.h"

#include <gtest/gtest.h>

#include "engine/testing/op_tester.h"

namespace edgemond::engine {
namespace {

using testing::FloatTensor;
using testing::FloatValues;
using testing::OpTester;

Tensor Bool(bool value) {
  Tensor tensor = *Tensor::Create(DataType::kBool, Shape({}));
  *static_cast<std::uint8_t*>(tensor.raw_data()) = value ? 1 : 0;
  return tensor;
}

OpTester Dropout(float ratio, bool training) {
  OpTester test("Dropout", 13);
  test.Input("x", FloatTensor(Shape({3}), {1, -2, 3}))
      .Constant("ratio", FloatTensor(Shape({}), {ratio}))
      .Constant("training_mode", Bool(training))
      .Output("y")
      .Output("mask");
  return test;
}

TEST(DropoutKernelTest, InferenceAndZeroRatioTrainingAreTheIdentity) {
  for (const bool training : {false, true}) {
    Result<std::vector<Tensor>> y = Dropout(training ? 0.0f : 0.5f, training).Run();
    ASSERT_TRUE(y.ok()) << y.status();
    EXPECT_EQ(FloatValues((*y)[0]), (std::vector<float>{1, -2, 3}));
    ASSERT_EQ((*y)[1].dtype(), DataType::kBool);
    for (const std::uint8_t m :
         std::span(static_cast<const std::uint8_t*>((*y)[1].raw_data()), 3)) {
      EXPECT_EQ(m, 1);
    }
  }
}

TEST(DropoutKernelTest, RefusesRandomTraining) {
  const Status status = Dropout(0.5f, true).Build().status();
  EXPECT_TRUE(status.IsUnsupported());
  EXPECT_NE(status.message().find("training mode with ratio 0.5 (a random mask)"),
            std::string_view::npos)
      << status;

  OpTester default_ratio("Dropout", 13);
  default_ratio.Input("x", FloatTensor(Shape({1}), {1}))
      .OmittedInput()
      .Constant("training_mode", Bool(true))
      .Output("y");
  EXPECT_TRUE(default_ratio.Build().status().IsUnsupported());
}

}  // namespace
}  // namespace edgemond::engine
