// Allocator: where the engine gets its large blocks (the per-session arena, constant tensors).
//
// Modelled on ncnn's Option::blob_allocator: callers may pass their own (a pool, a tracking or a
// deliberately failing allocator in the out-of-memory tests). Allocation failure is a value
// (nullptr), never an exception or an abort, and surfaces as kResourceExhausted.
//
// Thread safety: DefaultAllocator() may be used from any thread. A caller-supplied allocator must
// be thread-safe if it is shared by sessions that run on different threads.

#ifndef EDGEMOND_ENGINE_ALLOCATOR_H_
#define EDGEMOND_ENGINE_ALLOCATOR_H_

#include <cstddef>
#include <memory>

namespace edgemond::engine {

// Alignment of every engine buffer: a cache line, and enough for AVX-512 and NEON loads.
inline constexpr std::size_t kTensorAlignment = 64;

class Allocator {
 public:
  virtual ~Allocator() = default;
  // Returns `bytes` bytes aligned to `alignment` (a power of two), or nullptr on failure.
  // `bytes` may be 0; the result is then a unique non-null pointer or nullptr.
  virtual void* Allocate(std::size_t bytes, std::size_t alignment) = 0;
  // Releases a block returned by Allocate(). Accepts nullptr.
  virtual void Free(void* block) = 0;
};

// The process-wide allocator over posix_memalign/free.
// Never destroyed, so it outlives every buffer.
Allocator& DefaultAllocator();

// Frees through the allocator that made the block.
class AllocatorDeleter {
 public:
  AllocatorDeleter() = default;
  explicit AllocatorDeleter(Allocator* allocator) : allocator_(allocator) {}
  void operator()(std::byte* block) const {
    if (allocator_ != nullptr) allocator_->Free(block);
  }

 private:
  Allocator* allocator_ = nullptr;  // Not owned; outlives every block it made.
};

// One owner for one block.
using AlignedBuffer = std::unique_ptr<std::byte[], AllocatorDeleter>;

// Allocates `bytes` (rounded up to a non-zero size) aligned to kTensorAlignment; an empty
// buffer on failure. `zero` fills the block with zeros.
AlignedBuffer AllocateBuffer(Allocator& allocator, std::size_t bytes, bool zero);

}  // namespace edgemond::engine

#endif  // EDGEMOND_ENGINE_ALLOCATOR_H_
