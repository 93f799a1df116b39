// Session: the state of inference on one Model: the arena, the bound inputs and the outputs.
//
//   EDGEMOND_ASSIGN_OR_RETURN(auto session, Session::Create(model, {.threads = 1}));
//   EDGEMOND_RETURN_IF_ERROR(session->SetInput("input", image.view()));
//   EDGEMOND_RETURN_IF_ERROR(session->Run());
//   EDGEMOND_ASSIGN_OR_RETURN(ConstTensorView logits, session->Output("output"));
//
// Create() allocates the whole arena once (Model::stats().arena_bytes) and precomputes every
// kernel's views into it; Run() then allocates nothing. Many sessions may share one Model, each
// on its own thread.
//
// Thread safety: a Session is used by one thread at a time.

#ifndef EDGEMOND_ENGINE_SESSION_H_
#define EDGEMOND_ENGINE_SESSION_H_

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/result.h"
#include "engine/allocator.h"
#include "engine/cpu/thread_pool.h"
#include "engine/model.h"
#include "engine/tensor.h"

namespace edgemond::engine {

struct SessionOptions {
  // Threads kernels may use, the calling thread included: a session with N > 1 threads owns a
  // pool of N - 1 workers (engine/cpu/thread_pool.h) that its kernels split their work over.
  int threads = 1;
  // The arena's allocator; nullptr means DefaultAllocator(). Must outlive the session.
  Allocator* allocator = nullptr;
};

// Told when each step of Session::Run starts and ends (profiling, tracing). Called on the
// running thread; the observer reads its own clock, so the session measures nothing itself.
class StepObserver {
 public:
  virtual ~StepObserver() = default;
  virtual void BeforeStep(int step) = 0;
  virtual void AfterStep(int step) = 0;
};

class Session {
 public:
  // kResourceExhausted when the arena cannot be allocated; kInvalidArgument for bad options.
  static Result<std::unique_ptr<Session>> Create(std::shared_ptr<const Model> model,
                                                 const SessionOptions& options = {});

  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
  ~Session() = default;

  // Copies `value` into the input's arena buffer. Its type and shape must equal the model's
  // (Model::inputs()); the message says what was expected and what was given.
  Status SetInput(std::string_view name, const ConstTensorView& value);
  // Runs every step. kFailedPrecondition when an input was never set; kernel errors (an index
  // out of range in Gather) name the node. `observer`, when given, sees each step.
  Status Run(StepObserver* observer = nullptr);
  // A view of an output, valid until the next Run() or SetInput() or the session's end.
  Result<ConstTensorView> Output(std::string_view name) const;

  // Sets the inputs, runs, and returns copies of all outputs in Model::outputs() order.
  Result<std::vector<Tensor>> Run(
      const std::vector<std::pair<std::string, ConstTensorView>>& inputs);

  const Model& model() const { return *model_; }
  std::int64_t arena_bytes() const { return model_->stats().arena_bytes; }

 private:
  struct StepBinding {
    std::vector<ConstTensorView> inputs;
    std::unique_ptr<bool[]> input_present;
    std::vector<TensorView> outputs;
    std::unique_ptr<bool[]> output_present;
    std::span<std::byte> scratch;
  };

  Session(std::shared_ptr<const Model> model, const SessionOptions& options, AlignedBuffer arena,
          std::unique_ptr<ThreadPool> pool);
  void Bind();
  ConstTensorView ViewOf(ValueId id) const;

  std::shared_ptr<const Model> model_;  // Constant after construction.
  SessionOptions options_;              // Constant after construction.
  AlignedBuffer arena_;
  std::unique_ptr<ThreadPool> pool_;  // Null for one thread.
  std::vector<StepBinding> bindings_;
  std::vector<bool> input_set_;
};

}  // namespace edgemond::engine

#endif  // EDGEMOND_ENGINE_SESSION_H_
