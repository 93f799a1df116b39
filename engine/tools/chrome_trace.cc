#include "engine/tools/chrome_trace.h"

#include <cerrno>
#include <cstdio>
#include <nlohmann/json.hpp>

namespace edgemond::engine {
namespace {

using Json = nlohmann::ordered_json;

// Every event is on one process and one thread: the session runs its steps in order on the
// calling thread (a kernel's own workers run inside its step).
constexpr int kPid = 1;
constexpr int kTid = 1;

double Microseconds(SteadyTime t, SteadyTime origin) {
  return std::chrono::duration<double, std::micro>(t - origin).count();
}

Json Complete(std::string name, double ts, double dur, Json args) {
  return Json{{"name", std::move(name)},
              {"ph", "X"},
              {"ts", ts},
              {"dur", dur},
              {"pid", kPid},
              {"tid", kTid},
              {"args", std::move(args)}};
}

Json NameMetadata(const char* what, std::string name) {
  return Json{{"name", what},
              {"ph", "M"},
              {"pid", kPid},
              {"tid", kTid},
              {"args", Json{{"name", std::move(name)}}}};
}

}  // namespace

StepTrace::StepTrace(const Clock& clock, std::size_t max_steps)
    : clock_(clock), max_steps_(max_steps) {
  records_.reserve(max_steps);
}

void StepTrace::BeforeStep(int step) {
  (void)step;
  start_ = clock_.Now();
}

void StepTrace::AfterStep(int step) {
  const SteadyTime end = clock_.Now();
  if (records_.size() >= max_steps_) {
    ++dropped_;
    return;
  }
  records_.push_back(Record{step, start_, end});
}

std::string ChromeTraceJson(const Model& model, const StepTrace& trace,
                            const TraceMetadata& metadata) {
  const std::vector<StepTrace::Record>& records = trace.records();
  const std::vector<Model::Step>& steps = model.steps();
  Json events = Json::array();
  events.push_back(NameMetadata("process_name", "edgemond-bench " + metadata.model_path));
  events.push_back(NameMetadata("thread_name", "inference"));
  const SteadyTime origin = records.empty() ? SteadyTime() : records.front().start;
  // A run is the records from one step 0 up to the next. Its event comes before its steps,
  // so that viewers nest them under it even where timestamps tie.
  int runs = 0;
  for (std::size_t begin = 0; begin < records.size(); ++runs) {
    std::size_t end = begin + 1;
    while (end < records.size() && records[end].step != 0) ++end;
    const double run_ts = Microseconds(records[begin].start, origin);
    events.push_back(Complete("run " + std::to_string(runs), run_ts,
                              Microseconds(records[end - 1].end, origin) - run_ts,
                              Json{{"steps", end - begin}}));
    for (std::size_t i = begin; i < end; ++i) {
      const StepTrace::Record& record = records[i];
      const Model::Step& step = steps[static_cast<std::size_t>(record.step)];
      const double ts = Microseconds(record.start, origin);
      events.push_back(
          Complete(step.label, ts, Microseconds(record.end, origin) - ts,
                   Json{{"node", step.name}, {"step", record.step}, {"flops", step.flops}}));
    }
    begin = end;
  }
  Json trace_json{{"traceEvents", std::move(events)},
                  {"displayTimeUnit", "ms"},
                  {"otherData", Json{{"model", metadata.model_path},
                                     {"threads", metadata.threads},
                                     {"runs", runs},
                                     {"steps_per_run", steps.size()},
                                     {"dropped_steps", trace.dropped()}}}};
  return trace_json.dump(-1, ' ', false, Json::error_handler_t::replace);
}

Status WriteChromeTrace(const std::string& path, const Model& model, const StepTrace& trace,
                        const TraceMetadata& metadata) {
  const std::string text = ChromeTraceJson(model, trace, metadata) + "\n";
  std::FILE* file = std::fopen(path.c_str(), "wb");
  if (file == nullptr) return Status::FromErrno(errno, "--trace: cannot write " + path);
  const bool written = std::fwrite(text.data(), 1, text.size(), file) == text.size();
  const int write_errno = errno;
  // fclose() reports a failed final flush (a full disk), so its result counts too.
  if (std::fclose(file) != 0 || !written) {
    return Status::FromErrno(written ? errno : write_errno, "--trace: cannot write " + path);
  }
  return Status::Ok();
}

}  // namespace edgemond::engine
