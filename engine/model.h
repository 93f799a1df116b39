// Model: a loaded, prepared, immutable network, shared by any number of sessions.
//
// Model::Build turns a Graph into an execution plan: it binds input shapes, prepares every
// kernel (which resolves all shapes and packs weights), folds constants, removes what does not
// contribute to an output, folds BatchNormalization into convolutions and fuses activations,
// orders the remaining nodes and plans one arena for all intermediate tensors. All shapes are
// static afterwards; a model for other input shapes is built again. The ncnn split: Model is ncnn's
// Net (graph and weights), Session is its Extractor (the state of one inference);
// docs/adr/0104-engine-model-session.md.
//
// Thread safety: a built Model is immutable; share it as std::shared_ptr<const Model> and use
// it from any number of threads, each through its own Session.

#ifndef EDGEMOND_ENGINE_MODEL_H_
#define EDGEMOND_ENGINE_MODEL_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "engine/graph.h"
#include "engine/kernel.h"
#include "engine/kernel_registry.h"
#include "engine/passes.h"
#include "engine/tensor.h"

namespace edgemond::engine {

struct ModelOptions {
  // Shapes for graph inputs by name: required for inputs with symbolic or unknown
  // dimensions, optional (but checked) for the others.
  InputShapes input_shapes;
  // Values for graph inputs that are fixed for the model's lifetime: they become constants
  // and fold like initializers (a Reshape target or Slice bounds given as inputs). The plan
  // is static, so inputs that decide shapes must be known at load time.
  ConstantInputs constant_inputs;
  // The kernels to use; nullptr means KernelRegistry::Builtin(). Must outlive Build().
  const KernelRegistry* registry = nullptr;
  // Refuse models whose arena, or any one tensor (folded constants included), would be
  // larger. The default only stops absurd sizes; the daemon sets the device's budget.
  std::int64_t max_arena_bytes = kMaxTensorBytes;
  // Run the graph optimizations: Conv+BatchNormalization folding and activation fusion
  // (engine/passes.h). Off, every node of the graph as loaded runs its reference kernel.
  bool optimize = true;
  // With `optimize`, also run the CPU layout pass (engine/layout_pass.h): convolutions,
  // pooling and dense layers on the optimized NHWC kernels with packed weights. Off only to
  // look at (or compare with) the fused graph in plain layout.
  bool cpu_layout = true;
};

// A graph input or output as callers see it.
struct IoInfo {
  std::string name;
  TensorInfo info;
};

struct OpCount {
  int nodes = 0;
  std::uint64_t flops = 0;
};

struct ModelStats {
  int model_nodes = 0;              // Nodes in the graph as loaded.
  int folded_nodes = 0;             // Evaluated at load time.
  int removed_nodes = 0;            // Identity/Dropout and dead nodes.
  int fused_nodes = 0;              // Folded into a Conv or fused into their producer.
  int executed_nodes = 0;           // Steps of one inference.
  int layout_reorders = 0;          // Transposes the layout pass added between NCHW and NHWC.
  std::int64_t parameters = 0;      // Elements of floating-point initializers and Constant nodes.
  std::int64_t constant_bytes = 0;  // Memory held by constants and packed weights.
  std::uint64_t flops = 0;          // Of one inference (a multiply-add counts 2).
  std::int64_t arena_bytes = 0;     // One session's arena (activations and scratch).
  std::int64_t unshared_bytes = 0;  // What the same buffers take without reuse, for comparison.
  int outputs_reusing_inputs = 0;   // Outputs given an input's buffer (Kernel::OutputReusesInput).
  std::map<std::string, int> model_ops;         // Op histogram of the graph as loaded.
  std::map<std::string, OpCount> executed_ops;  // Of the executed steps, by Step::label.
};

class Model {
 public:
  // Prepares `graph` (see the file comment). Errors name the node and what is wrong or
  // unsupported; nothing is half-built on failure.
  static Result<std::shared_ptr<const Model>> Build(Graph graph, const ModelOptions& options);

  const std::vector<IoInfo>& inputs() const { return inputs_; }
  const std::vector<IoInfo>& outputs() const { return outputs_; }
  const ModelStats& stats() const { return stats_; }
  // The graph after the passes: every value's resolved type, the constants. For tools and
  // checks; execution uses steps() and slots().
  const Graph& graph() const { return graph_; }

  // --- Execution plan, for Session. ---
  // Where a value lives during a run.
  struct Slot {
    TensorInfo info;
    enum class Kind : std::uint8_t { kNone, kArena, kConstant } kind = Kind::kNone;
    std::int64_t offset = 0;           // kArena: byte offset in the arena.
    const Tensor* constant = nullptr;  // kConstant: owned by the model's graph.
  };
  struct Step {
    NodeId node = kNoNode;
    std::string name;  // Node name, or its first output's name when it has none.
    std::string op_type;
    FusedActivation activation;  // Applied by the kernel to output 0 (engine/activation.h).
    std::string label;           // op_type, or "Conv+Relu" with a fused activation.
    std::unique_ptr<Kernel> kernel;
    std::vector<ValueId> inputs;   // kNoValue where omitted.
    std::vector<ValueId> outputs;  // kNoValue where omitted.
    std::int64_t scratch_offset = 0;
    std::size_t scratch_bytes = 0;
    std::uint64_t flops = 0;
  };
  const std::vector<Step>& steps() const { return steps_; }
  const std::vector<Slot>& slots() const { return slots_; }
  // Graph input/output i lives in slots()[input_values()[i]].
  const std::vector<ValueId>& input_values() const { return input_values_; }
  const std::vector<ValueId>& output_values() const { return output_values_; }

 private:
  Model() = default;

  Graph graph_;  // Owns the constants the slots point to.
  std::vector<IoInfo> inputs_;
  std::vector<IoInfo> outputs_;
  std::vector<ValueId> input_values_;
  std::vector<ValueId> output_values_;
  std::vector<Slot> slots_;
  std::vector<Step> steps_;
  ModelStats stats_;
};

}  // namespace edgemond::engine

#endif  // EDGEMOND_ENGINE_MODEL_H_
