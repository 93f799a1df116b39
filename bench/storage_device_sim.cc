#include "bench/storage_device_sim.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace edgemond::bench {

namespace {

// Orin-class CPU frequency table (kHz) and GPU frequency table (kHz).
constexpr std::array<double, 29> kCpuKhz = {
    115200,  192000,  268800,  345600,  422400,  499200,  576000,  652800,  729600,  806400,
    883200,  960000,  1036800, 1113600, 1190400, 1267200, 1344000, 1420800, 1497600, 1574400,
    1651200, 1728000, 1804800, 1881600, 1958400, 2035200, 2112000, 2188800, 2201600};
constexpr std::array<double, 8> kGpuKhz = {306000, 408000, 510000, 612000,
                                           714000, 816000, 918000, 1300500};
constexpr int kCores = 12;
constexpr double kMemoryTotalKib = 31998768;
constexpr double kSwapTotalKib = 15999384;

double Quantize(double value, double step) { return std::round(value / step) * step; }
double Clamp01(double value) { return std::clamp(value, 0.0, 1.0); }

}  // namespace

const MetricDesc* DeviceSimulator::Desc(std::string name, std::string help, MetricType type,
                                        std::string unit) {
  for (const MetricDesc& desc : descs_) {
    if (desc.name == name) return &desc;
  }
  const std::string& n = strings_.emplace_back(std::move(name));
  const std::string& h = strings_.emplace_back(std::move(help));
  const std::string& u = strings_.emplace_back(std::move(unit));
  return &descs_.emplace_back(MetricDesc{n, h, type, u});
}

void DeviceSimulator::Add(Kind kind, int index, const MetricDesc* desc, Labels labels) {
  series_.push_back(SimulatedSeries{desc, std::move(labels)});
  State state;
  state.kind = kind;
  state.index = index;
  states_.push_back(state);
}

