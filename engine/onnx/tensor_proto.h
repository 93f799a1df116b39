// Conversion between ONNX TensorProto messages and engine Tensors. Internal to engine/onnx/ and
// its tests: the rest of the engine never sees protobuf types.
//
// Every size in a TensorProto is checked before anything is allocated or copied: dimensions
// pass CheckedByteSize(), and the data (raw bytes, typed fields or an external file) must hold
// exactly the shape's element count.

#ifndef EDGEMOND_ENGINE_ONNX_TENSOR_PROTO_H_
#define EDGEMOND_ENGINE_ONNX_TENSOR_PROTO_H_

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>

#include "core/result.h"
#include "core/unique_fd.h"
#include "engine/tensor.h"

namespace edgemond::engine {

// Reads external tensor data below one directory (the model's). Paths in a model are relative
// to it; absolute paths, ".." components and links that lead outside are refused.
class ExternalDataDir {
 public:
  // An empty `dir` refuses every external reference (models loaded from memory).
  static Result<ExternalDataDir> Open(const std::string& dir);

  // Reads `length` bytes (or, when length < 0, up to the end of the file) at `offset` of
  // `location`, which must be `expected_bytes`. Only once the file is found to hold them is
  // `allocate` called for the destination (of expected_bytes), so a model that declares a
  // huge tensor without its data costs nothing.
  Status Read(std::string_view location, std::int64_t offset, std::int64_t length,
              std::int64_t expected_bytes,
              const std::function<Result<std::span<std::byte>>()>& allocate) const;

  // Total bytes read so far, for model-size reports.
  std::int64_t bytes_read() const { return bytes_read_; }

 private:
  ExternalDataDir(UniqueFd dir, std::string path) : dir_(std::move(dir)), path_(std::move(path)) {}

  UniqueFd dir_;  // Invalid when no directory was given.
  std::string path_;
  mutable std::int64_t bytes_read_ = 0;  // A statistic; reads are otherwise const.
};

// Converts `proto`. `external` resolves data_location EXTERNAL; may be null to refuse it.
Result<Tensor> TensorFromProto(const onnx::TensorProto& proto, const ExternalDataDir* external);

// Reads the external data of `proto` into its raw_data, so that it no longer refers to a
// file. Does nothing for tensors that hold their data. Checks sizes as TensorFromProto does.
Status InlineExternalData(onnx::TensorProto& proto, const ExternalDataDir& external);

}  // namespace edgemond::engine

#endif  // EDGEMOND_ENGINE_ONNX_TENSOR_PROTO_H_
