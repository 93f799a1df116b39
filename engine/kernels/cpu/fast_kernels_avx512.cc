// The optimized kernels compiled for avx512 (fast_kernels_impl.h). engine/CMakeLists.txt
// compiles this file with the ISA's flags; the others never call into it unless the CPU has
// the ISA (FastKernelsFor).

#include "engine/kernels/cpu/fast_kernels.h"

#if defined(__x86_64__)

#include "engine/kernels/cpu/vec_avx512.h"

namespace edgemond::engine::cpu {
namespace {
constexpr int kRows = 6;
constexpr int kTilePanels = 4;
}  // namespace
}  // namespace edgemond::engine::cpu

#include "engine/kernels/cpu/fast_kernels_impl.h"

namespace edgemond::engine::cpu {

const FastKernels& Avx512Kernels() {
  static const FastKernels table = MakeTable(Isa::kAvx512);
  return table;
}

}  // namespace edgemond::engine::cpu

#endif
