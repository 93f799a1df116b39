// EnergyCounter: turns a hardware energy counter that wraps (RAPL energy_uj) into a monotonic
// total and per-interval deltas. Pure logic; no I/O.
//
// RAPL's energy_uj counts microjoules in a 32-bit hardware register scaled by the energy unit, so
// it wraps to 0 after max_energy_range_uj (about 262 kJ: minutes at a few hundred watts). A
// reading below the previous one is a wrap, and the interval's energy is
// (max_range - previous) + current. That undercounts by one counter step (the energy unit, about
// 61 µJ) per wrap, which is far below the counter's own accuracy.
//
// Invariant: total_microjoules() never decreases.

#ifndef EDGEMOND_COLLECTORS_INTERNAL_ENERGY_COUNTER_H_
#define EDGEMOND_COLLECTORS_INTERNAL_ENERGY_COUNTER_H_

#include <cstdint>
#include <optional>

namespace edgemond::collectors::internal {

class EnergyCounter {
 public:
  // Feeds one reading. Returns the energy since the previous reading, or nullopt for the first
  // reading (and after Reset()). `max_range_microjoules` 0 means unknown: a reading below the
  // previous one is then taken as a counter reset, and the interval counts from 0.
  std::optional<std::uint64_t> Update(std::uint64_t raw_microjoules,
                                      std::uint64_t max_range_microjoules);

  // Starts again from the next reading (the device went away and came back) without letting the
  // total go down.
  void Reset() { previous_.reset(); }

  // The first reading plus every interval since: the counter as if it never wrapped.
  std::uint64_t total_microjoules() const { return total_; }
  bool has_reading() const { return started_; }

 private:
  std::optional<std::uint64_t> previous_;
  std::uint64_t total_ = 0;
  bool started_ = false;
};

}  // namespace edgemond::collectors::internal

#endif  // EDGEMOND_COLLECTORS_INTERNAL_ENERGY_COUNTER_H_
