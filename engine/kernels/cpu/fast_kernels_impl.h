// The optimized kernels, written once over the vector type Vec (vec_<isa>.h) and compiled once
// per instruction set. Include in exactly one file per ISA, after that ISA's vec header and a
// definition of kRows (the micro-kernel's pixel rows); everything here has internal linkage,
// so the copies compiled with different -m flags never meet at link time. For the same reason
// this file calls no std:: function template (an out-of-line copy of one compiled for AVX2
// could be picked by the linker for the portable path).
//
// The algorithms are in impl/, one header each, included below in the order they depend on one
// another; this file adds the entry points and the table of them (MakeTable).

#ifndef EDGEMOND_ENGINE_KERNELS_CPU_FAST_KERNELS_IMPL_H_
#define EDGEMOND_ENGINE_KERNELS_CPU_FAST_KERNELS_IMPL_H_

#include <cstdint>
#include <cstring>

#include "engine/kernels/cpu/conv_plan.h"
#include "engine/kernels/cpu/fast_kernels.h"

namespace edgemond::engine::cpu {
namespace {

using std::int64_t;

constexpr int kW = Vec::kWidth;
constexpr int kPanelVecs = kPanelWidth / kW;

inline int64_t MinI(int64_t a, int64_t b) { return a < b ? a : b; }
inline int64_t MaxI(int64_t a, int64_t b) { return a > b ? a : b; }

}  // namespace
}  // namespace edgemond::engine::cpu

// In the order they depend on one another, which sorting would break.
// clang-format off
#include "engine/kernels/cpu/impl/activation.h"
#include "engine/kernels/cpu/impl/gemm_tile.h"
#include "engine/kernels/cpu/impl/conv.h"
#include "engine/kernels/cpu/impl/conv_planar.h"
#include "engine/kernels/cpu/impl/winograd.h"
#include "engine/kernels/cpu/impl/depthwise.h"
#include "engine/kernels/cpu/impl/pool.h"
#include "engine/kernels/cpu/impl/elementwise.h"
// clang-format on

namespace edgemond::engine::cpu {
namespace {

void Conv(const ConvArgs& args, ThreadPool* pool) {
  if (args.x_nchw) {
    WithActivation(args.activation.kind,
                   [&]<Activation kAct>() { NchwInputConvImpl<kAct>(args, pool); });
    return;
  }
  WithActivation(args.activation.kind, [&]<Activation kAct>() { ConvImpl<kAct>(args, pool); });
}

FastKernels MakeTable(Isa isa) {
  FastKernels table;
  table.isa = isa;
  table.tile_panels = kTilePanels;
  table.conv = &Conv;
  table.winograd_conv = &WinogradConv;
  table.depthwise = &Depthwise;
  table.max_pool = &MaxPool;
  table.global_average_pool = &GlobalAveragePool;
  table.activation = &ActivationFn;
  table.binary = &Binary;
  return table;
}

}  // namespace
}  // namespace edgemond::engine::cpu

#endif  // EDGEMOND_ENGINE_KERNELS_CPU_FAST_KERNELS_IMPL_H_
