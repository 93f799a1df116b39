// edgemond-bench --trace: a timeline of the timed runs in the Chrome trace event format (the
// JSON object form: {"traceEvents": [...], ...}), which Perfetto (ui.perfetto.dev) and
// chrome://tracing open. Each timed run is one complete ("X") event named "run N"; inside it,
// each executed step is one complete event named by its label (Conv+Relu) with the node's name
// and step index in "args". Timestamps are microseconds from the first recorded step.
//
// StepTrace records with a clock read at every step boundary, like StepProfile. It stores at
// most `max_steps` step records, allocated when it is made, so that a run never allocates:
// past that, steps are counted as dropped (a long --duration run keeps only its beginning).
//
// Thread safety: a StepTrace is used by the thread that runs the session.

#ifndef EDGEMOND_ENGINE_TOOLS_CHROME_TRACE_H_
#define EDGEMOND_ENGINE_TOOLS_CHROME_TRACE_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/status.h"
#include "engine/model.h"
#include "engine/session.h"

namespace edgemond::engine {

class StepTrace final : public StepObserver {
 public:
  struct Record {
    int step = 0;
    SteadyTime start;
    SteadyTime end;
  };

  // `clock` is not owned and must outlive the trace.
  StepTrace(const Clock& clock, std::size_t max_steps);

  void BeforeStep(int step) override;
  void AfterStep(int step) override;

  // Completed steps in the order they ran; a run starts at each step 0.
  const std::vector<Record>& records() const { return records_; }
  // Steps not recorded because the buffer was full.
  std::uint64_t dropped() const { return dropped_; }

 private:
  const Clock& clock_;
  std::size_t max_steps_;
  std::vector<Record> records_;
  SteadyTime start_;
  std::uint64_t dropped_ = 0;
};

// Fields of the trace's "otherData" object, which viewers show as metadata.
struct TraceMetadata {
  std::string model_path;
  int threads = 1;
};

// The trace as JSON text: one event per recorded step, one per run, and name metadata.
std::string ChromeTraceJson(const Model& model, const StepTrace& trace,
                            const TraceMetadata& metadata);

// Writes ChromeTraceJson() to `path`, replacing it. kIoError (naming the path) when it cannot
// be written completely.
Status WriteChromeTrace(const std::string& path, const Model& model, const StepTrace& trace,
                        const TraceMetadata& metadata);

}  // namespace edgemond::engine

#endif  // EDGEMOND_ENGINE_TOOLS_CHROME_TRACE_H_
