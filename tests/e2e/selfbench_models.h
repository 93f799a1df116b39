// Small real ONNX models for the self-benchmark tests, written by the test run (ONNX's own
// protobuf classes, from Debian's libonnx-dev): a two-layer perceptron with a symbolic batch
// dimension, its golden data in the model-zoo layout, and the same file cut short.

#ifndef EDGEMOND_TESTS_E2E_SELFBENCH_MODELS_H_
#define EDGEMOND_TESTS_E2E_SELFBENCH_MODELS_H_

#include <string>

namespace edgemond::testing {

// y[N, 64] = Relu(x[N, 256] @ W1[256, 512]) @ W2[512, 64]: 327,680 FLOPs per row of x, so a
// bigger batch is a proportionally slower inference.
inline constexpr int kMlpInputs = 256;
inline constexpr int kMlpHidden = 512;
inline constexpr int kMlpOutputs = 64;

// Writes the model to `path`.
void WriteMlp(const std::string& path);

// Writes `dir`/input_0.pb (x, one row) and `dir`/output_0.pb (y, computed here in double
// precision). With `wrong`, one output element is off by 1.
void WriteMlpGoldenData(const std::string& dir, bool wrong = false);

// Writes the first `bytes` bytes of the model: a file that does not parse.
void WriteTruncatedMlp(const std::string& path, std::size_t bytes);

}  // namespace edgemond::testing

#endif  // EDGEMOND_TESTS_E2E_SELFBENCH_MODELS_H_
