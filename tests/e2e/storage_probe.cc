// Reads an edgemond database the way the storage end-to-end test checks it, as a program of its
// own so that the test can run it inside the daemon's mount namespace with nsenter(1):
//
//   edgemond_storage_probe stored DB      prints "NEWEST_MS POINTS" of the raw blocks
//   edgemond_storage_probe integrity DB   prints "ok" or what PRAGMA integrity_check found
//
// A forked child of the test cannot enter the namespace itself: setns(CLONE_NEWNS) refuses a
// multi-threaded caller, and under qemu-user (the arm64 test leg) every process has a helper
// thread of the emulator.

#include <cstdio>
#include <string>

#include "storage/sqlite/database.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s stored|integrity DB\n", argv[0]);
    return 2;
  }
  const std::string what = argv[1];
  edgemond::storage::sqlite::DatabaseOptions options;
  options.mode = edgemond::storage::sqlite::DatabaseOptions::Mode::kReadWrite;
  auto db = edgemond::storage::sqlite::Database::Open(argv[2], options);
  if (!db.ok()) {
    std::printf("%s\n", db.status().ToString().c_str());
    return 1;
  }
  if (what == "integrity") {
    const edgemond::Status integrity = (*db)->IntegrityCheck();
    std::printf("%s\n", integrity.ok() ? "ok" : integrity.ToString().c_str());
    return 0;
  }
  if (what == "stored") {
    const auto newest_ms = (*db)->QueryInt64("SELECT coalesce(max(t1), -1) FROM blocks_raw");
    const auto points = (*db)->QueryInt64("SELECT coalesce(sum(points), 0) FROM blocks_raw");
    if (!newest_ms.ok() || !points.ok()) {
      std::printf("%s\n",
                  (!newest_ms.ok() ? newest_ms.status() : points.status()).ToString().c_str());
      return 1;
    }
    std::printf("%lld %lld\n", static_cast<long long>(*newest_ms), static_cast<long long>(*points));
    return 0;
  }
  std::fprintf(stderr, "unknown request %s\n", what.c_str());
  return 2;
}
