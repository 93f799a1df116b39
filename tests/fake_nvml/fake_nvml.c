/*
 * A fake NVIDIA management library for edgemond's tests: a shared library that exports the part
 * of the NVML C ABI the nvidia_gpu collector calls, so that the collector's real dlopen/dlsym path
 * runs in every test run, without an NVIDIA GPU or driver.
 *
 * Written in C from NVIDIA's documented nvml.h declarations (types, values, function names),
 * independently of edgemond's own declarations in collectors/internal/nvml_library.h: a layout
 * mistake on either side shows up as a test failure rather than agreeing with itself.
 *
 * What the library reports is read from a state file named by $EDGEMOND_FAKE_NVML_STATE, again at
 * every call, so a test can change the "hardware" between ticks. One line per setting:
 *
 *   init <code>                        what nvmlInit_v2 returns (default SUCCESS)
 *   device                             starts the next device (index 0, 1, ...)
 *   name <text to the end of line>
 *   pci <domain:bus:device.function>   hex, as lspci prints it: 0000:01:00.0
 *   utilization <gpu %> <memory %>
 *   memory <total> <free> <used>       bytes
 *   temperature <celsius>
 *   power <milliwatts>
 *   power_limit <milliwatts>
 *   energy <millijoules>
 *   clock_sm <MHz>    clock_mem <MHz>    max_clock_sm <MHz>
 *   reasons <bitmask>                  clock event (throttle) reasons, 0x... or decimal
 *   error <function|*> <code>          that function (or every device function) of this device
 *                                      returns <code>, e.g. "error nvmlDeviceGetPowerUsage
 *                                      NOT_SUPPORTED" or "error * GPU_IS_LOST"
 * <code> is a name without the NVML_ERROR_ prefix (SUCCESS, NOT_SUPPORTED, NO_PERMISSION,
 * DRIVER_NOT_LOADED, GPU_IS_LOST, UNKNOWN, ...) or a number. '#' starts a comment line.
 *
 * If $EDGEMOND_FAKE_NVML_LOG names a file, every call appends its function name there, one per
 * line, so tests can check how often edgemond initialises NVML.
 *
 * Like drivers before 535, it exports nvmlDeviceGetCurrentClocksThrottleReasons but not its newer
 * name nvmlDeviceGetCurrentClocksEventReasons, which exercises edgemond's fallback.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* From nvml.h. */
typedef int nvmlReturn_t;
typedef struct nvmlDevice_st* nvmlDevice_t;
typedef struct nvmlUtilization_st {
  unsigned int gpu;
  unsigned int memory;
} nvmlUtilization_t;
typedef struct nvmlMemory_st {
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
} nvmlMemory_t;
typedef struct nvmlPciInfo_st {
  char busIdLegacy[16];
  unsigned int domain;
  unsigned int bus;
  unsigned int device;
  unsigned int pciDeviceId;
  unsigned int pciSubSystemId;
  char busId[32];
} nvmlPciInfo_t;

enum {
  NVML_SUCCESS = 0,
  NVML_ERROR_UNINITIALIZED = 1,
  NVML_ERROR_INVALID_ARGUMENT = 2,
  NVML_ERROR_NOT_SUPPORTED = 3,
  NVML_ERROR_INSUFFICIENT_SIZE = 7,
  NVML_ERROR_UNKNOWN = 999,
};
enum { NVML_TEMPERATURE_GPU = 0 };
enum { NVML_CLOCK_GRAPHICS = 0, NVML_CLOCK_SM = 1, NVML_CLOCK_MEM = 2, NVML_CLOCK_VIDEO = 3 };

#define FAKE_MAX_DEVICES 8
#define FAKE_MAX_ERRORS 32

struct nvmlDevice_st {
  unsigned int index;
};

struct fake_error {
  char function[64];
  nvmlReturn_t code;
};

struct fake_device {
  char name[96];
  int has_pci;
  unsigned int domain, bus, device, function;
  unsigned int util_gpu, util_memory;
  unsigned long long memory_total, memory_free, memory_used;
  unsigned int temperature, power, power_limit, clock_sm, clock_mem, max_clock_sm;
  unsigned long long energy, reasons;
  struct fake_error errors[FAKE_MAX_ERRORS];
  int error_count;
};

struct fake_state {
  nvmlReturn_t init;
  unsigned int count;
  struct fake_device devices[FAKE_MAX_DEVICES];
};

static struct nvmlDevice_st handles[FAKE_MAX_DEVICES];
static int initialized;

static void log_call(const char* function) {
  const char* path = getenv("EDGEMOND_FAKE_NVML_LOG");
  if (path == NULL || path[0] == '\0') return;
  FILE* log = fopen(path, "a");
  if (log == NULL) return;
  fprintf(log, "%s\n", function);
  fclose(log);
}

