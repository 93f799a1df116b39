// Kernel: the implementation of one ONNX operator, and the two contexts it works in.
//
// Lifecycle (after ncnn's Layer and tflite-micro's Prepare/Eval; docs/adr/0103):
//  1. The registry (engine/kernel_registry.h) creates a kernel for a node; construction never
//     fails and does nothing.
//  2. Prepare(PrepareContext&) runs once, when the model is built: it reads and validates the
//     attributes, checks input types and shapes, sets the type and shape of every output, asks
//     for scratch memory and estimates FLOPs. This is also where an optimized kernel packs its
//     weights (constant inputs are visible here) and where a kernel may later declare the
//     layout it wants. Whatever is unsupported is refused here with kUnsupported, so a model
//     either loads and runs correctly or does not load.
//  3. Run(const RunContext&) computes the outputs, any number of times, from any number of
//     sessions at once: a prepared kernel is immutable, so Run() is const and thread-safe.
//
// Rules for Run(): outputs never alias inputs (except the inputs a kernel declares with
// InPlaceInputOffset, whose producers have already written them into its output, and the one
// it declares with OutputReusesInput); output buffers are uninitialized; every element
// of every present output must be written. Run() must not allocate: scratch memory is planned
// ahead (PrepareContext::SetScratchBytes) and handed in through RunContext::scratch().
//
// Reference kernels (engine/kernels/<op>.cc) are plain loops and are the ground truth; optimized
// kernels subclass or sit beside them and are tested against them (docs/adr/0103).

#ifndef EDGEMOND_ENGINE_KERNEL_H_
#define EDGEMOND_ENGINE_KERNEL_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "engine/activation.h"
#include "engine/cpu/thread_pool.h"
#include "engine/graph.h"
#include "engine/tensor.h"

namespace edgemond::engine {

// Typed access to a node's attributes. Every attribute a kernel reads (or explicitly ignores)
// is recorded; after Prepare() the engine refuses the node if the model set any attribute the
// kernel never looked at, so an attribute we do not implement cannot be silently dropped.
class AttributeReader {
 public:
  explicit AttributeReader(std::span<const Attribute> attributes)
      : attributes_(attributes), read_(attributes.size(), false) {}

  bool Has(std::string_view name) const { return Find(name) != nullptr; }

  // Each getter returns the default (or an empty list / nullptr) when the attribute is absent
  // and kInvalidArgument when it has another type.
  Result<std::int64_t> GetInt(std::string_view name, std::int64_t default_value);
  Result<std::int64_t> GetRequiredInt(std::string_view name);
  Result<float> GetFloat(std::string_view name, float default_value);
  Result<std::string> GetString(std::string_view name, std::string_view default_value);
  Result<std::vector<std::int64_t>> GetInts(std::string_view name);
  Result<std::vector<float>> GetFloats(std::string_view name);
  Result<std::vector<std::string>> GetStrings(std::string_view name);
  Result<const Tensor*> GetTensor(std::string_view name);

  // Accepts an attribute that has no effect on inference (Dropout's seed).
  void Ignore(std::string_view name);

  // Names of attributes present in the node and never read nor ignored.
  std::vector<std::string> Unread() const;

 private:
  const Attribute* Find(std::string_view name) const;
  Result<const Attribute*> Take(std::string_view name, Attribute::Type type);

  std::span<const Attribute> attributes_;
  std::vector<bool> read_;
};

// What a kernel sees of its node while the model is being built.
class PrepareContext {
 public:
  // `inputs[i]` is null for an omitted optional input; `constants[i]` is non-null when input i
  // is known at load time. `output_present[i]` is false for an omitted optional output.
  PrepareContext(const Node& node, std::vector<const TensorInfo*> inputs,
                 std::vector<const Tensor*> constants, std::vector<bool> output_present);