DeviceSimulator::DeviceSimulator(int series_count, std::uint64_t seed) : rng_(seed) {
  using K = Kind;
  const auto gauge = MetricType::kGauge;
  const auto* cpu_util =
      Desc("edgemond_cpu_utilization_ratio", "CPU busy time ratio", gauge, "ratio");
  Add(K::kCpuUtilization, -1, cpu_util, {{"cpu", "all"}});
  for (int core = 0; core < kCores; ++core) {
    Add(K::kCpuUtilization, core, cpu_util, {{"cpu", std::to_string(core)}});
  }
  const auto* cpu_freq = Desc("edgemond_cpu_frequency_hertz", "CPU frequency", gauge, "hertz");
  for (int core = 0; core < kCores; ++core) {
    Add(K::kCpuFrequency, core, cpu_freq, {{"cpu", std::to_string(core)}});
  }
  Add(K::kMemoryTotal, 0, Desc("edgemond_memory_total_bytes", "Memory", gauge, "bytes"), {});
  Add(K::kMemoryAvailable, 0,
      Desc("edgemond_memory_available_bytes", "Available memory", gauge, "bytes"), {});
  Add(K::kMemoryUsed, 0, Desc("edgemond_memory_used_bytes", "Used memory", gauge, "bytes"), {});
  Add(K::kSwapTotal, 0, Desc("edgemond_swap_total_bytes", "Swap", gauge, "bytes"), {});
  Add(K::kSwapUsed, 0, Desc("edgemond_swap_used_bytes", "Used swap", gauge, "bytes"), {});
  const char* zones[] = {"cpu-thermal", "gpu-thermal",   "cv0-thermal",  "cv1-thermal",
                         "cv2-thermal", "soc0-thermal",  "soc1-thermal", "soc2-thermal",
                         "tj-thermal",  "tboard-thermal"};
  const auto* zone = Desc("edgemond_thermal_zone_celsius", "Thermal zone", gauge, "celsius");
  for (int i = 0; i < 10; ++i) {
    Add(K::kThermalZone, i, zone, {{"type", zones[i]}, {"zone", std::to_string(i)}});
  }
  const auto* volts = Desc("edgemond_hwmon_voltage_volts", "Voltage", gauge, "volts");
  const auto* amps = Desc("edgemond_hwmon_current_amperes", "Current", gauge, "amperes");
  const auto* watts = Desc("edgemond_hwmon_power_watts", "Power", gauge, "watts");
  const char* rails[] = {"VDD_GPU_SOC", "VDD_CPU_CV",      "VIN_SYS_5V0",
                         "NC",          "VDDQ_VDD2_1V8AO", "VIN"};
  for (int rail = 0; rail < 6; ++rail) {
    const Labels labels = {{"chip", rail < 3 ? "i2c_1_0040" : "i2c_1_0041"},
                           {"chip_name", "ina3221"},
                           {"label", rails[rail]},
                           {"sensor", "in" + std::to_string(rail % 3 + 1)}};
    Add(K::kRailVoltage, rail, volts, labels);
    Add(K::kRailCurrent, rail, amps, labels);
    Add(K::kRailPower, rail, watts, labels);
  }
  const auto* energy =
      Desc("edgemond_hwmon_energy_joules_total", "Energy", MetricType::kCounter, "joules");
  for (int i = 0; i < 6; ++i) {
    Add(K::kEnergy, i, energy,
        {{"chip", "platform_rapl"}, {"sensor", "energy" + std::to_string(i + 1)}});
  }
  const auto* fan = Desc("edgemond_hwmon_fan_rpm", "Fan speed", gauge, "rpm");
  const auto* pwm = Desc("edgemond_hwmon_pwm_ratio", "Fan PWM duty", gauge, "ratio");
  for (int i = 0; i < 2; ++i) {
    const Labels labels = {{"chip", "pwm_fan"}, {"sensor", "fan" + std::to_string(i + 1)}};
    Add(K::kFanRpm, i, fan, labels);
    Add(K::kPwm, i, pwm, labels);
  }
  Add(K::kGpuLoad, 0, Desc("edgemond_gpu_utilization_ratio", "GPU load", gauge, "ratio"),
      {{"gpu", "0"}});
  Add(K::kGpuFrequency, 0, Desc("edgemond_gpu_frequency_hertz", "GPU clock", gauge, "hertz"),
      {{"gpu", "0"}});
  const char* collectors[] = {"cpu", "memory", "thermal", "hwmon", "gpu", "power"};
  const auto* success = Desc("edgemond_collector_success", "Collector succeeded", gauge, "");
  const auto* duration =
      Desc("edgemond_collector_duration_seconds", "Collector run time", gauge, "seconds");
  for (int i = 0; i < 6; ++i) {
    Add(K::kCollectorSuccess, i, success, {{"collector", collectors[i]}});
    Add(K::kCollectorDuration, i, duration, {{"collector", collectors[i]}});
  }
  // Fill up with the board's other hwmon chips: temperatures and supply voltages.
  const auto* temperature =
      Desc("edgemond_hwmon_temperature_celsius", "Temperature", gauge, "celsius");
  for (int i = 0; static_cast<int>(series_.size()) < series_count; ++i) {
    // Chips of 4 temperatures and 4 voltages; the first five are one model, the rest another.
    const std::string chip = "hwmon_board" + std::to_string(i / 8);
    const std::string chip_name = i / 8 < 5 ? "nct7802" : "tmp451";
    if (i % 2 == 0) {
      Add(K::kBoardTemperature, i / 2, temperature,
          {{"chip", chip},
           {"chip_name", chip_name},
           {"sensor", "temp" + std::to_string(i / 2 % 4 + 1)}});
    } else {
      Add(K::kBoardVoltage, i / 2, volts,
          {{"chip", chip}, {"chip_name", chip_name}, {"sensor", "in" + std::to_string(i / 2 % 4)}});
    }
  }
  series_.resize(std::min<std::size_t>(series_.size(), static_cast<std::size_t>(series_count)));
  states_.resize(series_.size());
  // Nominal levels.
  for (State& state : states_) {
    switch (state.kind) {
      case K::kThermalZone:
        state.level = 38 + state.index * 0.7;
        break;
      case K::kBoardTemperature:
        state.level = 33 + (state.index % 7) * 2.1;
        break;
      case K::kRailVoltage: {
        constexpr double kMillivolts[] = {19104, 19096, 4984, 0, 1808, 19112};
        state.base = kMillivolts[state.index];
        break;
      }
      case K::kRailCurrent:
      case K::kRailPower: {
        constexpr double kIdleMilliamps[] = {210, 150, 480, 0, 90, 520};
        state.base = kIdleMilliamps[state.index];
        break;
      }
      case K::kBoardVoltage: {
        constexpr double kMillivolts[] = {1104, 1800, 3312, 5016, 12048, 904, 1504};
        state.base = kMillivolts[state.index % 7];
        break;
      }
      case K::kEnergy:
        state.counter = 1.0e9 * (state.index + 1);
        break;
      default:
        break;
    }
  }
}