static nvmlReturn_t parse_code(const char* text) {
  static const char* const names[] = {
      "SUCCESS",
      "UNINITIALIZED",
      "INVALID_ARGUMENT",
      "NOT_SUPPORTED",
      "NO_PERMISSION",
      "ALREADY_INITIALIZED",
      "NOT_FOUND",
      "INSUFFICIENT_SIZE",
      "INSUFFICIENT_POWER",
      "DRIVER_NOT_LOADED",
      "TIMEOUT",
      "IRQ_ISSUE",
      "LIBRARY_NOT_FOUND",
      "FUNCTION_NOT_FOUND",
      "CORRUPTED_INFOROM",
      "GPU_IS_LOST",
  };
  for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); ++i) {
    if (strcmp(text, names[i]) == 0) return (nvmlReturn_t)i;
  }
  if (strcmp(text, "UNKNOWN") == 0) return NVML_ERROR_UNKNOWN;
  return (nvmlReturn_t)strtol(text, NULL, 0);
}

/* Reads the state file; an unreadable one is a machine with no GPU. */
static void load_state(struct fake_state* state) {
  memset(state, 0, sizeof(*state));
  state->init = NVML_SUCCESS;
  const char* path = getenv("EDGEMOND_FAKE_NVML_STATE");
  FILE* file = path != NULL ? fopen(path, "r") : NULL;
  if (file == NULL) return;
  char line[512];
  struct fake_device* device = NULL;
  while (fgets(line, sizeof(line), file) != NULL) {
    line[strcspn(line, "\r\n")] = '\0';
    char key[64] = "";
    int consumed = 0;
    if (line[0] == '#' || sscanf(line, "%63s %n", key, &consumed) < 1) continue;
    const char* rest = line + consumed;
    if (strcmp(key, "init") == 0) {
      state->init = parse_code(rest);
    } else if (strcmp(key, "device") == 0) {
      device = state->count < FAKE_MAX_DEVICES ? &state->devices[state->count++] : NULL;
    } else if (device == NULL) {
      continue;
    } else if (strcmp(key, "name") == 0) {
      snprintf(device->name, sizeof(device->name), "%s", rest);
    } else if (strcmp(key, "pci") == 0) {
      device->has_pci = sscanf(rest, "%x:%x:%x.%x", &device->domain, &device->bus, &device->device,
                               &device->function) == 4;
    } else if (strcmp(key, "utilization") == 0) {
      sscanf(rest, "%u %u", &device->util_gpu, &device->util_memory);
    } else if (strcmp(key, "memory") == 0) {
      sscanf(rest, "%llu %llu %llu", &device->memory_total, &device->memory_free,
             &device->memory_used);
    } else if (strcmp(key, "temperature") == 0) {
      device->temperature = (unsigned int)strtoul(rest, NULL, 0);
    } else if (strcmp(key, "power") == 0) {
      device->power = (unsigned int)strtoul(rest, NULL, 0);
    } else if (strcmp(key, "power_limit") == 0) {
      device->power_limit = (unsigned int)strtoul(rest, NULL, 0);
    } else if (strcmp(key, "energy") == 0) {
      device->energy = strtoull(rest, NULL, 0);
    } else if (strcmp(key, "clock_sm") == 0) {
      device->clock_sm = (unsigned int)strtoul(rest, NULL, 0);
    } else if (strcmp(key, "clock_mem") == 0) {
      device->clock_mem = (unsigned int)strtoul(rest, NULL, 0);
    } else if (strcmp(key, "max_clock_sm") == 0) {
      device->max_clock_sm = (unsigned int)strtoul(rest, NULL, 0);
    } else if (strcmp(key, "reasons") == 0) {
      device->reasons = strtoull(rest, NULL, 0);
    } else if (strcmp(key, "error") == 0 && device->error_count < FAKE_MAX_ERRORS) {
      struct fake_error* error = &device->errors[device->error_count];
      char code[64] = "";
      if (sscanf(rest, "%63s %63s", error->function, code) == 2) {
        error->code = parse_code(code);
        ++device->error_count;
      }
    }
  }
  fclose(file);
}

/* The device behind a handle, after the checks every device function makes; NULL with *ret set
 * when the call must fail. */
static const struct fake_device* begin(const char* function, nvmlDevice_t handle,
                                       struct fake_state* state, nvmlReturn_t* ret) {
  log_call(function);
  load_state(state);
  if (!initialized) {
    *ret = NVML_ERROR_UNINITIALIZED;
    return NULL;
  }
  if (handle == NULL || handle < &handles[0] || handle >= &handles[FAKE_MAX_DEVICES] ||
      handle->index >= state->count) {
    *ret = NVML_ERROR_INVALID_ARGUMENT;
    return NULL;
  }
  const struct fake_device* device = &state->devices[handle->index];
  for (int i = 0; i < device->error_count; ++i) {
    if (strcmp(device->errors[i].function, function) == 0 ||
        strcmp(device->errors[i].function, "*") == 0) {
      *ret = device->errors[i].code;
      return NULL;
    }
  }
  *ret = NVML_SUCCESS;
  return device;
}

#define FAKE_BEGIN(handle)                                                    \
  struct fake_state state;                                                    \
  nvmlReturn_t ret;                                                           \
  const struct fake_device* device = begin(__func__, (handle), &state, &ret); \
  if (device == NULL) return ret

