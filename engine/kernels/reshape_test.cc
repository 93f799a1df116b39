#include "engine/kernels/reshape.h"

#include <gtest/gtest.h>

#include "engine/testing/op_tester.h"

namespace edgemond::engine {
namespace {

using testing::Int64Tensor;
using testing::IotaTensor;
using testing::OpTester;

Result<std::shared_ptr<const Model>> Reshape(Shape input, std::vector<std::int64_t> target,
                                             bool constant = true) {
  OpTester test("Reshape", 14);
  test.Input("x", IotaTensor(std::move(input)));
  const auto size = static_cast<std::int64_t>(target.size());
  if (constant) {
    test.Constant("shape", Int64Tensor(Shape({size}), std::move(target)));
  } else {
    test.Input("shape", Int64Tensor(Shape({size}), std::move(target)));
  }
  test.Output("y");
  return test.Build();
}

TEST(ReshapeKernelTest, CopiesZerosAndInfersMinusOne) {
  Result<std::shared_ptr<const Model>> model = Reshape(Shape({2, 3, 4}), {0, -1});
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_EQ((*model)->outputs()[0].info.shape, Shape({2, 12}));
}

TEST(ReshapeKernelTest, RefusesBadTargets) {
  EXPECT_NE(Reshape(Shape({2, 3}), {4, -1}).status().message().find("cannot infer"),
            std::string_view::npos);
  EXPECT_NE(Reshape(Shape({2, 3}), {-1, -1}).status().message().find("more than one -1"),
            std::string_view::npos);
  EXPECT_NE(Reshape(Shape({2, 3}), {5}).status().message().find("cannot reshape"),
            std::string_view::npos);
  EXPECT_NE(Reshape(Shape({2, 3}), {INT64_MAX, INT64_MAX}).status().message().find("too large"),
            std::string_view::npos);
}

TEST(ReshapeKernelTest, RefusesRunTimeShapes) {
  const Status status = Reshape(Shape({2, 3}), {3, 2}, /*constant=*/false).status();
  EXPECT_TRUE(status.IsUnsupported());
  EXPECT_NE(status.message().find("computed at run time"), std::string_view::npos);
}

}  // namespace
}  // namespace edgemond::engine
