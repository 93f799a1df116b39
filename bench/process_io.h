// What this process has written so far, from /proc/self/io: the benchmarks' count of bytes
// written, read before and after what they measure.

#ifndef EDGEMOND_BENCH_PROCESS_IO_H_
#define EDGEMOND_BENCH_PROCESS_IO_H_

#include <cstdint>
#include <fstream>
#include <string>

namespace edgemond::bench {

struct ProcessIo {
  std::int64_t wchar = 0;  // Bytes handed to write()/pwrite() (not mmap writes).
  // Bytes of pages this process dirtied, counted when a clean page becomes dirty: once per page
  // and writeback, what reaches the file system's data blocks.
  std::int64_t write_bytes = 0;
  std::int64_t cancelled_write_bytes = 0;  // Of those, pages truncated before writeback.

  static ProcessIo Read() {
    ProcessIo io;
    std::ifstream in("/proc/self/io");
    std::string key;
    std::int64_t value = 0;
    while (in >> key >> value) {
      if (key == "wchar:") io.wchar = value;
      if (key == "write_bytes:") io.write_bytes = value;
      if (key == "cancelled_write_bytes:") io.cancelled_write_bytes = value;
    }
    return io;
  }
  ProcessIo operator-(const ProcessIo& o) const {
    return {wchar - o.wchar, write_bytes - o.write_bytes,
            cancelled_write_bytes - o.cancelled_write_bytes};
  }
};

}  // namespace edgemond::bench

#endif  // EDGEMOND_BENCH_PROCESS_IO_H_
