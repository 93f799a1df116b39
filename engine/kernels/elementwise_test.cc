// Element-wise operators added for the wider model set: the unary math ops, LeakyRelu, Gelu,
// Pow, Min/Max/Sum/Mean, PRelu and Where, against hand-computed values.

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "engine/testing/op_tester.h"

namespace edgemond::engine {
namespace {

using testing::FloatTensor;
using testing::FloatValues;
using testing::Int64Tensor;
using testing::OpTester;

constexpr float kInf = std::numeric_limits<float>::infinity();

std::vector<float> Unary(const std::string& op, int opset, std::vector<float> x,
                         std::vector<Attribute> attributes = {}) {
  OpTester test(op, opset);
  const auto n = static_cast<std::int64_t>(x.size());
  test.Input("x", FloatTensor(Shape({n}), std::move(x))).Output("y");
  for (Attribute& attribute : attributes) test.Attr(std::move(attribute));
  Result<std::vector<Tensor>> y = test.Run();
  EXPECT_TRUE(y.ok()) << y.status();
  return y.ok() ? FloatValues((*y)[0]) : std::vector<float>();
}

Attribute FloatAttribute(std::string name, float value) {
  Attribute attribute;
  attribute.name = std::move(name);
  attribute.type = Attribute::Type::kFloat;
  attribute.f = value;
  return attribute;
}

Attribute StringAttribute(std::string name, std::string value) {
  Attribute attribute;
  attribute.name = std::move(name);
  attribute.type = Attribute::Type::kString;
  attribute.s = std::move(value);
  return attribute;
}

TEST(UnaryMathTest, MatchesTheLibraryFunctions) {
  EXPECT_EQ(Unary("Sqrt", 13, {4, 0.25f}), (std::vector<float>{2, 0.5f}));
  EXPECT_TRUE(std::isnan(Unary("Sqrt", 13, {-1})[0]));
  EXPECT_EQ(Unary("Exp", 13, {0, -kInf}), (std::vector<float>{1, 0}));
  EXPECT_EQ(Unary("Log", 13, {1, 0}), (std::vector<float>{0, -kInf}));
  EXPECT_EQ(Unary("Neg", 13, {1.5f, -2}), (std::vector<float>{-1.5f, 2}));
  EXPECT_EQ(Unary("Abs", 13, {-1.5f, 2}), (std::vector<float>{1.5f, 2}));
  EXPECT_FLOAT_EQ(Unary("Erf", 13, {0.5f})[0], std::erf(0.5f));
  EXPECT_FLOAT_EQ(Unary("Tanh", 13, {0.5f})[0], std::tanh(0.5f));
}

TEST(UnaryMathTest, NegAndAbsWrapIntegers) {
  for (const std::string op : {"Neg", "Abs"}) {
    OpTester test(op, 13);
    test.Input("x", Int64Tensor(Shape({3}), {-5, 7, std::numeric_limits<std::int64_t>::min()}))
        .Output("y");
    Result<std::vector<Tensor>> y = test.Run();
    ASSERT_TRUE(y.ok()) << y.status();
    const std::span<const std::int64_t> v = (*y)[0].values<std::int64_t>();
    EXPECT_EQ(v[0], 5);
    EXPECT_EQ(v[1], op == "Neg" ? -7 : 7);
    EXPECT_EQ(v[2], std::numeric_limits<std::int64_t>::min());  // As NumPy: no trap.
  }
}

TEST(ActivationKernelTest, LeakyReluAndGelu) {
  EXPECT_EQ(Unary("LeakyRelu", 16, {-2, 3}), (std::vector<float>{-0.02f, 3}));
  EXPECT_EQ(Unary("LeakyRelu", 16, {-2, 3}, {FloatAttribute("alpha", 0.5f)}),
            (std::vector<float>{-1, 3}));
  const std::vector<float> exact = Unary("Gelu", 20, {-1, 0, 1});
  EXPECT_FLOAT_EQ(exact[2], static_cast<float>(0.5 * (1 + std::erf(1 / std::sqrt(2.0)))));
  EXPECT_EQ(exact[1], 0.0f);
  const std::vector<float> tanh = Unary("Gelu", 20, {1}, {StringAttribute("approximate", "tanh")});
  EXPECT_NEAR(tanh[0], 0.841192f, 1e-6f);
  OpTester bad("Gelu", 20);
  bad.Input("x", FloatTensor(Shape({1}), {1})).AttrString("approximate", "fast").Output("y");
  EXPECT_EQ(bad.Build().status().code(), StatusCode::kInvalidArgument);
}

TEST(PowKernelTest, BroadcastsAndMixesTypes) {
  OpTester test("Pow", 15);
  test.Input("x", FloatTensor(Shape({2, 2}), {2, 3, 4, -8}))
      .Input("y", FloatTensor(Shape({2}), {2, 0.5f}))
      .Output("z");
  Result<std::vector<Tensor>> z = test.Run();
  ASSERT_TRUE(z.ok()) << z.status();
  EXPECT_FLOAT_EQ(FloatValues((*z)[0])[0], 4.0f);
  EXPECT_FLOAT_EQ(FloatValues((*z)[0])[1], std::sqrt(3.0f));
  EXPECT_TRUE(std::isnan(FloatValues((*z)[0])[3]));  // (-8) ^ 0.5.

  OpTester integers("Pow", 15);
  integers.Input("x", Int64Tensor(Shape({4}), {3, -2, 2, 5}))
      .Input("y", Int64Tensor(Shape({4}), {4, 3, 62, -1}))
      .Output("z");
  z = integers.Run();
  ASSERT_TRUE(z.ok()) << z.status();
  const std::span<const std::int64_t> v = (*z)[0].values<std::int64_t>();
  EXPECT_EQ(std::vector<std::int64_t>(v.begin(), v.end()),
            (std::vector<std::int64_t>{81, -8, std::int64_t{1} << 62, 0}));
}

TEST(VariadicKernelTest, MinMaxSumMeanBroadcast) {
  const auto run = [](const std::string& op) {
    OpTester test(op, 13);
    test.Input("a", FloatTensor(Shape({2, 1}), {1, 6}))
        .Input("b", FloatTensor(Shape({3}), {2, 4, 9}))
        .Input("c", FloatTensor(Shape({}), {3}))
        .Output("y");
    Result<std::vector<Tensor>> y = test.Run();
    EXPECT_TRUE(y.ok()) << y.status();
    EXPECT_EQ((*y)[0].shape(), Shape({2, 3}));
    return FloatValues((*y)[0]);
  };
  EXPECT_EQ(run("Min"), (std::vector<float>{1, 1, 1, 2, 3, 3}));
  EXPECT_EQ(run("Max"), (std::vector<float>{3, 4, 9, 6, 6, 9}));
  EXPECT_EQ(run("Sum"), (std::vector<float>{6, 8, 13, 11, 13, 18}));
  EXPECT_EQ(run("Mean"), (std::vector<float>{2, 8.0f / 3, 13.0f / 3, 11.0f / 3, 13.0f / 3, 6}));

  OpTester nan("Max", 13);
  nan.Input("a", FloatTensor(Shape({2}), {std::nanf(""), 1}))
      .Input("b", FloatTensor(Shape({2}), {1, std::nanf("")}))
      .Output("y");
  Result<std::vector<Tensor>> y = nan.Run();
  ASSERT_TRUE(y.ok());
  EXPECT_TRUE(std::isnan(FloatValues((*y)[0])[0]));
  EXPECT_TRUE(std::isnan(FloatValues((*y)[0])[1]));

  OpTester one("Sum", 13);
  one.Input("a", FloatTensor(Shape({2}), {1, 2})).Output("y");
  y = one.Run();
  ASSERT_TRUE(y.ok());
  EXPECT_EQ(FloatValues((*y)[0]), (std::vector<float>{1, 2}));

  OpTester mismatched("Max", 13);
  mismatched.Input("a", FloatTensor(Shape({2}), {1, 2}))
      .Input("b", FloatTensor(Shape({3}), {1, 2, 3}))
      .Output("y");
  EXPECT_EQ(mismatched.Build().status().code(), StatusCode::kInvalidArgument);
}

TEST(VariadicKernelTest, RefusesARunningBroadcastThatOverflows) {
  // Five inputs of 2^16 elements, each along its own axis: their running broadcast reaches
  // 2^80 elements, whose strides must never be computed.
  OpTester test("Max", 13);
  for (int axis = 0; axis < 5; ++axis) {
    std::vector<std::int64_t> dims(5, 1);
    dims[static_cast<std::size_t>(axis)] = 1 << 16;
    test.Input("x" + std::to_string(axis),
               FloatTensor(Shape(dims), std::vector<float>(std::size_t{1} << 16, 1.0f)));
  }
  test.Output("y");
  EXPECT_EQ(test.Build().status().code(), StatusCode::kResourceExhausted);
}

TEST(PReluKernelTest, PerChannelSlope) {
  OpTester test("PRelu", 16);
  test.Input("x", FloatTensor(Shape({1, 2, 2}), {-1, 2, -3, 4}))
      .Constant("slope", FloatTensor(Shape({2, 1}), {0.5f, 0.25f}))
      .Output("y");
  Result<std::vector<Tensor>> y = test.Run();
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ(FloatValues((*y)[0]), (std::vector<float>{-0.5f, 2, -0.75f, 4}));

  OpTester grows("PRelu", 16);
  grows.Input("x", FloatTensor(Shape({2}), {-1, 2}))
      .Constant("slope", FloatTensor(Shape({3, 1}), {1, 2, 3}))
      .Output("y");
  EXPECT_NE(grows.Build().status().message().find("does not broadcast to X"),
            std::string_view::npos);
}

TEST(WhereKernelTest, BroadcastsAllThreeInputs) {
  Tensor condition = *Tensor::Create(DataType::kBool, Shape({2, 1}));
  static_cast<std::uint8_t*>(condition.raw_data())[0] = 1;
  OpTester test("Where", 16);
  test.Input("c", std::move(condition))
      .Input("x", FloatTensor(Shape({3}), {1, 2, 3}))
      .Input("y", FloatTensor(Shape({}), {-1}))
      .Output("z");
  Result<std::vector<Tensor>> z = test.Run();
  ASSERT_TRUE(z.ok()) << z.status();
  EXPECT_EQ((*z)[0].shape(), Shape({2, 3}));
  EXPECT_EQ(FloatValues((*z)[0]), (std::vector<float>{1, 2, 3, -1, -1, -1}));
}

}  // namespace
}  // namespace edgemond::engine
