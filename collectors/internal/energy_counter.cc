#include "collectors/internal/energy_counter.h"

namespace edgemond::collectors::internal {

std::optional<std::uint64_t> EnergyCounter::Update(std::uint64_t raw_microjoules,
                                                   std::uint64_t max_range_microjoules) {
  if (!started_) {
    started_ = true;
    total_ = raw_microjoules;
    previous_ = raw_microjoules;
    return std::nullopt;
  }
  if (!previous_) {
    previous_ = raw_microjoules;
    return std::nullopt;
  }
  std::uint64_t delta;
  if (raw_microjoules >= *previous_) {
    delta = raw_microjoules - *previous_;
  } else if (max_range_microjoules >= *previous_) {
    delta = (max_range_microjoules - *previous_) + raw_microjoules;  // Wrapped.
  } else {
    delta = raw_microjoules;  // Reset (or a range we do not know): count from 0.
  }
  previous_ = raw_microjoules;
  total_ += delta;
  return delta;
}

}  // namespace edgemond::collectors::internal
