// The optimized kernels compiled for portable (fast_kernels_impl.h). engine/CMakeLists.txt
// compiles this file with the ISA's flags; the others never call into it unless the CPU has
// the ISA (FastKernelsFor).

#include "engine/kernels/cpu/fast_kernels.h"

#if 1

#include "engine/kernels/cpu/vec_portable.h"

namespace edgemond::engine::cpu {
namespace {
constexpr int kRows = 4;
constexpr int kTilePanels = 1;
}  // namespace
}  // namespace edgemond::engine::cpu

#include "engine/kernels/cpu/fast_kernels_impl.h"

namespace edgemond::engine::cpu {

const FastKernels& PortableKernels() {
  static const FastKernels table = MakeTable(Isa::kPortable);
  return table;
}

}  // namespace edgemond::engine::cpu

#endif
