#include "collectors/nvidia_gpu_collector.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "collectors/collector_test_util.h"
#include "tests/testing/child_process.h"
#include "tests/testing/fake_clock.h"
#include "tests/testing/temp_dir.h"

// These tests load the fake NVML the test suite builds (tests/fake_nvml/fake_nvml.c) through the
// collector's real dlopen path, and drive it through its state file.

namespace edgemond::collectors {
namespace {

using testing::ExpectSamples;
using testing::Missing;
using testing::Wants;

std::string Gpu(std::string_view metric, std::string_view gpu) {
  return SeriesKey(metric, Labels{{"gpu", std::string(gpu)}});
}
std::string Utilization(std::string_view gpu, std::string_view name) {
  return SeriesKey("edgemond_gpu_utilization_ratio",
                   Labels{{"gpu", std::string(gpu)}, {"name", std::string(name)}});
}
std::string Throttled(std::string_view gpu, std::string_view reason) {
  return SeriesKey("edgemond_throttled", Labels{{"component", "gpu:" + std::string(gpu)},
                                                {"reason", std::string(reason)}});
}

constexpr const char* kReasons[] = {"sw_power_cap",        "hw_slowdown",    "sw_thermal_slowdown",
                                    "hw_thermal_slowdown", "hw_power_brake", "sync_boost",
                                    "applications_clocks", "display_clocks"};

// One healthy GPU, with the given extra lines.
std::string OneGpu(std::string_view extra = "") {
  return "device\nname NVIDIA RTX A2000\npci 0000:2d:00.0\nutilization 50 20\n"
         "memory 6000000000 5000000000 1000000000\ntemperature 60\npower 50000\n"
         "power_limit 70000\nenergy 123000\nclock_sm 1200\nclock_mem 6000\nmax_clock_sm 1500\n"
         "reasons 0x0\n" +
         std::string(extra);
}

class NvidiaGpuCollectorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    state_path_ = dir_.Join("nvml.state");
    log_path_ = dir_.Join("nvml.log");
    ASSERT_EQ(setenv("EDGEMOND_FAKE_NVML_STATE", state_path_.c_str(), 1), 0);
    ASSERT_EQ(setenv("EDGEMOND_FAKE_NVML_LOG", log_path_.c_str(), 1), 0);
  }
  void TearDown() override {
    collector_.reset();  // nvmlShutdown and dlclose before the environment goes.
    unsetenv("EDGEMOND_FAKE_NVML_STATE");
    unsetenv("EDGEMOND_FAKE_NVML_LOG");
  }

  void SetState(std::string_view state) {
    std::ofstream out(state_path_, std::ios::trunc);
    out << state;
  }
  void Open(int rescan_every_ticks = 60, std::string library = edgemond::testing::FakeNvmlPath()) {
    collector_.emplace(std::move(library), rescan_every_ticks);
  }
  Result<std::vector<Sample>> Tick() {
    clock_.Advance(std::chrono::seconds(1));
    at_ = clock_.WallNow();
    return collector_->Collect(at_);
  }
  // How often the fake library saw `function` called.
  int Calls(std::string_view function) const {
    std::ifstream in(log_path_);
    std::string line;
    int count = 0;
    while (std::getline(in, line)) count += line == function;
    return count;
  }

  edgemond::testing::TempDir dir_;
  std::string state_path_;
  std::string log_path_;
  edgemond::testing::FakeClock clock_;
  WallTime at_;
  std::optional<NvidiaGpuCollector> collector_;
};

