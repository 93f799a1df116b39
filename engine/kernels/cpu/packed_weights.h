// PackedWeights: where a kernel keeps the weights it packed at load (fast_kernels.h).
//
// Aligned to kTensorAlignment (64 bytes), so that a panel row of kPanelWidth floats is one cache
// line and no vector load of it straddles two (a std::vector's large blocks start 16 bytes into
// a page). Not zero-filled: the packers write every float, and a model's weights are written
// once at load, not twice.

#ifndef EDGEMOND_ENGINE_KERNELS_CPU_PACKED_WEIGHTS_H_
#define EDGEMOND_ENGINE_KERNELS_CPU_PACKED_WEIGHTS_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "core/status.h"
#include "engine/allocator.h"

namespace edgemond::engine::cpu {

class PackedWeights {
 public:
  // Replaces the storage with `floats` unwritten floats; kResourceExhausted without memory.
  Status Allocate(std::int64_t floats) {
    const std::size_t bytes = sizeof(float) * static_cast<std::size_t>(floats);
    buffer_ = AllocateBuffer(DefaultAllocator(), bytes, /*zero=*/false);
    if (buffer_ == nullptr) {
      floats_ = 0;
      return Status::ResourceExhausted("cannot allocate " + std::to_string(bytes) +
                                       " bytes for packed weights");
    }
    floats_ = static_cast<std::size_t>(floats);
    return Status::Ok();
  }
  float* data() { return reinterpret_cast<float*>(buffer_.get()); }
  const float* data() const { return reinterpret_cast<const float*>(buffer_.get()); }
  std::size_t size() const { return floats_; }

 private:
  AlignedBuffer buffer_;
  std::size_t floats_ = 0;
};

}  // namespace edgemond::engine::cpu

#endif  // EDGEMOND_ENGINE_KERNELS_CPU_PACKED_WEIGHTS_H_
