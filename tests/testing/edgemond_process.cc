#include "tests/testing/edgemond_process.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <regex>

namespace edgemond::testing {

EdgemondProcess::EdgemondProcess(const TempDir& dir, std::vector<std::string> args,
                                 const std::string& config_json, EdgemondOptions options) {
  const std::string config = dir.Join("edgemond.json");
  std::ofstream(config) << config_json;
  std::vector<std::string> argv = {BuiltBinary("daemon/edgemond"), "--config", config};
  if (options.listen_flag) {
    argv.push_back("--listen");
    argv.push_back("127.0.0.1:0");
  }
  argv.insert(argv.end(), args.begin(), args.end());
  argv.insert(argv.begin(), options.wrapper.begin(), options.wrapper.end());
  process_ = std::make_unique<ChildProcess>(std::move(argv), dir.Join("edgemond.log"),
                                            std::move(options.env), std::move(options.child));
}

std::optional<double> EdgemondProcess::Metric(const std::string& series) const {
  const HttpReply reply = Get("/metrics");
  if (reply.status != 200) return std::nullopt;
  const std::string prefix = series + " ";
  for (std::size_t at = 0; at < reply.body.size();) {
    const std::size_t end = std::min(reply.body.find('\n', at), reply.body.size());
    if (reply.body.compare(at, prefix.size(), prefix) == 0) {
      return std::strtod(reply.body.c_str() + at + prefix.size(), nullptr);
    }
    at = end + 1;
  }
  return std::nullopt;
}

std::int64_t EdgemondProcess::NewestStoredMs() const {
  const auto seconds = Metric("edgemond_storage_newest_sample_timestamp_seconds");
  return seconds ? std::llround(*seconds * 1000) : -1;
}

bool EdgemondProcess::WaitReady(std::string& why) {
  const std::regex serving("serving http://127\\.0\\.0\\.1:([0-9]+)");
  const bool listening = WaitFor(
      [&] {
        std::smatch match;
        const std::string output = process_->Output();
        if (std::regex_search(output, match, serving)) {
          port_ = static_cast<std::uint16_t>(std::stoi(match[1]));
          return true;
        }
        return !process_->Running();
      },
      std::chrono::seconds(20));
  if (!listening || port_ == 0) {
    why = "edgemond did not start:\n" + process_->Output();
    return false;
  }
  const bool ready =
      WaitFor([&] { return Get("/readyz").status == 200; }, std::chrono::seconds(20));
  if (!ready) why = "edgemond did not get ready:\n" + process_->Output();
  return ready;
}

}  // namespace edgemond::testing