double DeviceSimulator::Value(State& state, double dt_s) {
  using K = Kind;
  const double noise = noise_(rng_);
  switch (state.kind) {
    case K::kCpuUtilization: {
      // As the cpu collector computes it from /proc/stat deltas: busy / total jiffies, ~100 per
      // core and second at USER_HZ=100; "all" from the sums over the cores.
      if (state.index < 0) {
        return static_cast<double>(busy_jiffies_) / static_cast<double>(total_jiffies_);
      }
      const auto total = static_cast<std::int64_t>(100 + std::round(uniform_(rng_) * 2 - 1));
      const auto busy =
          static_cast<std::int64_t>(std::round(Clamp01(load_ + 0.12 * noise) * total));
      busy_jiffies_ += busy;
      total_jiffies_ += total;
      return static_cast<double>(busy) / static_cast<double>(total);
    }
    case K::kCpuFrequency: {
      const int cluster = state.index / 4;
      if (state.index % 4 == 0) {
        const double target = load_ * (kCpuKhz.size() - 1) + 2 * noise;
        cluster_frequency_index_[cluster] = std::clamp(static_cast<int>(std::lround(target)), 0,
                                                       static_cast<int>(kCpuKhz.size()) - 1);
      }
      return kCpuKhz[static_cast<std::size_t>(cluster_frequency_index_[cluster])] * 1000;
    }
    // /proc/meminfo kB * 1024.0, as the memory collector computes bytes.
    case K::kMemoryTotal:
      return kMemoryTotalKib * 1024.0;
    case K::kMemoryAvailable:
      return (kMemoryTotalKib - memory_used_kib_ - 2.1e6) * 1024.0;
    case K::kMemoryUsed:
      return memory_used_kib_ * 1024.0;
    case K::kSwapTotal:
      return kSwapTotalKib * 1024.0;
    case K::kSwapUsed:
      return 18432.0 * 1024.0;
    case K::kThermalZone:
    case K::kBoardTemperature: {
      const bool hot_spot = state.kind == K::kThermalZone;
      const double target = (hot_spot ? 36 + state.index * 0.7 : 32 + (state.index % 7) * 2.1) +
                            (hot_spot ? 38 : 12) * std::max(load_, gpu_load_);
      state.level += (target - state.level) * (1 - std::exp(-dt_s / 60.0)) + 0.05 * noise;
      // Raw millidegrees: the SoC zones step by 500 m°C, the board sensors by 250 m°C. Thermal
      // zones are divided by 1000 (thermal collector), hwmon temperatures multiplied by 1e-3.
      const double step_millicelsius = hot_spot ? 500 : 250;
      const double millicelsius = Quantize(state.level * 1000, step_millicelsius);
      return hot_spot ? millicelsius / 1000.0 : millicelsius * 1e-3;
    }
    // hwmon: raw integer units times the collector's scale (1e-3 for mV and mA, 1e-6 for uW and
    // uJ, 1/255 for PWM), a multiplication, not a division.
    case K::kRailVoltage:
      return Quantize(state.base + 8 * noise * (state.base > 0), 8) * 1e-3;
    case K::kRailCurrent:
    case K::kRailPower: {
      const double active = state.index == 0 ? gpu_load_ * 1400 : load_ * 900;
      const double milliamps = std::max(0.0, std::round(state.base + active + 12 * noise));
      if (state.kind == K::kRailCurrent) return milliamps * 1e-3;
      constexpr double kRailMillivolts[] = {19104, 19096, 4984, 0, 1808, 19112};
      // INA3221 power in uW, a multiple of 1000 (the driver computes it from mV and mA).
      return std::round(kRailMillivolts[state.index] * milliamps / 1000) * 1000 * 1e-6;
    }
    case K::kEnergy: {
      const double milliwatts = 1500 + 9000 * (state.index < 3 ? load_ : gpu_load_);
      state.counter += std::round(milliwatts * 1000 * dt_s + 400 * noise);
      return state.counter * 1e-6;
    }
    case K::kFanRpm:
      return std::round(std::max(0.0, 1500 + 3000 * load_ + 25 * noise));
    case K::kPwm:
      return std::round(std::clamp(80 + 150 * load_, 0.0, 255.0)) * (1.0 / 255.0);
    case K::kGpuLoad:
      return std::clamp(std::round(gpu_load_ * 1000 + (gpu_load_ > 0 ? 20 * noise : 0)), 0.0,
                        1000.0) /
             1000;
    case K::kGpuFrequency: {
      const int index = std::clamp(static_cast<int>(std::lround(gpu_load_ * 7 + 0.5 * noise)), 0,
                                   static_cast<int>(kGpuKhz.size()) - 1);
      return kGpuKhz[static_cast<std::size_t>(index)] * 1000;
    }
    case K::kCollectorSuccess:
      return uniform_(rng_) < 1e-4 ? 0 : 1;
    case K::kCollectorDuration:
      // Nanosecond timings, the noisiest series on the board.
      return std::round((120e3 + 40e3 * state.index) * std::exp(0.25 * noise)) / 1e9;
    case K::kBoardVoltage:
      return Quantize(state.base + 6 * noise, 8) * 1e-3;
  }
  return 0;
}

