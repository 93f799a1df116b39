// BatchNormalization in inference and training mode against hand-computed values.

#include "engine/kernels/batch_normalization.h"

#include <gtest/gtest.h>

#include <cmath>

#include "engine/testing/op_tester.h"

namespace edgemond::engine {
namespace {

using testing::FloatTensor;
using testing::FloatValues;
using testing::OpTester;

// X is [2, 2, 2]: channel 0 holds 1, 3 and 5, 7 (mean 4, variance 5); channel 1 holds 0, 0
// and 0, 4 (mean 1, variance 3).
OpTester Normalize(int opset, std::int64_t training_mode) {
  OpTester test("BatchNormalization", opset);
  test.Input("x", FloatTensor(Shape({2, 2, 2}), {1, 3, 0, 0, 5, 7, 0, 4}))
      .Constant("scale", FloatTensor(Shape({2}), {2, 1}))
      .Constant("bias", FloatTensor(Shape({2}), {0, 10}))
      .Constant("mean", FloatTensor(Shape({2}), {1, 2}))
      .Constant("var", FloatTensor(Shape({2}), {4, 1}))
      .AttrFloat("epsilon", 0.0f);
  if (opset >= 14) test.AttrInt("training_mode", training_mode);
  return test;
}

TEST(BatchNormalizationKernelTest, InferenceUsesTheGivenStatistics) {
  OpTester test = Normalize(15, 0);
  test.Output("y");
  Result<std::vector<Tensor>> y = test.Run();
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ(FloatValues((*y)[0]), (std::vector<float>{0, 2, 8, 8, 4, 6, 8, 12}));
}

TEST(BatchNormalizationKernelTest, TrainingModeUsesTheBatchAndUpdatesRunningStatistics) {
  OpTester test = Normalize(15, 1);
  test.AttrFloat("momentum", 0.75f).Output("y").Output("running_mean").Output("running_var");
  Result<std::vector<Tensor>> y = test.Run();
  ASSERT_TRUE(y.ok()) << y.status();
  const std::vector<float> v = FloatValues((*y)[0]);
  EXPECT_FLOAT_EQ(v[0], 2 * (1 - 4) / std::sqrt(5.0f));
  EXPECT_FLOAT_EQ(v[5], 2 * (7 - 4) / std::sqrt(5.0f));
  EXPECT_FLOAT_EQ(v[7], (4 - 1) / std::sqrt(3.0f) + 10);
  EXPECT_EQ(FloatValues((*y)[1]), (std::vector<float>{0.75f * 1 + 0.25f * 4, 0.75f * 2 + 0.25f}));
  EXPECT_EQ(FloatValues((*y)[2]), (std::vector<float>{0.75f * 4 + 0.25f * 5, 0.75f + 0.25f * 3}));
}

TEST(BatchNormalizationKernelTest, RefusesTrainingOutputsOutsideTrainingMode) {
  OpTester inference = Normalize(15, 0);
  inference.Output("y").Output("running_mean");
  EXPECT_TRUE(inference.Build().status().IsUnsupported());
  OpTester old = Normalize(9, 0);
  old.Output("y").Output("mean_out");
  EXPECT_TRUE(old.Build().status().IsUnsupported());
}

}  // namespace
}  // namespace edgemond::engine
