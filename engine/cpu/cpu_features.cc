#include "engine/cpu/cpu_features.h"

#if defined(__x86_64__)
#include <cpuid.h>
#elif defined(__aarch64__)
#include <asm/hwcap.h>
#include <sys/auxv.h>
#endif

namespace edgemond::engine {
namespace {

struct Features {
  bool avx2 = false;
  bool avx512 = false;
  bool neon = false;
};

#if defined(__x86_64__)
// XCR0 says which register states the OS saves; a CPU flag alone is not enough.
std::uint64_t ReadXcr0() {
  std::uint32_t eax = 0;
  std::uint32_t edx = 0;
  __asm__ volatile("xgetbv" : "=a"(eax), "=d"(edx) : "c"(0));
  return (static_cast<std::uint64_t>(edx) << 32) | eax;
}
#endif

Features Detect() {
  Features f;
#if defined(__x86_64__)
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid(1, &eax, &ebx, &ecx, &edx) == 0) return f;
  const bool fma = (ecx & bit_FMA) != 0;
  const bool osxsave = (ecx & bit_OSXSAVE) != 0;
  if (!osxsave) return f;
  const std::uint64_t xcr0 = ReadXcr0();
  const bool ymm_saved = (xcr0 & 0x6) == 0x6;    // SSE and AVX state.
  const bool zmm_saved = (xcr0 & 0xe6) == 0xe6;  // Plus opmask and the upper ZMM registers.
  if (__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx) == 0) return f;
  f.avx2 = fma && ymm_saved && (ebx & bit_AVX2) != 0;
  f.avx512 = f.avx2 && zmm_saved && (ebx & bit_AVX512F) != 0;
#elif defined(__aarch64__)
  f.neon = (getauxval(AT_HWCAP) & HWCAP_ASIMD) != 0;
#endif
  return f;
}

const Features& CpuFeatures() {
  static const Features features = Detect();
  return features;
}

}  // namespace

std::string_view IsaName(Isa isa) {
  switch (isa) {
    case Isa::kPortable:
      return "portable";
    case Isa::kAvx2:
      return "avx2";
    case Isa::kAvx512:
      return "avx512";
    case Isa::kNeon:
      return "neon";
  }
  return "unknown";
}

bool IsaSupported(Isa isa) {
  const Features& f = CpuFeatures();
  switch (isa) {
    case Isa::kPortable:
      return true;
#if defined(__x86_64__)
    case Isa::kAvx2:
      return f.avx2;
    case Isa::kAvx512:
      return f.avx512;
#endif
#if defined(__aarch64__)
    case Isa::kNeon:
      return f.neon;
#endif
    default:
      return false;
  }
}

std::vector<Isa> SupportedIsas() {
  std::vector<Isa> isas;
  for (const Isa isa : {Isa::kAvx512, Isa::kAvx2, Isa::kNeon, Isa::kPortable}) {
    if (IsaSupported(isa)) isas.push_back(isa);
  }
  return isas;
}

Isa BestIsa() { return SupportedIsas().front(); }

}  // namespace edgemond::engine
