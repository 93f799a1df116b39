#include "engine/session.h"

#include <gtest/gtest.h>

#include <thread>

#include "engine/kernel_registry.h"
#include "engine/testing/graph_builder.h"
#include "engine/testing/op_tester.h"

namespace edgemond::engine {
namespace {

using testing::FloatTensor;
using testing::OpTester;

std::shared_ptr<const Model> AddModel() {
  OpTester test("Add", 14);
  test.Input("a", FloatTensor(Shape({2, 2}), {0, 0, 0, 0}))
      .Constant("b", FloatTensor(Shape({2}), {10, 20}))
      .Output("sum");
  Result<std::shared_ptr<const Model>> model = test.Build();
  EXPECT_TRUE(model.ok()) << model.status();
  return model.ok() ? *model : nullptr;
}

// An allocator that fails every request: drives the out-of-memory paths.
class FailingAllocator final : public Allocator {
 public:
  void* Allocate(std::size_t, std::size_t) override {
    ++attempts;
    return nullptr;
  }
  void Free(void*) override {}
  int attempts = 0;
};

// Counts what goes through it, to show the session uses the allocator it is given.
class CountingAllocator final : public Allocator {
 public:
  void* Allocate(std::size_t bytes, std::size_t alignment) override {
    allocated += bytes;
    return DefaultAllocator().Allocate(bytes, alignment);
  }
  void Free(void* block) override { DefaultAllocator().Free(block); }
  std::size_t allocated = 0;
};

TEST(SessionTest, RunsAndReportsOutputs) {
  const std::shared_ptr<const Model> model = AddModel();
  ASSERT_NE(model, nullptr);
  Result<std::unique_ptr<Session>> session = Session::Create(model);
  ASSERT_TRUE(session.ok());
  const Tensor a = FloatTensor(Shape({2, 2}), {1, 2, 3, 4});
  ASSERT_TRUE((*session)->SetInput("a", a.view()).ok());
  ASSERT_TRUE((*session)->Run().ok());
  Result<ConstTensorView> sum = (*session)->Output("sum");
  ASSERT_TRUE(sum.ok());
  EXPECT_EQ(std::vector<float>(sum->values<float>().begin(), sum->values<float>().end()),
            (std::vector<float>{11, 22, 13, 24}));
}

// The inputs stay set from one run to the next: the arena keeps a graph input's buffer for
// the whole run, although its last reader comes first and the buffers of the chain after it
// could take its place (a benchmark sets its input once and runs many times).
TEST(SessionTest, InputsStaySetAcrossRuns) {
  testing::GraphBuilder b;
  b.Input("x", DataType::kFloat32, {{1, ""}, {64, ""}});
  b.Node("Relu", {"x"}, {"r1"});
  b.Node("Sigmoid", {"r1"}, {"r2"});
  b.Node("Neg", {"r2"}, {"r3"});
  b.Node("Abs", {"r3"}, {"r4"});
  b.Node("Exp", {"r4"}, {"y"});
  b.Output("y");
  Result<std::shared_ptr<const Model>> model = Model::Build(b.Take(), ModelOptions{});
  ASSERT_TRUE(model.ok()) << model.status();
  Result<std::unique_ptr<Session>> session = Session::Create(*model);
  ASSERT_TRUE(session.ok()) << session.status();
  std::vector<float> x(64);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i % 7) - 3.0f;
  ASSERT_TRUE((*session)->SetInput("x", FloatTensor(Shape({1, 64}), x).view()).ok());
  ASSERT_TRUE((*session)->Run().ok());
  const std::vector<float> first((*session)->Output("y")->values<float>().begin(),
                                 (*session)->Output("y")->values<float>().end());
  for (int run = 0; run < 3; ++run) {
    ASSERT_TRUE((*session)->Run().ok());
    const std::span<const float> again = (*session)->Output("y")->values<float>();
    ASSERT_EQ(again.size(), first.size());
    for (std::size_t i = 0; i < first.size(); ++i) EXPECT_EQ(again[i], first[i]) << "element " << i;
  }
}

TEST(SessionTest, SessionsShareAModelAcrossThreads) {
  const std::shared_ptr<const Model> model = AddModel();
  ASSERT_NE(model, nullptr);
  std::vector<std::thread> threads;
  std::vector<int> failures(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      Result<std::unique_ptr<Session>> session = Session::Create(model);
      if (!session.ok()) {
        ++failures[static_cast<std::size_t>(t)];
        return;
      }
      const auto base = static_cast<float>(t);
      const Tensor a = FloatTensor(Shape({2, 2}), {base, base, base, base});
      for (int i = 0; i < 100; ++i) {
        Result<std::vector<Tensor>> out = (*session)->Run({{"a", a.view()}});
        if (!out.ok() || (*out)[0].values<float>()[1] != base + 20) {
          ++failures[static_cast<std::size_t>(t)];
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(failures, (std::vector<int>{0, 0, 0, 0}));
}

TEST(SessionTest, ArenaAllocationFailureIsAnError) {
  const std::shared_ptr<const Model> model = AddModel();
  ASSERT_NE(model, nullptr);
  FailingAllocator allocator;
  const Status status = Session::Create(model, {.threads = 1, .allocator = &allocator}).status();
  EXPECT_EQ(status.code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(allocator.attempts, 1);
}

TEST(SessionTest, UsesTheGivenAllocator) {
  const std::shared_ptr<const Model> model = AddModel();
  ASSERT_NE(model, nullptr);
  CountingAllocator allocator;
  {
    Result<std::unique_ptr<Session>> session =
        Session::Create(model, {.threads = 1, .allocator = &allocator});
    ASSERT_TRUE(session.ok());
  }
  EXPECT_GE(allocator.allocated, static_cast<std::size_t>(model->stats().arena_bytes));
}

TEST(SessionTest, RefusesWrongInputs) {
  const std::shared_ptr<const Model> model = AddModel();
  ASSERT_NE(model, nullptr);
  Result<std::unique_ptr<Session>> session = Session::Create(model);
  ASSERT_TRUE(session.ok());
  EXPECT_EQ((*session)->Run().code(), StatusCode::kFailedPrecondition);
  const Tensor wrong_shape = FloatTensor(Shape({4}), {1, 2, 3, 4});
  EXPECT_EQ((*session)->SetInput("a", wrong_shape.view()).message(),
            "input 'a' is float32[2x2]; float32[4] was given");
  const Tensor wrong_type = testing::Int64Tensor(Shape({2, 2}), {1, 2, 3, 4});
  EXPECT_EQ((*session)->SetInput("a", wrong_type.view()).message(),
            "input 'a' is float32[2x2]; int64[2x2] was given");
  EXPECT_EQ((*session)->SetInput("b", wrong_shape.view()).message(),
            "the model has no input 'b' (inputs: a)");
  EXPECT_TRUE((*session)->Output("nope").status().IsNotFound());
  EXPECT_EQ(Session::Create(model, {.threads = 0}).status().code(), StatusCode::kInvalidArgument);
}

TEST(SessionTest, KernelErrorsNameTheNode) {
  OpTester test("Gather", 13);
  test.Input("data", FloatTensor(Shape({3}), {1, 2, 3}))
      .Input("indices", testing::Int64Tensor(Shape({1}), {0}))
      .Output("y");
  Result<std::shared_ptr<const Model>> model = test.Build();
  ASSERT_TRUE(model.ok());
  Result<std::unique_ptr<Session>> session = Session::Create(*model);
  ASSERT_TRUE(session.ok());
  const Tensor data = FloatTensor(Shape({3}), {1, 2, 3});
  const Tensor bad = testing::Int64Tensor(Shape({1}), {7});
  const Status status = (*session)->Run({{"data", data.view()}, {"indices", bad.view()}}).status();
  EXPECT_EQ(status.message(), "node 'node' (Gather): index 7 is out of range for a dimension of 3");
}

// Holds its constant input as "packed weights" and reports, at run time, what the session
// tells it of the model's: [model_constant_bytes(), OtherConstantBytes(own)].
class WeightBytesProbe final : public Kernel {
 public:
  Status Prepare(PrepareContext& context) override {
    own_bytes_ = static_cast<std::size_t>(context.input(1).byte_size());
    return context.SetOutput(0, DataType::kFloat32, Shape({2}));
  }
  Status Run(const RunContext& context) const override {
    float* y = context.output(0).data<float>();
    y[0] = static_cast<float>(context.model_constant_bytes());
    y[1] = static_cast<float>(context.OtherConstantBytes(PackedBytes()));
    return Status::Ok();
  }
  bool ReadsInputAtRun(int index) const override { return index == 0; }
  std::size_t PackedBytes() const override { return own_bytes_; }

 private:
  std::size_t own_bytes_ = 0;
};

// Kernels learn the bytes of weights the whole model holds (ModelStats::constant_bytes):
// the convolutions read theirs as coming from memory when the rest of the model's push them
// out of the cache between two runs.
TEST(SessionTest, TellsKernelsTheModelsWeightBytes) {
  KernelRegistry registry;
  ASSERT_TRUE(registry.Add({"test", "Probe", 1, kNewestOpset, &MakeKernel<WeightBytesProbe>}).ok());
  testing::GraphBuilder builder;
  builder.Input("x", DataType::kFloat32, {{2, ""}})
      .Constant("w_small", FloatTensor(Shape({4}), {1, 2, 3, 4}))
      .Constant("w_large", FloatTensor(Shape({16}), std::vector<float>(16, 1.0f)))
      .Node("Probe", {"x", "w_small"}, {"small"}, {}, 1)
      .Node("Probe", {"small", "w_large"}, {"large"}, {}, 1)
      .Output("small")
      .Output("large");
  ASSERT_TRUE(builder.status().ok()) << builder.status();
  Graph graph = builder.Take();
  for (NodeId id = 0; id < graph.num_nodes(); ++id) graph.node(id).domain = "test";
  ModelOptions options;
  options.registry = &registry;
  options.optimize = false;
  Result<std::shared_ptr<const Model>> model = Model::Build(std::move(graph), options);
  ASSERT_TRUE(model.ok()) << model.status();
  ASSERT_EQ((*model)->stats().constant_bytes, 80);
  Result<std::unique_ptr<Session>> session = Session::Create(*model);
  ASSERT_TRUE(session.ok());
  const Tensor x = FloatTensor(Shape({2}), {0, 0});
  ASSERT_TRUE((*session)->SetInput("x", x.view()).ok());
  ASSERT_TRUE((*session)->Run().ok());
  const auto values = [&](const char* name) {
    const ConstTensorView view = *(*session)->Output(name);
    return std::vector<float>(view.values<float>().begin(), view.values<float>().end());
  };
  EXPECT_EQ(values("small"), (std::vector<float>{80, 64}));
  EXPECT_EQ(values("large"), (std::vector<float>{80, 16}));
}

}  // namespace
}  // namespace edgemond::engine
