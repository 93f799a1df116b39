#include "engine/kernel_registry.h"

#include <cstdlib>

namespace edgemond::engine {
namespace {

std::string_view NormalizeDomain(std::string_view domain) {
  return domain == "ai.onnx" ? std::string_view() : domain;
}

std::string OpName(std::string_view domain, std::string_view op_type) {
  if (domain.empty()) return std::string(op_type);
  return std::string(domain) + "." + std::string(op_type);
}

}  // namespace

Status KernelRegistry::Add(KernelDef def) {
  def.domain = std::string(NormalizeDomain(def.domain));
  const std::string name = OpName(def.domain, def.op_type);
  if (def.factory == nullptr || def.since_version < 1 || def.until_version < def.since_version) {
    return Status::InvalidArgument("kernel for " + name +
                                   " has an empty opset range or no factory");
  }
  for (const KernelDef& existing : defs_) {
    if (existing.domain == def.domain && existing.op_type == def.op_type &&
        existing.since_version <= def.until_version &&
        def.since_version <= existing.until_version) {
      return Status::InvalidArgument("kernels for " + name + " overlap at opsets " +
                                     std::to_string(def.since_version) + "-" +
                                     std::to_string(def.until_version));
    }
  }
  defs_.push_back(std::move(def));
  return Status::Ok();
}

Result<const KernelDef*> KernelRegistry::Find(std::string_view domain, std::string_view op_type,
                                              int opset) const {
  domain = NormalizeDomain(domain);
  std::string ranges;
  for (const KernelDef& def : defs_) {
    if (def.domain != domain || def.op_type != op_type) continue;
    if (def.since_version <= opset && opset <= def.until_version) return &def;
    if (!ranges.empty()) ranges += ", ";
    ranges += std::to_string(def.since_version) + "-" + std::to_string(def.until_version);
  }
  const std::string name = OpName(domain, op_type);
  if (ranges.empty()) {
    return Status::Unsupported("no kernel for operator '" + name + "'");
  }
  return Status::Unsupported(name + " is implemented for opsets " + ranges +
                             ", the model imports opset " + std::to_string(opset));
}

const KernelRegistry& KernelRegistry::Builtin() {
  // Leaked on purpose (statics must be trivially destructible). A failure here is a bug in the
  // built-in list, caught by every test that loads a model.
  static const KernelRegistry* const registry = [] {
    auto* built = new KernelRegistry();
    if (!RegisterBuiltinKernels(*built).ok()) std::abort();
    return built;
  }();
  return *registry;
}

}  // namespace edgemond::engine
