// NvmlLibrary: NVIDIA's management library (libnvidia-ml.so.1), loaded at run time with dlopen so
// that edgemond has no link-time dependency on it and runs unchanged where it is absent.
//
// The declarations below are the subset of the NVML C ABI edgemond calls, written from NVIDIA's
// NVML API reference (nvml.h is not packaged in Debian main, and a build must not need it). Types
// and values are part of NVIDIA's stable ABI: function names carrying a version suffix (_v2, _v3)
// are exactly the versions whose structures are declared here.
//
// Ownership: an NvmlLibrary owns the dlopen handle and one nvmlInit_v2; its destructor calls
// nvmlShutdown and dlclose. Device handles stay valid until then (NVML never frees them while the
// library is initialised), so callers keep them between ticks instead of looking them up again.
//
// Thread safety: NVML itself is thread-safe; this class has no state after Load().

#ifndef EDGEMOND_COLLECTORS_INTERNAL_NVML_LIBRARY_H_
#define EDGEMOND_COLLECTORS_INTERNAL_NVML_LIBRARY_H_

#include <memory>
#include <string>
#include <string_view>

#include "core/result.h"

namespace edgemond::collectors::internal {

namespace nvml {

using Return = int;  // nvmlReturn_t: a C enum.
struct DeviceSt;     // Opaque.
using Device = DeviceSt*;

inline constexpr Return kSuccess = 0;
inline constexpr Return kErrorUninitialized = 1;
inline constexpr Return kErrorNotSupported = 3;
inline constexpr Return kErrorNoPermission = 4;
inline constexpr Return kErrorDriverNotLoaded = 9;
inline constexpr Return kErrorLibraryNotFound = 12;
inline constexpr Return kErrorGpuIsLost = 15;

inline constexpr int kTemperatureGpu = 0;  // nvmlTemperatureSensors_t NVML_TEMPERATURE_GPU.
inline constexpr int kClockSm = 1;         // nvmlClockType_t NVML_CLOCK_SM.
inline constexpr int kClockMem = 2;        // nvmlClockType_t NVML_CLOCK_MEM.

inline constexpr unsigned kNameBufferSize = 96;  // NVML_DEVICE_NAME_V2_BUFFER_SIZE.

struct Utilization {  // nvmlUtilization_t: percentages over the driver's last sample period.
  unsigned int gpu;
  unsigned int memory;
};

struct Memory {  // nvmlMemory_t: bytes.
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
};

struct PciInfo {  // nvmlPciInfo_t, as filled by nvmlDeviceGetPciInfo_v3.
  char bus_id_legacy[16];
  unsigned int domain;
  unsigned int bus;
  unsigned int device;
  unsigned int pci_device_id;
  unsigned int pci_subsystem_id;
  char bus_id[32];  // "00000000:01:00.0"
};

// nvmlClocksEventReasons (formerly ...ThrottleReasons) bits.
inline constexpr unsigned long long kReasonGpuIdle = 0x1;
inline constexpr unsigned long long kReasonApplicationsClocks = 0x2;
inline constexpr unsigned long long kReasonSwPowerCap = 0x4;
inline constexpr unsigned long long kReasonHwSlowdown = 0x8;
inline constexpr unsigned long long kReasonSyncBoost = 0x10;
inline constexpr unsigned long long kReasonSwThermalSlowdown = 0x20;
inline constexpr unsigned long long kReasonHwThermalSlowdown = 0x40;
inline constexpr unsigned long long kReasonHwPowerBrakeSlowdown = 0x80;
inline constexpr unsigned long long kReasonDisplayClocks = 0x100;

// The symbolic name of a return code ("NVML_ERROR_NOT_SUPPORTED"), from NVIDIA's enum; used as the
// missing-value reason, so it must not depend on the library's nvmlErrorString.
std::string ErrorName(Return code);

}  // namespace nvml

class NvmlLibrary {
 public:
  // The functions edgemond calls. Required ones are never null after Load(); optional ones are
  // null when this driver's library does not export them (older drivers).
  struct Functions {
    nvml::Return (*init)();      // nvmlInit_v2
    nvml::Return (*shutdown)();  // nvmlShutdown
    nvml::Return (*get_count)(unsigned int*);
    nvml::Return (*get_handle_by_index)(unsigned int, nvml::Device*);
    // Optional from here on.
    nvml::Return (*get_name)(nvml::Device, char*, unsigned int);
    nvml::Return (*get_pci_info)(nvml::Device, nvml::PciInfo*);
    nvml::Return (*get_utilization)(nvml::Device, nvml::Utilization*);
    nvml::Return (*get_memory)(nvml::Device, nvml::Memory*);
    nvml::Return (*get_temperature)(nvml::Device, int, unsigned int*);
    nvml::Return (*get_power_usage)(nvml::Device, unsigned int*);
    nvml::Return (*get_total_energy)(nvml::Device, unsigned long long*);
    nvml::Return (*get_enforced_power_limit)(nvml::Device, unsigned int*);
    nvml::Return (*get_clock)(nvml::Device, int, unsigned int*);
    nvml::Return (*get_max_clock)(nvml::Device, int, unsigned int*);
    // nvmlDeviceGetCurrentClocksEventReasons, or its older name ...ThrottleReasons.
    nvml::Return (*get_clock_event_reasons)(nvml::Device, unsigned long long*);
  };

  // dlopen()s `path` (a file name searched like any library, or a path) and calls nvmlInit_v2.
  //   kNotFound           the library cannot be loaded, or the NVIDIA driver is not loaded: this
  //                       machine has no usable NVIDIA GPU (not an error worth more than debug)
  //   kUnsupported        the library lacks a required function
  //   kUnavailable        nvmlInit_v2 failed otherwise (message names the NVML error)
  static Result<std::unique_ptr<NvmlLibrary>> Load(const std::string& path);

  ~NvmlLibrary();
  NvmlLibrary(const NvmlLibrary&) = delete;
  NvmlLibrary& operator=(const NvmlLibrary&) = delete;

  const Functions& functions() const { return functions_; }

 private:
  // Only Load() constructs one; the key lets it use make_unique.
  struct PassKey {
    explicit PassKey() = default;
  };

 public:
  NvmlLibrary(PassKey, void* handle, const Functions& functions)
      : handle_(handle), functions_(functions) {}

 private:
  void* handle_;  // Owned: dlclose()d by the destructor.
  Functions functions_;
};

}  // namespace edgemond::collectors::internal

#endif  // EDGEMOND_COLLECTORS_INTERNAL_NVML_LIBRARY_H_
