#include "bench/storage_codec_study.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "bench/storage_device_sim.h"
#include "storage/block.h"
#include "storage/codec/coding.h"
#include "storage/codec/int_column.h"
#include "storage/codec/value_column.h"

namespace edgemond::bench {

void RunCodecStudy(int series_count, double hours, int flush_seconds) {
  DeviceSimulator sim(series_count, /*seed=*/20260101);
  const std::size_t n = sim.series().size();
  struct Kind {
    int series = 0;
    std::int64_t samples = 0;
    std::size_t gorilla = 0;         // XOR floats.
    std::size_t scaled_varint = 0;   // Scaled integers, zig-zag LEB128 deltas (else XOR).
    std::size_t scaled_packed = 0;   // Scaled integers, bit-packed (else XOR).
    std::size_t chosen = 0;          // The store's choice: smallest of scaled, ratio, XOR.
    std::size_t own_timestamps = 0;  // The series' own timestamps, delta-of-delta bit-packed.
    std::map<std::string, int> codecs;
  };
  std::map<std::string, Kind> kinds;
  for (const SimulatedSeries& s : sim.series()) ++kinds[std::string(s.desc->name)].series;
  std::vector<storage::SeriesPoints> window(n);
  std::size_t block_bytes = 0;
  std::size_t shared_tick_bytes = 0;
  std::int64_t samples = 0;
  const auto ticks = static_cast<std::int64_t>(hours * 3600);
  std::vector<Reading> readings;
  std::string out;
  const auto flush = [&] {
    storage::BlockEncoder encoder(storage::kRawColumns);
    std::vector<std::int64_t> all_ticks;
    for (std::size_t i = 0; i < n; ++i) {
      storage::SeriesPoints& points = window[i];
      if (points.timestamps.empty()) continue;
      all_ticks.insert(all_ticks.end(), points.timestamps.begin(), points.timestamps.end());
      Kind& kind = kinds[std::string(sim.series()[i].desc->name)];
      const auto& values = points.columns[0];
      kind.samples += static_cast<std::int64_t>(values.size());
      out.clear();
      storage::codec::EncodeValueColumnWith(storage::codec::ValueCodec::kXor, values, out);
      kind.gorilla += out.size();
      out.clear();
      const auto chosen = storage::codec::EncodeValueColumn(values, out);
      kind.chosen += out.size();
      ++kind.codecs[chosen == storage::codec::ValueCodec::kXor      ? "xor"
                    : chosen == storage::codec::ValueCodec::kScaled ? "scaled"
                                                                    : "ratio"];
      out.clear();
      storage::codec::EncodeValueColumnWith(storage::codec::ValueCodec::kXor, values, out);
      const std::size_t xor_window = out.size();
      const auto scaled = storage::codec::ToScaledIntegers(values);
      if (scaled) {
        std::string varint;
        varint.push_back(0);  // codec byte
        storage::codec::PutVarint(varint, static_cast<std::uint64_t>(scaled->q));
        std::int64_t previous = 0;
        for (const std::int64_t v : scaled->integers) {
          storage::codec::PutSignedVarint(varint, v - previous);
          previous = v;
        }
        kind.scaled_varint += std::min(varint.size(), xor_window);
        out.clear();
        storage::codec::EncodeValueColumnWith(storage::codec::ValueCodec::kScaled, values, out);
        kind.scaled_packed += std::min(out.size(), xor_window);
      } else {
        kind.scaled_varint += xor_window;
        kind.scaled_packed += xor_window;
      }
      kind.own_timestamps += storage::codec::EncodedIntColumnSize(points.timestamps);
      encoder.Add(static_cast<std::int64_t>(i) + 1, points);
    }
    std::sort(all_ticks.begin(), all_ticks.end());
    all_ticks.erase(std::unique(all_ticks.begin(), all_ticks.end()), all_ticks.end());
    shared_tick_bytes += storage::codec::EncodedIntColumnSize(all_ticks);
    block_bytes += encoder.Finish().size();
    for (auto& points : window) points.Clear();
  };
  for (std::int64_t tick = 0; tick < ticks; ++tick) {
    const std::int64_t now_ms = kSimulationStartMs + tick * 1000 + (tick * 7919) % 3;
    readings.clear();
    sim.Tick(now_ms, readings);
    for (const Reading& r : readings) {
      if (!r.value) continue;
      storage::SeriesPoints& points = window[static_cast<std::size_t>(r.series)];
      points.timestamps.push_back(r.at_ms);
      points.columns[0].push_back(*r.value);
      ++samples;
    }
    if ((tick + 1) % flush_seconds == 0 || tick + 1 == ticks) flush();
  }
  std::printf("## Codec study: %d series, %g h, %d samples per series and block\n\n", series_count,
              hours, flush_seconds);
  std::printf("Value payload in bytes per sample; the codecs the store chose, in windows.\n\n");
  std::printf(
      "| metric | series | XOR floats (Gorilla) | scaled integers, varint deltas | scaled "
      "integers, bit-packed | chosen (scaled, ratio or XOR) | codecs chosen | own "
      "timestamps |\n|---|---|---|---|---|---|---|---|\n");
  Kind total;
  for (const auto& entry : kinds) {
    const std::string& name = entry.first;
    const Kind& kind = entry.second;
    const auto per = [&](std::size_t bytes) {
      return static_cast<double>(bytes) / static_cast<double>(kind.samples);
    };
    std::string codecs;
    for (const auto& [codec, count] : kind.codecs) {
      codecs += (codecs.empty() ? "" : ", ") + codec + " " + std::to_string(count);
    }
    std::printf("| %s | %d | %.2f | %.2f | %.2f | %.2f | %s | %.2f |\n", name.c_str(), kind.series,
                per(kind.gorilla), per(kind.scaled_varint), per(kind.scaled_packed),
                per(kind.chosen), codecs.c_str(), per(kind.own_timestamps));
    total.series += kind.series;
    total.samples += kind.samples;
    total.gorilla += kind.gorilla;
    total.scaled_varint += kind.scaled_varint;
    total.scaled_packed += kind.scaled_packed;
    total.chosen += kind.chosen;
    total.own_timestamps += kind.own_timestamps;
  }
  const auto per = [&](std::size_t bytes) {
    return static_cast<double>(bytes) / static_cast<double>(total.samples);
  };
  std::printf("| **all** | %d | **%.2f** | **%.2f** | **%.2f** | **%.2f** | | **%.2f** |\n\n",
              total.series, per(total.gorilla), per(total.scaled_varint), per(total.scaled_packed),
              per(total.chosen), per(total.own_timestamps));
  std::printf(
      "Timestamps shared by the block instead: %.3f B/sample. Whole blocks (shared "
      "timestamps, directory, presence, chosen values): %.3f B/sample.\n\n",
      static_cast<double>(shared_tick_bytes) / static_cast<double>(samples),
      static_cast<double>(block_bytes) / static_cast<double>(samples));
  std::fflush(stdout);
}

}  // namespace edgemond::bench