TEST_F(NvidiaGpuCollectorTest, X86NvidiaFixtureState) {
  std::ifstream fixture(edgemond::testing::FixturePath("nvml/x86-nvidia.state"));
  std::stringstream state;
  state << fixture.rdbuf();
  SetState(state.str());
  Open();
  const auto samples = Tick();
  ASSERT_TRUE(samples.ok()) << samples.status();
  const std::string gpu = "pci/0000:01:00.0";  // NVML's "00000000:01:00.0", as sysfs spells it.
  Wants want{
      {Utilization(gpu, "NVIDIA GeForce RTX 3060"), 0.87},
      {Gpu("edgemond_gpu_memory_busy_ratio", gpu), 0.34},
      {Gpu("edgemond_gpu_memory_used_bytes", gpu), 4754444288.0},
      {Gpu("edgemond_gpu_memory_total_bytes", gpu), 12884901888.0},
      {Gpu("edgemond_gpu_temperature_celsius", gpu), 67.0},
      {Gpu("edgemond_gpu_power_watts", gpu), 169.85},
      {Gpu("edgemond_gpu_power_limit_watts", gpu), 170.0},
      {Gpu("edgemond_gpu_energy_joules_total", gpu), 98765432.1},
      {Gpu("edgemond_gpu_frequency_hertz", gpu), 1777e6},
      {Gpu("edgemond_gpu_frequency_hardware_max_hertz", gpu), 2100e6},
      {Gpu("edgemond_gpu_memory_frequency_hertz", gpu), 7500e6},
  };
  for (const char* reason : kReasons) {
    want.emplace(Throttled(gpu, reason), std::string_view(reason) == "sw_power_cap" ? 1.0 : 0.0);
  }
  ExpectSamples(*samples, want, at_, &*collector_);
}

TEST_F(NvidiaGpuCollectorTest, NvmlIsInitialisedOnceAndItsHandlesKept) {
  SetState(OneGpu());
  Open();
  for (int tick = 0; tick < 5; ++tick) ASSERT_TRUE(Tick().ok());
  EXPECT_EQ(Calls("nvmlInit_v2"), 1);
  EXPECT_EQ(Calls("nvmlDeviceGetHandleByIndex_v2"), 1);
  EXPECT_EQ(Calls("nvmlDeviceGetUtilizationRates"), 5);
  EXPECT_EQ(Calls("nvmlShutdown"), 0);
  collector_.reset();
  EXPECT_EQ(Calls("nvmlShutdown"), 1);
}

TEST_F(NvidiaGpuCollectorTest, AnAbsentLibraryMeansNoNvidiaGpu) {
  Open(60, dir_.Join("libnvidia-ml.so.1"));  // Does not exist.
  const auto samples = Tick();
  EXPECT_TRUE(samples.status().IsNotFound()) << samples.status();
}

TEST_F(NvidiaGpuCollectorTest, ALibraryWithoutItsDriverMeansNoNvidiaGpu) {
  SetState("init DRIVER_NOT_LOADED\n");
  Open();
  const auto samples = Tick();
  EXPECT_TRUE(samples.status().IsNotFound()) << samples.status();
}

TEST_F(NvidiaGpuCollectorTest, NotSupportedIsNormalAndNotAskedAgain) {
  SetState(
      OneGpu("error nvmlDeviceGetPowerUsage NOT_SUPPORTED\n"
             "error nvmlDeviceGetTotalEnergyConsumption NOT_SUPPORTED\n"));
  Open();
  for (int tick = 0; tick < 3; ++tick) {
    const auto samples = Tick();
    ASSERT_TRUE(samples.ok()) << samples.status();
    for (const Sample& sample : *samples) {
      EXPECT_NE(sample.desc->name, "edgemond_gpu_power_watts");
      EXPECT_NE(sample.desc->name, "edgemond_gpu_energy_joules_total");
      EXPECT_TRUE(sample.has_value()) << SeriesKey(sample);
    }
    EXPECT_EQ(samples->size(), 17u);  // The other 9 values and 8 throttle reasons.
  }
  EXPECT_EQ(Calls("nvmlDeviceGetPowerUsage"), 1);
  EXPECT_EQ(Calls("nvmlDeviceGetTotalEnergyConsumption"), 1);
}

