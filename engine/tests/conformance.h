// The ONNX backend conformance harness: runs one case of ONNX's node tests
// (model.onnx + test_data_set_N/{input,output}_K.pb) through the engine.
//
// Outcomes: pass (every output of every data set matches), skip (the engine refuses the model
// as unsupported: the reason is the engine's own message), fail (anything else: a wrong
// value, a refused valid model, an error while running).
//
// Tolerance is ONNX's own runner's: |actual - expected| <= 1e-7 + 1e-3 * |expected| for
// floating point, exact for integers and booleans.
//
// The engine plans memory statically, so inputs that decide shapes (Reshape's target, Slice's
// bounds, Unsqueeze's axes) must be known at load time. Backend cases pass them as graph
// inputs; the harness binds every integer and boolean input as a constant at load
// (ModelOptions::constant_inputs) and feeds floating-point inputs at run time. When the engine
// refuses that because a floating-point input must be known at load too (Resize's scales and
// roi, Dropout's ratio in training mode), the case is loaded again with every input bound at load:
// the same kernels then run once, at load, and their results are compared the same way.

#ifndef EDGEMOND_ENGINE_TESTS_CONFORMANCE_H_
#define EDGEMOND_ENGINE_TESTS_CONFORMANCE_H_

#include <string>
#include <vector>

namespace edgemond::engine {

struct ConformanceResult {
  enum class Outcome { kPass, kSkip, kFail };
  Outcome outcome = Outcome::kFail;
  // The operator under test: the op of a single-node case, "(multi-node)" otherwise.
  std::string op;
  std::string reason;  // Why it was skipped or failed.
  // A float32 case: every graph input and output is a float32, int64 or bool tensor, and one
  // at least is float32. Every such case of a supported operator must pass.
  bool float32 = false;
};

// Runs the case in `case_dir`.
ConformanceResult RunConformanceCase(const std::string& case_dir);

// The case directories (those holding a model.onnx) below `root`, sorted.
std::vector<std::string> ListConformanceCases(const std::string& root);

// The tolerance, documented in docs/engine.md.
inline constexpr double kConformanceRelativeTolerance = 1e-3;
inline constexpr double kConformanceAbsoluteTolerance = 1e-7;

}  // namespace edgemond::engine

#endif  // EDGEMOND_ENGINE_TESTS_CONFORMANCE_H_