  const Node& node() const { return node_; }
  std::string_view op_type() const { return node_.op_type; }
  // The model's opset version for the node's domain.
  int opset() const { return node_.opset; }
  AttributeReader& attributes() { return attributes_; }
  // The activation the kernel must apply to output 0 (engine/activation.h); kNone unless the
  // fusion pass fused one into the node, which it does only for kinds the kernel declares with
  // Kernel::SupportsActivation().
  const FusedActivation& activation() const { return node_.activation; }

  int num_inputs() const { return static_cast<int>(inputs_.size()); }
  bool has_input(int index) const {
    return index < num_inputs() && inputs_[static_cast<std::size_t>(index)] != nullptr;
  }
  // REQUIRES: has_input(index).
  const TensorInfo& input(int index) const { return *inputs_[static_cast<std::size_t>(index)]; }
  // The input's value when it is a load-time constant, else nullptr.
  const Tensor* constant(int index) const {
    return index < num_inputs() ? constants_[static_cast<std::size_t>(index)] : nullptr;
  }

  int num_outputs() const { return static_cast<int>(output_present_.size()); }
  bool has_output(int index) const {
    return index < num_outputs() && output_present_[static_cast<std::size_t>(index)];
  }
  // Sets output `index`'s type and shape. Fails for shapes CheckedByteSize() refuses.
  // Outputs the node omits are ignored.
  Status SetOutput(int index, DataType dtype, Shape shape);

  // Scratch memory Run() needs, planned into the session arena for the node's duration.
  void SetScratchBytes(std::size_t bytes) { scratch_bytes_ = bytes; }
  // Floating-point operations of one Run() (a multiply-add counts 2), for reports.
  void SetFlops(std::uint64_t flops) { flops_ = flops; }

  // Helpers for the common checks; their messages name the input. The type and rank checks
  // also fail when the input is absent, so they are safe to call first.
  Status RequireInputCount(int min, int max) const;
  Status RequireInputType(int index, std::initializer_list<DataType> allowed) const;
  Status RequireInputRank(int index, int min_rank, int max_rank) const;

  // Results, read by the engine after Prepare().
  const std::vector<std::optional<TensorInfo>>& outputs() const { return outputs_; }
  std::size_t scratch_bytes() const { return scratch_bytes_; }
  std::uint64_t flops() const { return flops_; }

 private:
  const Node& node_;
  AttributeReader attributes_;
  std::vector<const TensorInfo*> inputs_;
  std::vector<const Tensor*> constants_;
  std::vector<bool> output_present_;
  std::vector<std::optional<TensorInfo>> outputs_;
  std::size_t scratch_bytes_ = 0;
  std::uint64_t flops_ = 0;
};

// What a kernel sees of one inference. Built by the session once, reused for every run.
class RunContext {
 public:
  // `inputs[i]` / `outputs[i]` for an omitted input/output are default views with
  // `*_present[i]` false.
  RunContext(std::span<const ConstTensorView> inputs, std::span<const bool> input_present,
             std::span<const TensorView> outputs, std::span<const bool> output_present,
             std::span<std::byte> scratch, int threads, ThreadPool* pool = nullptr,
             std::int64_t model_constant_bytes = 0)
      : inputs_(inputs),
        input_present_(input_present),
        outputs_(outputs),
        output_present_(output_present),
        scratch_(scratch),
        threads_(threads),
        pool_(pool),
        model_constant_bytes_(model_constant_bytes) {}

  int num_inputs() const { return static_cast<int>(inputs_.size()); }
  bool has_input(int index) const {
    return index < num_inputs() && input_present_[static_cast<std::size_t>(index)];
  }
  const ConstTensorView& input(int index) const { return inputs_[static_cast<std::size_t>(index)]; }

  int num_outputs() const { return static_cast<int>(outputs_.size()); }
  bool has_output(int index) const {
    return index < num_outputs() && output_present_[static_cast<std::size_t>(index)];
  }
  const TensorView& output(int index) const { return outputs_[static_cast<std::size_t>(index)]; }