TEST_F(NvidiaGpuCollectorTest, OtherErrorsAreMissingValuesNamedAfterTheError) {
  SetState(
      OneGpu("error nvmlDeviceGetTemperature NO_PERMISSION\n"
             "error nvmlDeviceGetCurrentClocksThrottleReasons UNKNOWN\n"
             "error nvmlDeviceGetMemoryInfo 999\n"));
  Open();
  const auto samples = Tick();
  ASSERT_TRUE(samples.ok()) << samples.status();
  const std::string gpu = "pci/0000:2d:00.0";
  Wants want{
      {Utilization(gpu, "NVIDIA RTX A2000"), 0.5},
      {Gpu("edgemond_gpu_memory_busy_ratio", gpu), 0.2},
      {Gpu("edgemond_gpu_memory_used_bytes", gpu), Missing("NVML_ERROR_UNKNOWN")},
      {Gpu("edgemond_gpu_memory_total_bytes", gpu), Missing("NVML_ERROR_UNKNOWN")},
      {Gpu("edgemond_gpu_temperature_celsius", gpu), Missing("NVML_ERROR_NO_PERMISSION")},
      {Gpu("edgemond_gpu_power_watts", gpu), 50.0},
      {Gpu("edgemond_gpu_power_limit_watts", gpu), 70.0},
      {Gpu("edgemond_gpu_energy_joules_total", gpu), 123.0},
      {Gpu("edgemond_gpu_frequency_hertz", gpu), 1200e6},
      {Gpu("edgemond_gpu_frequency_hardware_max_hertz", gpu), 1500e6},
      {Gpu("edgemond_gpu_memory_frequency_hertz", gpu), 6000e6},
  };
  for (const char* reason : kReasons)
    want.emplace(Throttled(gpu, reason), Missing("NVML_ERROR_UNKNOWN"));
  ExpectSamples(*samples, want, at_, &*collector_);
}

TEST_F(NvidiaGpuCollectorTest, ALostGpuIsReinitialisedAFullPeriodLater) {
  SetState(OneGpu());
  Open(/*rescan_every_ticks=*/3);
  ASSERT_TRUE(Tick().ok());  // Tick 1.
  SetState(OneGpu("error * GPU_IS_LOST\n"));
  auto samples = Tick();  // Tick 2: the GPU fell off the bus.
  ASSERT_TRUE(samples.ok()) << samples.status();
  ASSERT_FALSE(samples->empty());
  for (const Sample& sample : *samples) {
    EXPECT_EQ(sample.missing_reason, "NVML_ERROR_GPU_IS_LOST") << SeriesKey(sample);
  }
  SetState(OneGpu());        // Reset and back.
  ASSERT_TRUE(Tick().ok());  // Ticks 3 and 4: not yet.
  ASSERT_TRUE(Tick().ok());
  EXPECT_EQ(Calls("nvmlInit_v2"), 1);
  EXPECT_EQ(Calls("nvmlShutdown"), 0);
  samples = Tick();  // Tick 5: three ticks after the loss, NVML starts over.
  ASSERT_TRUE(samples.ok()) << samples.status();
  EXPECT_EQ(Calls("nvmlShutdown"), 1);
  EXPECT_EQ(Calls("nvmlInit_v2"), 2);
  EXPECT_EQ(Calls("nvmlDeviceGetHandleByIndex_v2"), 2);
  for (const Sample& sample : *samples) EXPECT_TRUE(sample.has_value()) << SeriesKey(sample);
}

TEST_F(NvidiaGpuCollectorTest, JetsonIntegratedGpusAreLeftToTheJetsonCollector) {
  SetState("device\nname Orin (nvgpu)\nerror nvmlDeviceGetUtilizationRates NOT_SUPPORTED\n");
  Open();
  EXPECT_TRUE(Tick().status().IsNotFound());
}

TEST_F(NvidiaGpuCollectorTest, AGpuWithoutPciInformationIsNamedByIndex) {
  SetState(OneGpu() +
           "device\nname Tesla T4\nutilization 5 1\n"
           "error nvmlDeviceGetPciInfo_v3 NOT_SUPPORTED\n");
  Open();
  const auto samples = Tick();
  ASSERT_TRUE(samples.ok()) << samples.status();
  bool seen = false;
  for (const Sample& sample : *samples) {
    if (SeriesKey(sample) == Utilization("nvml/1", "Tesla T4")) {
      EXPECT_EQ(sample.value, 0.05);
      seen = true;
    }
  }
  EXPECT_TRUE(seen);
}

}  // namespace
}  // namespace edgemond::collectors
