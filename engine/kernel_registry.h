// KernelRegistry: which kernel implements which (domain, operator, opset) triple.
//
// Keys follow ONNX Runtime's opset-versioned registration: an entry covers an operator as ONNX
// defines it from `since_version` through `until_version` (inclusive), so a node resolves by
// the model's opset import for its domain. An ONNX version bump that changes nothing the
// kernel implements (new types the kernel does not accept, documentation) is covered by
// extending the range; a bump that changes semantics gets a new entry or a check of opset()
// in Prepare(). Ranges end at the newest opset whose definition was checked (kNewestOpset);
// models that import a newer opset are refused rather than guessed at.
//
// The built-in kernels are listed explicitly, one line per op, in builtin_kernels.cc: no
// static self-registration (initialization order is unspecified), the list is greppable, and
// an application can build a registry with only the kernels it needs (tflite-micro's
// MicroMutableOpResolver).
//
// Thread safety: a registry is filled once, then only read; Builtin() is immutable.

#ifndef EDGEMOND_ENGINE_KERNEL_REGISTRY_H_
#define EDGEMOND_ENGINE_KERNEL_REGISTRY_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "engine/kernel.h"

namespace edgemond::engine {

// The newest ai.onnx opset whose operator definitions the built-in kernels were checked
// against (ONNX 1.23's operator set). Also the highest opset import a model may have.
inline constexpr int kNewestOpset = 28;

// The domain of the operators the engine's own passes create (edgemond.NhwcConv, ...;
// engine/layout_pass.h). Models may not use it: the loader refuses it.
inline constexpr char kInternalDomain[] = "edgemond";

using KernelFactory = std::unique_ptr<Kernel> (*)();

template <typename K>
std::unique_ptr<Kernel> MakeKernel() {
  return std::make_unique<K>();
}

struct KernelDef {
  std::string domain;  // "" for ai.onnx.
  std::string op_type;
  int since_version = 1;             // First opset whose definition the kernel implements.
  int until_version = kNewestOpset;  // Last such opset, inclusive.
  KernelFactory factory = nullptr;
};

class KernelRegistry {
 public:
  KernelRegistry() = default;
  KernelRegistry(KernelRegistry&&) noexcept = default;
  KernelRegistry& operator=(KernelRegistry&&) noexcept = default;

  // Adds an entry. Fails (kInvalidArgument) when its range overlaps an entry for the same op
  // or is empty: a node must resolve to exactly one kernel.
  Status Add(KernelDef def);

  // The entry for a node. kUnsupported when the op is unknown ("no kernel for operator
  // 'Foo'") or the opset is outside every entry ("Conv is implemented for opsets 1-28, the
  // model imports opset 30"). "ai.onnx" is the same domain as "".
  Result<const KernelDef*> Find(std::string_view domain, std::string_view op_type, int opset) const;

  const std::vector<KernelDef>& defs() const { return defs_; }

  // The registry of every built-in reference kernel (builtin_kernels.cc). Never destroyed.
  static const KernelRegistry& Builtin();

 private:
  std::vector<KernelDef> defs_;
};

// Adds every built-in kernel to `registry` (builtin_kernels.cc).
Status RegisterBuiltinKernels(KernelRegistry& registry);

}  // namespace edgemond::engine

#endif  // EDGEMOND_ENGINE_KERNEL_REGISTRY_H_
