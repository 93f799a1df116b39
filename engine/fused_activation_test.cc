// The fused-activation contract (engine/activation.h): the scalar functions, and every
// registered kernel that declares a kind, checked against the same op without fusion followed
// by the activation.

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <map>

#include "engine/activation.h"
#include "engine/benchmark.h"
#include "engine/kernel_registry.h"
#include "engine/testing/op_tester.h"

namespace edgemond::engine {
namespace {

using testing::OpTester;

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

TEST(ActivationTest, ScalarFunctions) {
  EXPECT_EQ(ReluValue(-2.0f), 0.0f);
  EXPECT_EQ(ReluValue(3.0f), 3.0f);
  EXPECT_TRUE(std::isnan(ReluValue(kNaN)));
  EXPECT_EQ(LeakyReluValue(-2.0f, 0.1f), -0.2f);
  EXPECT_EQ(ClipValue(7.0f, 0.0f, 6.0f), 6.0f);
  EXPECT_EQ(ClipValue(-1.0f, 0.0f, 6.0f), 0.0f);
  EXPECT_EQ(ClipValue(0.5f, 2.0f, 1.0f), 1.0f);  // lower > upper: upper, as ONNX says.
  EXPECT_TRUE(std::isnan(ClipValue(kNaN, 0.0f, 6.0f)));
  EXPECT_EQ(HardSigmoidValue(10.0f, 0.2f, 0.5f), 1.0f);
  EXPECT_EQ(HardSigmoidValue(-10.0f, 0.2f, 0.5f), 0.0f);
  EXPECT_TRUE(std::isnan(HardSigmoidValue(kNaN, 0.2f, 0.5f)));
  EXPECT_EQ(HardSwishValue(3.0f), 3.0f);
  EXPECT_EQ(HardSwishValue(-3.0f), -0.0f);
  EXPECT_EQ(SigmoidValue(0.0f), 0.5f);
  EXPECT_EQ(SigmoidValue(-200.0f), 0.0f);  // No overflow in exp.
  EXPECT_EQ(SigmoidValue(200.0f), 1.0f);
  EXPECT_EQ(SiluValue(2.0f), 2.0f * SigmoidValue(2.0f));
  EXPECT_EQ(Activate(FusedActivation::None(), -5.0f), -5.0f);
  EXPECT_EQ(Activate(FusedActivation::Clip(0, 6), 8.0f), 6.0f);
}

TEST(ActivationTest, InPlaceMatchesScalar) {
  const std::vector<FusedActivation> kinds = {
      FusedActivation::Relu(),         FusedActivation::LeakyRelu(0.3f),
      FusedActivation::Clip(-0.5f, 1), FusedActivation::HardSigmoid(0.2f, 0.5f),
      FusedActivation::HardSwish(),    FusedActivation::Sigmoid(),
      FusedActivation::Silu()};
  for (const FusedActivation& activation : kinds) {
    std::vector<float> data;
    for (int i = -40; i <= 40; ++i) data.push_back(static_cast<float>(i) * 0.25f);
    std::vector<float> expected = data;
    for (float& v : expected) v = Activate(activation, v);
    ActivateInPlace(activation, data.data(), static_cast<std::int64_t>(data.size()));
    EXPECT_EQ(data, expected) << activation.ToString();
  }
}

TEST(ActivationTest, Names) {
  EXPECT_EQ(FusedActivation::Relu().ToString(), "Relu");
  EXPECT_EQ(FusedActivation::Clip(0, 6).ToString(), "Clip(0, 6)");
  EXPECT_EQ(FusedActivation::HardSigmoid(0.2f, 0.5f).ToString(), "HardSigmoid(0.2, 0.5)");
  EXPECT_EQ(FusedActivation::None().ToString(), "");
  EXPECT_FALSE(FusedActivation::None().active());
}

// One configuration per op whose kernels may declare fused activations. A kernel that declares
// a kind for an op missing here fails the test below: add its case.
struct ProducerCase {
  std::string op;
  int opset;
  std::string domain;
  // Adds the op's inputs and attributes (output "y" is added by the test).
  std::function<void(OpTester&)> setup;
};

Tensor Deterministic(Shape shape, std::uint64_t seed, float scale = 1.0f) {
  Tensor tensor = *MakeDeterministicTensor({DataType::kFloat32, std::move(shape)}, seed);
  for (float& v : tensor.mutable_values<float>()) v *= scale;
  return tensor;
}

std::map<std::string, ProducerCase> ProducerCases() {
  std::map<std::string, ProducerCase> cases;
  cases["Conv"] = {"Conv", 13, "", [](OpTester& t) {
                     t.Input("x", Deterministic(Shape({1, 4, 7, 6}), 1, 2.0f))
                         .Constant("w", Deterministic(Shape({6, 2, 3, 3}), 2))
                         .Constant("b", Deterministic(Shape({6}), 3))
                         .AttrInt("group", 2)
                         .AttrInts("pads", {1, 1, 1, 1});
                   }};
  cases["Gemm"] = {"Gemm", 13, "", [](OpTester& t) {
                     t.Input("a", Deterministic(Shape({3, 8}), 4, 2.0f))
                         .Constant("b", Deterministic(Shape({5, 8}), 5))
                         .Constant("c", Deterministic(Shape({5}), 6))
                         .AttrInt("transB", 1)
                         .AttrFloat("alpha", 0.75f);
                   }};
  cases["MatMul"] = {"MatMul", 13, "", [](OpTester& t) {
                       t.Input("a", Deterministic(Shape({2, 3, 4}), 7, 2.0f))
                           .Input("b", Deterministic(Shape({4, 5}), 8));
                     }};
  cases["Add"] = {"Add", 14, "", [](OpTester& t) {
                    t.Input("a", Deterministic(Shape({2, 3, 4}), 9, 3.0f))
                        .Input("b", Deterministic(Shape({3, 1}), 10, 3.0f));
                  }};
  // The engine's own operators (engine/layout_pass.h).
  cases["NhwcConv"] = {"NhwcConv", 1, kInternalDomain, [](OpTester& t) {
                         t.Input("x", Deterministic(Shape({1, 7, 6, 4}), 11, 2.0f))
                             .Constant("w", Deterministic(Shape({6, 2, 3, 3}), 12))
                             .Constant("b", Deterministic(Shape({6}), 13))
                             .AttrInt("group", 2)
                             .AttrInts("strides", {1, 1})
                             .AttrInts("dilations", {1, 1})
                             .AttrInts("pads", {1, 1, 1, 1});
                       }};
  cases["Dense"] = {"Dense", 1, kInternalDomain, [](OpTester& t) {
                      t.Input("a", Deterministic(Shape({3, 8}), 14, 2.0f))
                          .Constant("b", Deterministic(Shape({5, 8}), 15))
                          .Constant("c", Deterministic(Shape({5}), 16))
                          .AttrInt("transB", 1);
                    }};
  return cases;
}

std::vector<FusedActivation> AllActivations() {
  return {
      FusedActivation::Relu(),
      FusedActivation::LeakyRelu(0.1f),
      FusedActivation::Clip(-0.5f, 0.75f),
      FusedActivation::Clip(1.0f, 0.0f),
      FusedActivation::HardSigmoid(0.3f, 0.4f),
      FusedActivation::HardSwish(),
      FusedActivation::Sigmoid(),
      FusedActivation::Silu(),
  };
}

TEST(FusedActivationContractTest, EveryDeclaringKernelMatchesTheUnfusedOp) {
  const std::map<std::string, ProducerCase> cases = ProducerCases();
  int checked = 0;
  for (const KernelDef& def : KernelRegistry::Builtin().defs()) {
    const std::unique_ptr<Kernel> kernel = def.factory();
    for (const FusedActivation& activation : AllActivations()) {
      if (!kernel->SupportsActivation(activation.kind)) continue;
      const auto it = cases.find(def.op_type);
      ASSERT_NE(it, cases.end()) << def.op_type << " declares fused " << activation.ToString()
                                 << " but this test has no case for it";
      const ProducerCase& c = it->second;
      OpTester plain(c.op, c.opset, c.domain);
      c.setup(plain);
      plain.Output("y");
      Result<std::vector<Tensor>> expected = plain.Run();
      ASSERT_TRUE(expected.ok()) << expected.status();
      OpTester fused(c.op, c.opset, c.domain);
      c.setup(fused);
      fused.Output("y").Activation(activation);
      Result<std::vector<Tensor>> actual = fused.Run();
      ASSERT_TRUE(actual.ok()) << c.op << "+" << activation.ToString() << ": " << actual.status();
      const std::span<const float> e = (*expected)[0].values<float>();
      const std::span<const float> a = (*actual)[0].values<float>();
      ASSERT_EQ(a.size(), e.size());
      for (std::size_t i = 0; i < e.size(); ++i) {
        const float want = Activate(activation, e[i]);
        EXPECT_NEAR(a[i], want, 1e-5f * std::max(1.0f, std::fabs(want)))
            << c.op << "+" << activation.ToString() << " element " << i;
      }
      ++checked;
    }
  }
  // The reference Conv, Gemm, MatMul and Add declare every kind.
  EXPECT_GE(checked, 4 * static_cast<int>(AllActivations().size()));
}

TEST(FusedActivationContractTest, ReferenceKernelsAreBitExact) {
  // The reference kernels apply the same scalar functions as the stand-alone activation
  // kernels, so fusion changes no bit of their results.
  const std::map<std::string, ProducerCase> cases = ProducerCases();
  for (const auto& [op, c] : cases) {
    if (!c.domain.empty()) continue;  // Optimized kernels: held to the tolerance above.
    OpTester plain(c.op, c.opset);
    c.setup(plain);
    plain.Output("y");
    Result<std::vector<Tensor>> expected = plain.Run();
    ASSERT_TRUE(expected.ok()) << expected.status();
    OpTester fused(c.op, c.opset);
    c.setup(fused);
    fused.Output("y").Activation(FusedActivation::Silu());
    Result<std::vector<Tensor>> actual = fused.Run();
    ASSERT_TRUE(actual.ok()) << actual.status();
    const std::span<const float> e = (*expected)[0].values<float>();
    const std::span<const float> a = (*actual)[0].values<float>();
    for (std::size_t i = 0; i < e.size(); ++i) EXPECT_EQ(a[i], SiluValue(e[i])) << op << " " << i;
  }
}

TEST(FusedActivationContractTest, RefusesAnActivationTheKernelDoesNotDeclare) {
  OpTester test("Sub", 14);
  test.Input("a", testing::FloatTensor(Shape({2}), {1, 2}))
      .Input("b", testing::FloatTensor(Shape({2}), {3, 4}))
      .Output("y")
      .Activation(FusedActivation::Relu());
  const Status status = test.Build().status();
  EXPECT_EQ(status.code(), StatusCode::kUnsupported);
  EXPECT_EQ(status.message(),
            "node 'node' (Sub+Relu, opset 14): the kernel does not apply a fused Relu activation");
}

TEST(FusedActivationContractTest, RefusesAnActivationOnIntegerAdd) {
  OpTester test("Add", 14);
  test.Input("a", testing::Int64Tensor(Shape({2}), {1, 2}))
      .Input("b", testing::Int64Tensor(Shape({2}), {3, 4}))
      .Output("y")
      .Activation(FusedActivation::Relu());
  EXPECT_EQ(test.Build().status().code(), StatusCode::kUnsupported);
}

}  // namespace
}  // namespace edgemond::engine
