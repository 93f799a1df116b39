#include "core/benchmark.h"

namespace edgemond {

std::string_view BenchmarkStatusName(BenchmarkStatus status) {
  switch (status) {
    case BenchmarkStatus::kRunning:
      return "running";
    case BenchmarkStatus::kSucceeded:
      return "succeeded";
    case BenchmarkStatus::kFailed:
      return "failed";
  }
  return "failed";
}

Result<BenchmarkStatus> ParseBenchmarkStatus(std::string_view name) {
  for (const BenchmarkStatus status :
       {BenchmarkStatus::kRunning, BenchmarkStatus::kSucceeded, BenchmarkStatus::kFailed}) {
    if (BenchmarkStatusName(status) == name) return status;
  }
  return Status::InvalidArgument("benchmark status \"" + std::string(name) +
                                 "\": expected running, succeeded or failed");
}

}  // namespace edgemond
