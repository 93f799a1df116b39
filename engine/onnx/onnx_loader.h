// Loading ONNX models: file -> onnx::ModelProto (libonnx) -> checks -> Graph -> Model.
//
// The ONNX project's own library does the parsing and validation (Debian's libonnx-dev):
//  - When the model's IR version and every opset import are ones the library knows, the whole
//    model goes through onnx::checker::check_model before it is built, and strict
//    onnx::shape_inference after: the types it infers must equal the kernels'. (Inference runs
//    last because libonnx 1.12's inference functions crash on some malformed nodes, which the
//    kernels refuse first.)
//  - A model that imports a newer opset (or IR version) than the library knows cannot be
//    checked against schemas the library does not have; then the library checks the graph's
//    value infos and tensors, and node validation is left to the engine's kernels, which
//    refuse any attribute, input, output or type they do not implement.
// docs/adr/0102-engine-onnx-loading.md records why.
//
// External data is read relative to the model file's directory; absolute paths, ".." and
// links that lead out of it are refused. Any malformed input is an error, never a crash.
//
// Thread safety: the functions are thread-safe.

#ifndef EDGEMOND_ENGINE_ONNX_ONNX_LOADER_H_
#define EDGEMOND_ENGINE_ONNX_ONNX_LOADER_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "core/result.h"
#include "engine/graph.h"
#include "engine/model.h"
#include "engine/passes.h"
#include "engine/tensor.h"

namespace edgemond::engine {

// What the file says about itself, and how it was validated.
struct OnnxModelInfo {
  std::int64_t ir_version = 0;
  std::map<std::string, int> opsets;  // Domain ("" for ai.onnx) -> version.
  std::string producer;               // "pytorch 1.13.1".
  std::int64_t file_bytes = 0;
  std::int64_t external_data_bytes = 0;
  // True when onnx::checker::check_model and strict shape inference ran on the whole model;
  // false for models newer than the ONNX library (see the file comment).
  bool fully_checked = false;
};

// Parses and checks an ONNX model (no shape inference) and returns its graph. `model_dir`
// resolves external data; empty refuses it. `info` (optional) receives what the file says
// about itself.
Result<Graph> ImportOnnx(std::string_view bytes, const std::string& model_dir, OnnxModelInfo* info);

// Reads the file at `path`, imports, builds and cross-checks the model.
Result<std::shared_ptr<const Model>> LoadOnnxModel(const std::string& path,
                                                   const ModelOptions& options,
                                                   OnnxModelInfo* info = nullptr);

// The same from bytes in memory; `model_dir` resolves external data (empty refuses it).
Result<std::shared_ptr<const Model>> LoadOnnxModelFromBytes(std::string_view bytes,
                                                            const std::string& model_dir,
                                                            const ModelOptions& options,
                                                            OnnxModelInfo* info = nullptr);

// Reads a serialized onnx.TensorProto file (the model-zoo test_data_set_N/input_K.pb format).
// `name` (optional) receives the tensor's name.
Result<Tensor> ReadOnnxTensorFile(const std::string& path, std::string* name = nullptr);

// The largest model file read into memory (protobuf's limit); larger models must keep their
// weights in external data.
inline constexpr std::int64_t kMaxModelFileBytes = (std::int64_t{1} << 31) - 1;

}  // namespace edgemond::engine

#endif  // EDGEMOND_ENGINE_ONNX_ONNX_LOADER_H_
