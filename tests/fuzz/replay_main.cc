// Runs a fuzz target's LLVMFuzzerTestOneInput once on each input named on the command line (a
// file, or a directory whose files are taken in name order), as libFuzzer does when given files.
// A build without libFuzzer links this instead, so that every build checks every seed: a crash or
// a sanitizer report fails the run, and so does a directory with no inputs in it, which would
// otherwise pass without checking anything.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <system_error>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);
// Optional, as in libFuzzer: called once before the first input.
extern "C" __attribute__((weak)) int LLVMFuzzerInitialize(int* argc, char*** argv);

namespace {

namespace fs = std::filesystem;

bool ReadInput(const fs::path& path, std::string& bytes) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  return !in.bad();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s INPUT_OR_DIRECTORY...\n", argv[0]);
    return 64;
  }
  if (LLVMFuzzerInitialize != nullptr) LLVMFuzzerInitialize(&argc, &argv);
  std::size_t ran = 0;
  for (int i = 1; i < argc; ++i) {
    std::vector<fs::path> inputs;
    std::error_code ec;
    if (fs::is_directory(argv[i], ec)) {
      for (const fs::directory_entry& entry : fs::directory_iterator(argv[i], ec)) {
        if (entry.is_regular_file()) inputs.push_back(entry.path());
      }
      if (ec || inputs.empty()) {
        std::fprintf(stderr, "%s: no inputs in this directory\n", argv[i]);
        return 1;
      }
      std::sort(inputs.begin(), inputs.end());
    } else {
      inputs.emplace_back(argv[i]);
    }
    std::string bytes;
    for (const fs::path& input : inputs) {
      if (!ReadInput(input, bytes)) {
        std::fprintf(stderr, "%s: cannot read\n", input.c_str());
        return 1;
      }
      LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
      ++ran;
    }
  }
  std::printf("%zu inputs ran without a finding\n", ran);
  return 0;
}
