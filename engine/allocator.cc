#include "engine/allocator.h"

#include <cstdlib>
#include <cstring>

namespace edgemond::engine {
namespace {

class AlignedNewAllocator final : public Allocator {
 public:
  void* Allocate(std::size_t bytes, std::size_t alignment) override {
    if (alignment < sizeof(void*)) alignment = sizeof(void*);
    void* block = nullptr;
    if (::posix_memalign(&block, alignment, bytes == 0 ? 1 : bytes) != 0) return nullptr;
    return block;
  }
  void Free(void* block) override { std::free(block); }
};

}  // namespace

Allocator& DefaultAllocator() {
  // Leaked on purpose: statics must be trivially destructible, and buffers freed during static
  // destruction must still find their allocator.
  static Allocator* const allocator = new AlignedNewAllocator();
  return *allocator;
}

AlignedBuffer AllocateBuffer(Allocator& allocator, std::size_t bytes, bool zero) {
  const std::size_t size = bytes == 0 ? 1 : bytes;
  void* block = allocator.Allocate(size, kTensorAlignment);
  if (block == nullptr) return AlignedBuffer(nullptr, AllocatorDeleter(&allocator));
  if (zero) std::memset(block, 0, size);
  return AlignedBuffer(static_cast<std::byte*>(block), AllocatorDeleter(&allocator));
}

}  // namespace edgemond::engine
