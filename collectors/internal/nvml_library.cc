#include "collectors/internal/nvml_library.h"

#include <dlfcn.h>

namespace edgemond::collectors::internal {
namespace nvml {

std::string ErrorName(Return code) {
  static constexpr std::string_view kNames[] = {
      "SUCCESS",
      "NVML_ERROR_UNINITIALIZED",
      "NVML_ERROR_INVALID_ARGUMENT",
      "NVML_ERROR_NOT_SUPPORTED",
      "NVML_ERROR_NO_PERMISSION",
      "NVML_ERROR_ALREADY_INITIALIZED",
      "NVML_ERROR_NOT_FOUND",
      "NVML_ERROR_INSUFFICIENT_SIZE",
      "NVML_ERROR_INSUFFICIENT_POWER",
      "NVML_ERROR_DRIVER_NOT_LOADED",
      "NVML_ERROR_TIMEOUT",
      "NVML_ERROR_IRQ_ISSUE",
      "NVML_ERROR_LIBRARY_NOT_FOUND",
      "NVML_ERROR_FUNCTION_NOT_FOUND",
      "NVML_ERROR_CORRUPTED_INFOROM",
      "NVML_ERROR_GPU_IS_LOST",
      "NVML_ERROR_RESET_REQUIRED",
      "NVML_ERROR_OPERATING_SYSTEM",
      "NVML_ERROR_LIB_RM_VERSION_MISMATCH",
      "NVML_ERROR_IN_USE",
      "NVML_ERROR_MEMORY",
      "NVML_ERROR_NO_DATA",
      "NVML_ERROR_VGPU_ECC_NOT_SUPPORTED",
      "NVML_ERROR_INSUFFICIENT_RESOURCES",
      "NVML_ERROR_FREQ_NOT_SUPPORTED",
      "NVML_ERROR_ARGUMENT_VERSION_MISMATCH",
      "NVML_ERROR_DEPRECATED",
      "NVML_ERROR_NOT_READY",
      "NVML_ERROR_GPU_NOT_FOUND",
      "NVML_ERROR_INVALID_STATE",
  };
  if (code >= 0 && static_cast<std::size_t>(code) < std::size(kNames)) {
    return std::string(kNames[code]);
  }
  if (code == 999) return "NVML_ERROR_UNKNOWN";
  return "NVML error " + std::to_string(code);
}

}  // namespace nvml

namespace {

// dlsym into a typed function pointer; null when the symbol is absent.
template <typename F>
void Resolve(void* handle, const char* symbol, F& out) {
  out = reinterpret_cast<F>(::dlsym(handle, symbol));
}

struct DlCloser {
  void operator()(void* handle) const {
    if (handle != nullptr) ::dlclose(handle);
  }
};

}  // namespace

Result<std::unique_ptr<NvmlLibrary>> NvmlLibrary::Load(const std::string& path) {
  // RTLD_LOCAL: NVML's symbols stay out of the global namespace; RTLD_NOW: a broken library fails
  // here, not at some later call.
  std::unique_ptr<void, DlCloser> handle(::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL));
  if (handle == nullptr) {
    const char* error = ::dlerror();
    return Status::NotFound("cannot load " + path + ": " + (error != nullptr ? error : "unknown"));
  }
  Functions f{};
  Resolve(handle.get(), "nvmlInit_v2", f.init);
  Resolve(handle.get(), "nvmlShutdown", f.shutdown);
  Resolve(handle.get(), "nvmlDeviceGetCount_v2", f.get_count);
  Resolve(handle.get(), "nvmlDeviceGetHandleByIndex_v2", f.get_handle_by_index);
  if (f.init == nullptr || f.shutdown == nullptr || f.get_count == nullptr ||
      f.get_handle_by_index == nullptr) {
    return Status::Unsupported(path +
                               " lacks nvmlInit_v2, nvmlShutdown, nvmlDeviceGetCount_v2 or " +
                               "nvmlDeviceGetHandleByIndex_v2");
  }
  Resolve(handle.get(), "nvmlDeviceGetName", f.get_name);
  Resolve(handle.get(), "nvmlDeviceGetPciInfo_v3", f.get_pci_info);
  Resolve(handle.get(), "nvmlDeviceGetUtilizationRates", f.get_utilization);
  Resolve(handle.get(), "nvmlDeviceGetMemoryInfo", f.get_memory);
  Resolve(handle.get(), "nvmlDeviceGetTemperature", f.get_temperature);
  Resolve(handle.get(), "nvmlDeviceGetPowerUsage", f.get_power_usage);
  Resolve(handle.get(), "nvmlDeviceGetTotalEnergyConsumption", f.get_total_energy);
  Resolve(handle.get(), "nvmlDeviceGetEnforcedPowerLimit", f.get_enforced_power_limit);
  Resolve(handle.get(), "nvmlDeviceGetClockInfo", f.get_clock);
  Resolve(handle.get(), "nvmlDeviceGetMaxClockInfo", f.get_max_clock);
  Resolve(handle.get(), "nvmlDeviceGetCurrentClocksEventReasons", f.get_clock_event_reasons);
  if (f.get_clock_event_reasons == nullptr) {
    // Drivers before 535 export the same function under its old name.
    Resolve(handle.get(), "nvmlDeviceGetCurrentClocksThrottleReasons", f.get_clock_event_reasons);
  }
  const nvml::Return init = f.init();
  if (init == nvml::kErrorDriverNotLoaded) {
    return Status::NotFound(path + ": the NVIDIA driver is not loaded");
  }
  if (init != nvml::kSuccess) {
    return Status::Unavailable(path + ": nvmlInit_v2 failed with " + nvml::ErrorName(init));
  }
  return std::make_unique<NvmlLibrary>(PassKey(), handle.release(), f);
}

NvmlLibrary::~NvmlLibrary() {
  functions_.shutdown();
  ::dlclose(handle_);
}

}  // namespace edgemond::collectors::internal
