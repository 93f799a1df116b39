#include "engine/onnx/tensor_proto.h"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bit>
#include <cerrno>
#include <climits>
#include <cstring>
#include <optional>
#include <vector>

namespace edgemond::engine {

static_assert(std::endian::native == std::endian::little,
              "ONNX raw tensor data is little-endian; big-endian hosts need byte swapping");

namespace {

using onnx::TensorProto;

// Copies a repeated field of the proto into the tensor, converting each element.
template <typename To, typename Field>
void CopyField(const Field& field, Tensor& tensor) {
  To* out = static_cast<To*>(tensor.raw_data());
  for (int i = 0; i < field.size(); ++i) out[i] = static_cast<To>(field.Get(i));
}

// Whether `location` is a plain relative path with no ".." component.
bool IsPlainRelativePath(std::string_view location) {
  if (location.empty() || location.front() == '/') return false;
  std::size_t begin = 0;
  while (begin <= location.size()) {
    const std::size_t end = std::min(location.find('/', begin), location.size());
    if (location.substr(begin, end - begin) == "..") return false;
    begin = end + 1;
  }
  return location.find('\0') == std::string_view::npos;
}

// Reads the external data of `proto` into `out`, which has the tensor's size.
Status ReadExternal(const TensorProto& proto, const ExternalDataDir& external,
                    std::int64_t expected_bytes,
                    const std::function<Result<std::span<std::byte>>()>& allocate) {
  std::string location;
  std::int64_t offset = 0;
  std::int64_t length = -1;
  for (const onnx::StringStringEntryProto& entry : proto.external_data()) {
    std::int64_t* number = entry.key() == "offset"   ? &offset
                           : entry.key() == "length" ? &length
                                                     : nullptr;
    if (entry.key() == "location") location = entry.value();
    if (number == nullptr) continue;  // "checksum" and unknown keys carry no layout.
    char* end = nullptr;
    errno = 0;
    const long long parsed = std::strtoll(entry.value().c_str(), &end, 10);
    if (errno != 0 || end == entry.value().c_str() || *end != '\0' || parsed < 0) {
      return Status::Corruption("external data " + entry.key() + " '" + entry.value() +
                                "' is not a byte count");
    }
    *number = parsed;
  }
  if (location.empty()) return Status::Corruption("external data has no location");
  return external.Read(location, offset, length, expected_bytes, allocate);
}

}  // namespace

Status InlineExternalData(TensorProto& proto, const ExternalDataDir& external) {
  if (proto.data_location() != TensorProto::EXTERNAL) return Status::Ok();
  const std::string what = proto.name().empty() ? "tensor" : "tensor '" + proto.name() + "'";
  const Result<DataType> dtype = DataTypeFromOnnx(proto.data_type());
  if (!dtype.ok()) return dtype.status().WithContext(what);
  const Shape shape(std::vector<std::int64_t>(proto.dims().begin(), proto.dims().end()));
  const Result<std::int64_t> bytes = CheckedByteSize(shape, *dtype);
  if (!bytes.ok()) return bytes.status().WithContext(what);
  std::string data;
  const Status read = ReadExternal(proto, external, *bytes, [&]() -> Result<std::span<std::byte>> {
    data.resize(static_cast<std::size_t>(*bytes));
    return std::span<std::byte>(reinterpret_cast<std::byte*>(data.data()), data.size());
  });
  if (!read.ok()) return read.WithContext(what);
  proto.clear_external_data();
  proto.set_data_location(TensorProto::DEFAULT);
  proto.set_raw_data(std::move(data));
  return Status::Ok();
}

Result<ExternalDataDir> ExternalDataDir::Open(const std::string& dir) {
  if (dir.empty()) return ExternalDataDir(UniqueFd(), "");
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return Status::FromErrno(errno, "model directory " + dir);
  return ExternalDataDir(UniqueFd(fd), dir);
}

Status ExternalDataDir::Read(std::string_view location, std::int64_t offset, std::int64_t length,
                             std::int64_t expected_bytes,
                             const std::function<Result<std::span<std::byte>>()>& allocate) const {
  const std::string name(location);
  if (!dir_.valid()) {
    return Status::InvalidArgument("external data '" + name +
                                   "' cannot be resolved for a model without a directory");
  }
  if (!IsPlainRelativePath(location)) {
    return Status::PermissionDenied("external data path '" + name +
                                    "' is not a relative path inside the model's directory");
  }
  // RESOLVE_BENEATH also refuses symbolic links that lead out of the directory.
  struct open_how how = {};
  how.flags = O_RDONLY | O_CLOEXEC;
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
  long fd = ::syscall(SYS_openat2, dir_.get(), name.c_str(), &how, sizeof(how));
  if (fd < 0 && errno == ENOSYS) {
    // Kernels before 5.6: the lexical check above still applies; do not follow a final link.
    fd = ::openat(dir_.get(), name.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  }
  if (fd < 0) {
    if (errno == EXDEV || errno == ELOOP) {
      return Status::PermissionDenied("external data '" + name +
                                      "' resolves outside the model's directory");
    }
    return Status::FromErrno(errno, "external data '" + name + "' in " + path_);
  }
  UniqueFd file(static_cast<int>(fd));
  struct stat st = {};
  if (::fstat(file.get(), &st) != 0) return Status::FromErrno(errno, "external data " + name);
  if (!S_ISREG(st.st_mode)) {
    return Status::InvalidArgument("external data '" + name + "' is not a regular file");
  }
  const std::int64_t size = st.st_size;
  if (offset < 0 || offset > size) {
    return Status::Corruption("external data '" + name + "': offset " + std::to_string(offset) +
                              " is outside the " + std::to_string(size) + "-byte file");
  }
  if (length < 0) length = size - offset;
  if (length != expected_bytes || length > size - offset) {
    return Status::Corruption("external data '" + name + "' has " + std::to_string(length) +
                              " bytes at offset " + std::to_string(offset) + " (file of " +
                              std::to_string(size) + " bytes); the tensor needs " +
                              std::to_string(expected_bytes));
  }
  EDGEMOND_ASSIGN_OR_RETURN(const std::span<std::byte> out, allocate());
  std::size_t done = 0;
  while (done < out.size()) {
    const ssize_t n = ::pread(file.get(), out.data() + done, out.size() - done,
                              static_cast<off_t>(offset) + static_cast<off_t>(done));
    if (n < 0) {
      if (errno == EINTR) continue;
      return Status::FromErrno(errno, "reading external data " + name);
    }
    if (n == 0) return Status::Corruption("external data '" + name + "' is truncated");
    done += static_cast<std::size_t>(n);
  }
  bytes_read_ += static_cast<std::int64_t>(out.size());
  return Status::Ok();
}

Result<Tensor> TensorFromProto(const TensorProto& proto, const ExternalDataDir* external) {
  const std::string what = proto.name().empty() ? "tensor" : "tensor '" + proto.name() + "'";
  if (proto.has_segment()) return Status::Unsupported(what + " is segmented");
  const Result<DataType> dtype = DataTypeFromOnnx(proto.data_type());
  if (!dtype.ok()) return dtype.status().WithContext(what);
  std::vector<std::int64_t> dims(proto.dims().begin(), proto.dims().end());
  Shape shape(std::move(dims));
  const Result<std::int64_t> bytes = CheckedByteSize(shape, *dtype);
  if (!bytes.ok()) return bytes.status().WithContext(what);
  const std::int64_t count = shape.num_elements();

  if (proto.data_location() == TensorProto::EXTERNAL) {
    if (external == nullptr) {
      return Status::InvalidArgument(what + " has external data, which is not allowed here");
    }
    std::optional<Tensor> tensor;
    const Status read =
        ReadExternal(proto, *external, *bytes, [&]() -> Result<std::span<std::byte>> {
          EDGEMOND_ASSIGN_OR_RETURN(Tensor created, Tensor::CreateUninitialized(*dtype, shape));
          tensor.emplace(std::move(created));
          return std::span<std::byte>(static_cast<std::byte*>(tensor->raw_data()),
                                      tensor->byte_size());
        });
    if (!read.ok()) return read.WithContext(what);
    return std::move(*tensor);
  }

  // The data's size is checked before the tensor is allocated: a model may declare a huge
  // shape with no data behind it.
  if (proto.has_raw_data()) {
    if (static_cast<std::int64_t>(proto.raw_data().size()) != *bytes) {
      return Status::Corruption(what + " of shape " + shape.ToString() + " needs " +
                                std::to_string(*bytes) + " bytes of data, has " +
                                std::to_string(proto.raw_data().size()));
    }
    EDGEMOND_ASSIGN_OR_RETURN(Tensor tensor, Tensor::CreateUninitialized(*dtype, shape));
    if (*bytes > 0)
      std::memcpy(tensor.raw_data(), proto.raw_data().data(), proto.raw_data().size());
    return tensor;
  }

  // Typed fields: which one holds the data depends on the type (onnx.proto).
  int given = 0;
  switch (*dtype) {
    case DataType::kFloat32:
      given = proto.float_data_size();
      break;
    case DataType::kFloat64:
      given = proto.double_data_size();
      break;
    case DataType::kInt64:
      given = proto.int64_data_size();
      break;
    case DataType::kUint32:
    case DataType::kUint64:
      given = proto.uint64_data_size();
      break;
    default:  // The 8- to 32-bit types, 16-bit floats (their bits) and bool: one int32 each.
      given = proto.int32_data_size();
      break;
  }
  if (given != count) {
    return Status::Corruption(what + " of shape " + shape.ToString() + " has " +
                              std::to_string(given) + " values; expected " + std::to_string(count));
  }
  EDGEMOND_ASSIGN_OR_RETURN(Tensor tensor, Tensor::Create(*dtype, shape));
  switch (*dtype) {
    case DataType::kFloat32:
      CopyField<float>(proto.float_data(), tensor);
      break;
    case DataType::kFloat64:
      CopyField<double>(proto.double_data(), tensor);
      break;
    case DataType::kInt64:
      CopyField<std::int64_t>(proto.int64_data(), tensor);
      break;
    case DataType::kUint32:
      CopyField<std::uint32_t>(proto.uint64_data(), tensor);
      break;
    case DataType::kUint64:
      CopyField<std::uint64_t>(proto.uint64_data(), tensor);
      break;
    case DataType::kInt32:
      CopyField<std::int32_t>(proto.int32_data(), tensor);
      break;
    case DataType::kInt16:
      CopyField<std::int16_t>(proto.int32_data(), tensor);
      break;
    case DataType::kUint16:
    case DataType::kFloat16:
    case DataType::kBFloat16:
      CopyField<std::uint16_t>(proto.int32_data(), tensor);
      break;
    case DataType::kInt8:
      CopyField<std::int8_t>(proto.int32_data(), tensor);
      break;
    case DataType::kUint8:
      CopyField<std::uint8_t>(proto.int32_data(), tensor);
      break;
    case DataType::kBool: {
      bool* out = tensor.data<bool>();
      for (int i = 0; i < given; ++i) out[i] = proto.int32_data(i) != 0;
      break;
    }
  }
  return tensor;
}

}  // namespace edgemond::engine
