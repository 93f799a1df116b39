// CPU features the optimized kernels are chosen by, detected once at run time.
//
// One binary runs on every CPU of its architecture: the x86-64 build carries AVX2+FMA and
// AVX-512 kernels next to portable ones and picks by CPUID (and by what the OS saves on
// context switches, XGETBV); the aarch64 build always has NEON (Advanced SIMD is mandatory in
// ARMv8-A) and checks HWCAP_ASIMD anyway. docs/adr/0108-engine-cpu-kernels.md.
//
// Thread safety: every function may be called from any thread.

#ifndef EDGEMOND_ENGINE_CPU_CPU_FEATURES_H_
#define EDGEMOND_ENGINE_CPU_CPU_FEATURES_H_

#include <cstdint>
#include <string_view>
#include <vector>

namespace edgemond::engine {

// An instruction set the kernels are compiled for.
enum class Isa : std::uint8_t {
  kPortable,  // Plain C++ (the compiler's baseline vectorisation); runs everywhere.
  kAvx2,      // x86-64 with AVX2 and FMA3.
  kAvx512,    // x86-64 with AVX-512F (and AVX2/FMA).
  kNeon,      // aarch64 Advanced SIMD.
};

// "portable", "avx2", "avx512", "neon".
std::string_view IsaName(Isa isa);

// Whether this binary has kernels for `isa` and this CPU (and OS) can run them.
bool IsaSupported(Isa isa);

// The fastest supported instruction set.
Isa BestIsa();

// Every supported instruction set, fastest first (tests run each against the reference).
std::vector<Isa> SupportedIsas();

}  // namespace edgemond::engine

#endif  // EDGEMOND_ENGINE_CPU_CPU_FEATURES_H_
