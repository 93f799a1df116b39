#include "engine/kernel_registry.h"

#include <gtest/gtest.h>

#include "engine/kernels/relu.h"

namespace edgemond::engine {
namespace {

TEST(KernelRegistryTest, FindsByOpsetRange) {
  KernelRegistry registry;
  ASSERT_TRUE(registry.Add({"", "Relu", 6, 13, &MakeKernel<ReluKernel>}).ok());
  ASSERT_TRUE(registry.Add({"", "Relu", 14, kNewestOpset, &MakeKernel<ReluKernel>}).ok());
  EXPECT_EQ((*registry.Find("", "Relu", 13))->since_version, 6);
  EXPECT_EQ((*registry.Find("ai.onnx", "Relu", 17))->since_version, 14);
  EXPECT_EQ((*registry.Find("", "Relu", kNewestOpset))->since_version, 14);
}

TEST(KernelRegistryTest, ExplainsWhatIsMissing) {
  KernelRegistry registry;
  ASSERT_TRUE(registry.Add({"", "Relu", 6, 13, &MakeKernel<ReluKernel>}).ok());
  const Status unknown = registry.Find("", "Frobnicate", 13).status();
  EXPECT_TRUE(unknown.IsUnsupported());
  EXPECT_EQ(unknown.message(), "no kernel for operator 'Frobnicate'");
  const Status opset = registry.Find("", "Relu", 5).status();
  EXPECT_EQ(opset.message(), "Relu is implemented for opsets 6-13, the model imports opset 5");
  EXPECT_EQ(registry.Find("com.microsoft", "Relu", 1).status().message(),
            "no kernel for operator 'com.microsoft.Relu'");
}

TEST(KernelRegistryTest, RefusesOverlappingRanges) {
  KernelRegistry registry;
  ASSERT_TRUE(registry.Add({"", "Relu", 6, 13, &MakeKernel<ReluKernel>}).ok());
  EXPECT_FALSE(registry.Add({"", "Relu", 13, 14, &MakeKernel<ReluKernel>}).ok());
  EXPECT_FALSE(registry.Add({"", "Sigmoid", 9, 8, &MakeKernel<ReluKernel>}).ok());
}

TEST(KernelRegistryTest, BuiltinListIsConsistent) {
  const KernelRegistry& builtin = KernelRegistry::Builtin();
  EXPECT_GE(builtin.defs().size(), 30u);
  for (const char* op : {"Conv",
                         "Gemm",
                         "MatMul",
                         "Add",
                         "Mul",
                         "Relu",
                         "Clip",
                         "Sigmoid",
                         "HardSigmoid",
                         "HardSwish",
                         "MaxPool",
                         "AveragePool",
                         "GlobalAveragePool",
                         "Flatten",
                         "Reshape",
                         "Concat",
                         "Transpose",
                         "Shape",
                         "Gather",
                         "Unsqueeze",
                         "Slice",
                         "Constant",
                         "Identity",
                         "Dropout",
                         "BatchNormalization",
                         "Softmax",
                         "ReduceMean"}) {
    EXPECT_TRUE(builtin.Find("", op, 14).ok()) << op;
  }
}

}  // namespace
}  // namespace edgemond::engine