void DeviceSimulator::Tick(std::int64_t tick_ms, std::vector<Reading>& out) {
  const double dt_s = last_tick_ms_ == 0 ? 1.0 : (tick_ms - last_tick_ms_) / 1000.0;
  last_tick_ms_ = tick_ms;
  if (tick_ms >= phase_end_ms_) {
    // A new workload phase of 1 to 15 minutes: idle, moderate or busy; the GPU runs inference
    // in about a third of the phases.
    const double pick = uniform_(rng_);
    load_ = pick < 0.4 ? 0.05 + 0.1 * uniform_(rng_)
                       : (pick < 0.8 ? 0.3 + 0.3 * uniform_(rng_) : 0.8 + 0.15 * uniform_(rng_));
    gpu_load_ = uniform_(rng_) < 0.35 ? 0.3 + 0.69 * uniform_(rng_) : 0.0;
    phase_end_ms_ = tick_ms + static_cast<std::int64_t>((60 + 840 * uniform_(rng_)) * 1000);
  }
  memory_used_kib_ = std::clamp(memory_used_kib_ + Quantize(2000 * noise_(rng_), 4), 2.0e6, 2.4e7);
  // The cores first, so that "all" (series 0) is their sum, as /proc/stat's cpu line is.
  busy_jiffies_ = 0;
  total_jiffies_ = 0;
  std::vector<double> values(states_.size());
  for (std::size_t i = 1; i < states_.size(); ++i) values[i] = Value(states_[i], dt_s);
  values[0] = Value(states_[0], dt_s);
  for (std::size_t i = 0; i < states_.size(); ++i) {
    Reading reading;
    reading.series = static_cast<int>(i);
    reading.at_ms = tick_ms;
    const double value = values[i];
    // The first board temperature sensor is flaky (an I2C sensor that NAKs now and then).
    const bool flaky = states_[i].kind == Kind::kBoardTemperature && states_[i].index == 0;
    if (!(flaky && uniform_(rng_) < 0.02)) reading.value = value;
    out.push_back(reading);
  }
}

std::vector<Sample> DeviceSimulator::ToSamples(const std::vector<Reading>& readings) const {
  std::vector<Sample> samples;
  samples.reserve(readings.size());
  for (const Reading& reading : readings) {
    Sample sample;
    const SimulatedSeries& series = series_[static_cast<std::size_t>(reading.series)];
    sample.desc = series.desc;
    sample.labels = series.labels;
    sample.value = reading.value;
    if (!reading.value) sample.missing_reason = "EAGAIN: sensor did not answer";
    sample.at = FromUnixMillis(reading.at_ms);
    samples.push_back(std::move(sample));
  }
  return samples;
}

void DeviceSimulator::FillSamples(const std::vector<Reading>& readings,
                                  std::vector<Sample>& samples) const {
  if (samples.size() != readings.size()) {
    samples = ToSamples(readings);
    return;
  }
  for (std::size_t i = 0; i < readings.size(); ++i) {
    Sample& sample = samples[i];
    sample.value = readings[i].value;
    sample.at = FromUnixMillis(readings[i].at_ms);
    if (readings[i].value) {
      sample.missing_reason.clear();
    } else {
      sample.missing_reason = "EAGAIN: sensor did not answer";
    }
  }
}

}  // namespace edgemond::bench