  std::span<std::byte> scratch() const { return scratch_; }
  // Threads the kernel may use (>= 1).
  int threads() const { return threads_; }
  // The session's workers for ParallelFor (engine/cpu/thread_pool.h); null when the kernel
  // runs on the calling thread only. Kernels split work with ParallelFor(pool(), ...), which
  // runs inline when this is null.
  ThreadPool* pool() const { return pool_; }
  // The bytes of constants and packed weights the whole model holds (ModelStats::
  // constant_bytes), the kernel's own included; 0 outside a session. A kernel may read its
  // weights as coming from memory when these are beyond the cache: between two runs of a
  // kernel, the other kernels' weights have passed through the cache.
  std::int64_t model_constant_bytes() const { return model_constant_bytes_; }
  // model_constant_bytes() less the kernel's own (its Kernel::PackedBytes()), at least 0.
  std::int64_t OtherConstantBytes(std::size_t own_bytes) const {
    const auto own = static_cast<std::int64_t>(own_bytes);
    return model_constant_bytes_ > own ? model_constant_bytes_ - own : 0;
  }

 private:
  std::span<const ConstTensorView> inputs_;
  std::span<const bool> input_present_;
  std::span<const TensorView> outputs_;
  std::span<const bool> output_present_;
  std::span<std::byte> scratch_;
  int threads_;
  ThreadPool* pool_;
  std::int64_t model_constant_bytes_;
};

class Kernel {
 public:
  virtual ~Kernel() = default;

  virtual Status Prepare(PrepareContext& context) = 0;
  virtual Status Run(const RunContext& context) const = 0;

  // Whether Run() reads the elements of input `index`, not just its shape. Shape overrides it;
  // constant folding uses it to fold nodes whose data inputs are all constant.
  virtual bool ReadsInputData(int index) const {
    (void)index;
    return true;
  }

  // Whether the kernel applies a fused activation of `kind` to output 0 when its node carries
  // one (PrepareContext::activation()). A property of the kernel class, never of Prepare(): the
  // fusion pass asks a freshly created kernel, and fuses only kinds it declares; the engine
  // refuses a node carrying an activation its kernel does not declare. engine/activation.h
  // states the whole contract. kNone is always supported.
  virtual bool SupportsActivation(ActivationKind kind) const {
    return kind == ActivationKind::kNone;
  }

  // Whether Run() reads input `index` at all. False for constant inputs that Prepare() copied
  // into the kernel (packed weights): the model then releases the constant, so that weights
  // are not held twice (ONNX Runtime's pre-packing does the same).
  virtual bool ReadsInputAtRun(int index) const {
    (void)index;
    return true;
  }
  // Bytes of constant data the kernel holds (packed weights), for Model::stats().
  virtual std::size_t PackedBytes() const { return 0; }

  // For input `index` written in place by its producer into this kernel's output 0 (a channel
  // concatenation whose inputs are convolutions storing with the output's pixel stride): the
  // input's byte offset in output 0. The model then gives the input no buffer of its own but
  // that address, and Run() leaves those elements alone. nullopt (the default): an ordinary
  // input.
  virtual std::optional<std::int64_t> InPlaceInputOffset(int index) const {
    (void)index;
    return std::nullopt;
  }

  // An input whose buffer output 0 may take over when this step is the input's last reader:
  // Run() reads each element of that input before it writes the same element of output 0, and
  // reads no element of it after writing that element (a residual added to a convolution's
  // output). The model gives output 0 the input's buffer when the input is an intermediate of
  // the same size that no later step reads and that no other input of the step is; Run() must
  // then work both ways. nullopt (the default): the output gets a buffer of its own.
  virtual std::optional<int> OutputReusesInput() const { return std::nullopt; }
};

}  // namespace edgemond::engine

#endif  // EDGEMOND_ENGINE_KERNEL_H_
