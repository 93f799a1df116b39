// Shared geometry of MaxPool and AveragePool in 3-D form (1-D and 2-D pools get leading unit
// dimensions), after ConvGeometry.

#ifndef EDGEMOND_ENGINE_KERNELS_POOL_H_
#define EDGEMOND_ENGINE_KERNELS_POOL_H_

#include <array>
#include <cstdint>
#include <initializer_list>

#include "core/result.h"
#include "engine/kernel.h"

namespace edgemond::engine {

struct PoolGeometry {
  std::int64_t planes = 0;  // Batch x channels.
  std::array<std::int64_t, 3> in{1, 1, 1};
  std::array<std::int64_t, 3> out{1, 1, 1};
  std::array<std::int64_t, 3> kernel{1, 1, 1};
  std::array<std::int64_t, 3> stride{1, 1, 1};
  std::array<std::int64_t, 3> dilation{1, 1, 1};
  std::array<std::int64_t, 3> pad_begin{0, 0, 0};
  std::array<std::int64_t, 3> pad_end{0, 0, 0};
};

// Reads kernel_shape and the window attributes of a pooling node whose input 0 has one of
// `types` and rank 3 to 5, sets output 0 (of the input's type), and returns the geometry.
Result<PoolGeometry> PreparePool(PrepareContext& context, bool has_ceil_mode, bool has_dilations,
                                 std::initializer_list<DataType> types = {DataType::kFloat32});

}  // namespace edgemond::engine

#endif  // EDGEMOND_ENGINE_KERNELS_POOL_H_
