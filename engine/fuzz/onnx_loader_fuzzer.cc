// libFuzzer target for the ONNX loader: any byte string must load or be refused, and whatever
// loads must run, without a crash, a sanitizer report or unbounded memory. Built with
// -DEDGEMOND_FUZZ=ON by clang; bench/fuzz_engine.sh runs it on the seeds in engine/fuzz/seeds.

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "engine/benchmark.h"
#include "engine/onnx/onnx_loader.h"
#include "engine/session.h"

namespace edgemond::engine {
namespace {

// Keeps each input cheap: a fuzzer that runs a 10-GFLOP convolution per input finds nothing.
constexpr std::int64_t kMaxArenaBytes = 64 << 20;
constexpr std::uint64_t kMaxFlops = 50'000'000;

void LoadAndRun(std::string_view bytes) {
  ModelOptions options;
  options.max_arena_bytes = kMaxArenaBytes;
  Result<std::shared_ptr<const Model>> model =
      LoadOnnxModelFromBytes(bytes, /*model_dir=*/"", options);
  if (!model.ok() || (*model)->stats().flops > kMaxFlops) return;
  Result<std::unique_ptr<Session>> session = Session::Create(*model);
  if (!session.ok()) return;
  if (!SetDeterministicInputs(**session, 1).ok()) return;
  (void)(*session)->Run();
}

}  // namespace
}  // namespace edgemond::engine

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  edgemond::engine::LoadAndRun(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