nvmlReturn_t nvmlInit_v2(void) {
  log_call(__func__);
  struct fake_state state;
  load_state(&state);
  if (state.init != NVML_SUCCESS) return state.init;
  for (unsigned int i = 0; i < FAKE_MAX_DEVICES; ++i) handles[i].index = i;
  ++initialized;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlShutdown(void) {
  log_call(__func__);
  if (!initialized) return NVML_ERROR_UNINITIALIZED;
  --initialized;
  return NVML_SUCCESS;
}

const char* nvmlErrorString(nvmlReturn_t result) {
  return result == NVML_SUCCESS ? "Success" : "Fake NVML error";
}

nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int* count) {
  log_call(__func__);
  if (!initialized) return NVML_ERROR_UNINITIALIZED;
  if (count == NULL) return NVML_ERROR_INVALID_ARGUMENT;
  struct fake_state state;
  load_state(&state);
  *count = state.count;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t* device) {
  log_call(__func__);
  if (!initialized) return NVML_ERROR_UNINITIALIZED;
  struct fake_state state;
  load_state(&state);
  if (device == NULL || index >= state.count) return NVML_ERROR_INVALID_ARGUMENT;
  *device = &handles[index];
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t handle, char* name, unsigned int length) {
  FAKE_BEGIN(handle);
  if (name == NULL) return NVML_ERROR_INVALID_ARGUMENT;
  if (strlen(device->name) + 1 > length) return NVML_ERROR_INSUFFICIENT_SIZE;
  strcpy(name, device->name);
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t handle, nvmlPciInfo_t* pci) {
  FAKE_BEGIN(handle);
  if (pci == NULL) return NVML_ERROR_INVALID_ARGUMENT;
  if (!device->has_pci) return NVML_ERROR_NOT_SUPPORTED;
  memset(pci, 0, sizeof(*pci));
  pci->domain = device->domain;
  pci->bus = device->bus;
  pci->device = device->device;
  pci->pciDeviceId = 0x250310de;
  snprintf(pci->busIdLegacy, sizeof(pci->busIdLegacy), "%04X:%02X:%02X.%X", device->domain,
           device->bus, device->device, device->function);
  snprintf(pci->busId, sizeof(pci->busId), "%08X:%02X:%02X.%X", device->domain, device->bus,
           device->device, device->function);
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t handle, nvmlUtilization_t* utilization) {
  FAKE_BEGIN(handle);
  if (utilization == NULL) return NVML_ERROR_INVALID_ARGUMENT;
  utilization->gpu = device->util_gpu;
  utilization->memory = device->util_memory;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t handle, nvmlMemory_t* memory) {
  FAKE_BEGIN(handle);
  if (memory == NULL) return NVML_ERROR_INVALID_ARGUMENT;
  memory->total = device->memory_total;
  memory->free = device->memory_free;
  memory->used = device->memory_used;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t handle, int sensor, unsigned int* temperature) {
  FAKE_BEGIN(handle);
  if (temperature == NULL || sensor != NVML_TEMPERATURE_GPU) return NVML_ERROR_INVALID_ARGUMENT;
  *temperature = device->temperature;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t handle, unsigned int* milliwatts) {
  FAKE_BEGIN(handle);
  if (milliwatts == NULL) return NVML_ERROR_INVALID_ARGUMENT;
  *milliwatts = device->power;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetEnforcedPowerLimit(nvmlDevice_t handle, unsigned int* milliwatts) {
  FAKE_BEGIN(handle);
  if (milliwatts == NULL) return NVML_ERROR_INVALID_ARGUMENT;
  *milliwatts = device->power_limit;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetTotalEnergyConsumption(nvmlDevice_t handle,
                                                 unsigned long long* millijoules) {
  FAKE_BEGIN(handle);
  if (millijoules == NULL) return NVML_ERROR_INVALID_ARGUMENT;
  *millijoules = device->energy;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t handle, int type, unsigned int* mhz) {
  FAKE_BEGIN(handle);
  if (mhz == NULL) return NVML_ERROR_INVALID_ARGUMENT;
  if (type == NVML_CLOCK_SM || type == NVML_CLOCK_GRAPHICS) {
    *mhz = device->clock_sm;
  } else if (type == NVML_CLOCK_MEM) {
    *mhz = device->clock_mem;
  } else {
    return NVML_ERROR_NOT_SUPPORTED;
  }
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetMaxClockInfo(nvmlDevice_t handle, int type, unsigned int* mhz) {
  FAKE_BEGIN(handle);
  if (mhz == NULL) return NVML_ERROR_INVALID_ARGUMENT;
  if (type != NVML_CLOCK_SM && type != NVML_CLOCK_GRAPHICS) return NVML_ERROR_NOT_SUPPORTED;
  *mhz = device->max_clock_sm;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetCurrentClocksThrottleReasons(nvmlDevice_t handle,
                                                       unsigned long long* reasons) {
  FAKE_BEGIN(handle);
  if (reasons == NULL) return NVML_ERROR_INVALID_ARGUMENT;
  *reasons = device->reasons;
  return NVML_SUCCESS;
}
