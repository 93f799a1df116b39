#include "engine/onnx/onnx_loader.h"

#include <fcntl.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <onnx/checker.h>
#include <onnx/defs/schema.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <exception>
#include <filesystem>
#include <set>

#include "core/unique_fd.h"
#include "engine/kernel_registry.h"
#include "engine/onnx/tensor_proto.h"

namespace edgemond::engine {
namespace {

std::string NormalizeDomain(const std::string& domain) {
  return domain == "ai.onnx" ? std::string() : domain;
}

constexpr const char* kDoesNotParse =
    "not an ONNX model: the protobuf message does not parse (truncated or another file type)";

// An open model or tensor file: a regular file within the size protobuf can parse.
Result<UniqueFd> OpenRegularFile(const std::string& path, std::int64_t max_bytes,
                                 std::int64_t* size_bytes) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) return Status::FromErrno(errno, path);
  struct stat st = {};
  if (::fstat(fd.get(), &st) != 0) return Status::FromErrno(errno, path);
  if (!S_ISREG(st.st_mode)) return Status::InvalidArgument(path + " is not a regular file");
  if (st.st_size > max_bytes) {
    return Status::ResourceExhausted(path + " is " + std::to_string(st.st_size) +
                                     " bytes; files above " + std::to_string(max_bytes) +
                                     " bytes must keep their weights in external data");
  }
  *size_bytes = st.st_size;
  return fd;
}

// Parses a message straight from the file through a 1 MiB buffer, so that a model's bytes are
// never held whole next to the parsed copy of its weights (ResNet-50: 100 MB less at the peak,
// and no 100 MB buffer to fault in and fill). False when the bytes do not parse or cannot be
// read; `read_errno` then holds the read error, or 0.
bool ParseFromFile(int fd, google::protobuf::MessageLite& message, int* read_errno) {
  google::protobuf::io::FileInputStream stream(fd, /*block_size=*/1 << 20);
  const bool parsed = message.ParseFromZeroCopyStream(&stream);
  *read_errno = stream.GetErrno();
  return parsed && *read_errno == 0;
}

// The engine's view of an ONNX value type. Only tensors are supported.
Result<DeclaredType> DeclaredTypeFromProto(const onnx::ValueInfoProto& info) {
  const onnx::TypeProto& type = info.type();
  if (type.value_case() != onnx::TypeProto::kTensorType) {
    return Status::Unsupported("value '" + info.name() +
                               "' is not a tensor (sequences, maps and optionals are not "
                               "supported)");
  }
  const onnx::TypeProto_Tensor& tensor = type.tensor_type();
  const Result<DataType> dtype = DataTypeFromOnnx(tensor.elem_type());
  if (!dtype.ok()) return dtype.status().WithContext("value '" + info.name() + "'");
  DeclaredType declared;
  declared.dtype = *dtype;
  declared.has_shape = tensor.has_shape();
  if (tensor.shape().dim_size() > kMaxRank) {
    return Status::InvalidArgument("value '" + info.name() + "' has rank " +
                                   std::to_string(tensor.shape().dim_size()));
  }
  for (const onnx::TensorShapeProto_Dimension& dim : tensor.shape().dim()) {
    Dim d;
    if (dim.has_dim_value()) {
      if (dim.dim_value() < 0) {
        return Status::InvalidArgument("value '" + info.name() + "' has a negative dimension");
      }
      d.value = dim.dim_value();
    } else if (dim.has_dim_param()) {
      d.symbol = dim.dim_param();
    }
    declared.dims.push_back(std::move(d));
  }
  return declared;
}

Result<Attribute> AttributeFromProto(const onnx::AttributeProto& proto,
                                     const ExternalDataDir& external) {
  Attribute attribute;
  attribute.name = proto.name();
  if (!proto.ref_attr_name().empty()) {
    return Status::Unsupported("attribute '" + proto.name() +
                               "' refers to a function attribute; functions are not supported");
  }
  switch (proto.type()) {
    case onnx::AttributeProto::FLOAT:
      attribute.type = Attribute::Type::kFloat;
      attribute.f = proto.f();
      break;
    case onnx::AttributeProto::INT:
      attribute.type = Attribute::Type::kInt;
      attribute.i = proto.i();
      break;
    case onnx::AttributeProto::STRING:
      attribute.type = Attribute::Type::kString;
      attribute.s = proto.s();
      break;
    case onnx::AttributeProto::TENSOR: {
      attribute.type = Attribute::Type::kTensor;
      Result<Tensor> tensor = TensorFromProto(proto.t(), &external);
      if (!tensor.ok()) return tensor.status().WithContext("attribute '" + proto.name() + "'");
      attribute.t = std::make_shared<const Tensor>(std::move(tensor).value());
      break;
    }
    case onnx::AttributeProto::FLOATS:
      attribute.type = Attribute::Type::kFloats;
      attribute.floats.assign(proto.floats().begin(), proto.floats().end());
      break;
    case onnx::AttributeProto::INTS:
      attribute.type = Attribute::Type::kInts;
      attribute.ints.assign(proto.ints().begin(), proto.ints().end());
      break;
    case onnx::AttributeProto::STRINGS:
      attribute.type = Attribute::Type::kStrings;
      attribute.strings.assign(proto.strings().begin(), proto.strings().end());
      break;
    default:
      attribute.type = Attribute::Type::kOther;
      attribute.other_type = onnx::AttributeProto::AttributeType_Name(proto.type());
      if (attribute.other_type.empty()) {
        attribute.other_type = "type " + std::to_string(static_cast<int>(proto.type()));
      }
      break;
  }
  return attribute;
}

// Checks the dimensions of every stored tensor before libonnx multiplies them (it does not
// guard against overflow).
Status CheckTensorDims(const onnx::TensorProto& tensor) {
  if (tensor.dims_size() > kMaxRank) {
    return Status::InvalidArgument("tensor '" + tensor.name() + "' has rank " +
                                   std::to_string(tensor.dims_size()));
  }
  const Shape shape(std::vector<std::int64_t>(tensor.dims().begin(), tensor.dims().end()));
  const Result<std::int64_t> bytes = CheckedByteSize(shape, DataType::kUint8);
  if (!bytes.ok()) return bytes.status().WithContext("tensor '" + tensor.name() + "'");
  return Status::Ok();
}

// libonnx 1.12's shape inference divides by these attributes without checking them (a stride
// of 0 raises SIGFPE inside convPoolShapeInference). ONNX requires them positive anyway.
Status CheckDivisorAttributes(const onnx::GraphProto& graph) {
  static constexpr std::string_view kPositive[] = {"strides", "dilations", "kernel_shape", "group",
                                                   "blocksize"};
  for (const onnx::NodeProto& node : graph.node()) {
    for (const onnx::AttributeProto& attribute : node.attribute()) {
      if (std::find(std::begin(kPositive), std::end(kPositive), attribute.name()) ==
          std::end(kPositive)) {
        continue;
      }
      bool positive = attribute.i() >= 1 || attribute.type() != onnx::AttributeProto::INT;
      for (const std::int64_t value : attribute.ints()) positive = positive && value >= 1;
      if (!positive) {
        return Status::InvalidArgument("node '" + node.name() + "' (" + node.op_type() +
                                       "): attribute '" + attribute.name() + "' must be positive");
      }
    }
  }
  return Status::Ok();
}

Status CheckStoredTensors(const onnx::GraphProto& graph) {
  for (const onnx::TensorProto& tensor : graph.initializer()) {
    EDGEMOND_RETURN_IF_ERROR(CheckTensorDims(tensor));
  }
  for (const onnx::NodeProto& node : graph.node()) {
    for (const onnx::AttributeProto& attribute : node.attribute()) {
      if (attribute.has_t()) EDGEMOND_RETURN_IF_ERROR(CheckTensorDims(attribute.t()));
    }
  }
  return Status::Ok();
}

// Whether libonnx knows the model's IR version and every opset it imports, so that its
// checker and shape inference apply in full.
bool LibraryKnowsModel(const onnx::ModelProto& model) {
  if (model.ir_version() > onnx::Version::IR_VERSION) return false;
  const auto& ranges = onnx::OpSchemaRegistry::DomainToVersionRange::Instance().Map();
  for (const onnx::OperatorSetIdProto& opset : model.opset_import()) {
    const auto it = ranges.find(NormalizeDomain(opset.domain()));
    if (it == ranges.end() || opset.version() > it->second.second) return false;
  }
  return true;
}

// Runs libonnx's checker: the whole model when the library knows it, value infos and tensors
// otherwise. Exceptions from libonnx stop here.
Status CheckWithLibrary(const onnx::ModelProto& model, bool full) {
  try {
    if (full) {
      onnx::checker::check_model(model);
    } else {
      onnx::checker::CheckerContext context;
      context.set_ir_version(
          static_cast<int>(std::min<std::int64_t>(model.ir_version(), onnx::Version::IR_VERSION)));
      const onnx::GraphProto& graph = model.graph();
      for (const auto& value : graph.input()) onnx::checker::check_value_info(value, context);
      for (const auto& value : graph.output()) onnx::checker::check_value_info(value, context);
      for (const auto& tensor : graph.initializer()) onnx::checker::check_tensor(tensor, context);
    }
  } catch (const std::exception& e) {
    return Status::InvalidArgument(std::string("ONNX checker: ") + e.what());
  }
  return Status::Ok();
}

bool IsFloatingPoint(std::int32_t onnx_type) {
  return onnx_type == onnx::TensorProto::FLOAT || onnx_type == onnx::TensorProto::DOUBLE ||
         onnx_type == onnx::TensorProto::FLOAT16 || onnx_type == onnx::TensorProto::BFLOAT16;
}

// Turns floating-point initializers (whose data BuildGraph has released) into graph inputs of
// the same type and shape, so that libonnx's shape inference sees their shapes without their
// data. Integer initializers, which shape inference reads (Reshape targets), stay.
void StripWeightsForInference(onnx::ModelProto& model) {
  onnx::GraphProto* graph = model.mutable_graph();
  std::set<std::string> inputs;
  for (const onnx::ValueInfoProto& input : graph->input()) inputs.insert(input.name());
  google::protobuf::RepeatedPtrField<onnx::TensorProto> kept;
  for (onnx::TensorProto& initializer : *graph->mutable_initializer()) {
    if (!IsFloatingPoint(initializer.data_type())) {
      *kept.Add() = std::move(initializer);
      continue;
    }
    if (inputs.count(initializer.name()) > 0) continue;
    onnx::ValueInfoProto* input = graph->add_input();
    input->set_name(initializer.name());
    auto* tensor = input->mutable_type()->mutable_tensor_type();
    tensor->set_elem_type(initializer.data_type());
    auto* shape = tensor->mutable_shape();
    for (const std::int64_t dim : initializer.dims()) shape->add_dim()->set_dim_value(dim);
  }
  graph->mutable_initializer()->Swap(&kept);
}

// Runs libonnx's strict shape inference on a model the engine has already built, and compares
// every type it infers with the one the kernels computed. It runs last on purpose: libonnx 1.12's
// inference functions trust their input (a stride of 0 or a weight of the wrong rank crashes
// them), and the kernels have by now refused anything malformed.
Status CrossCheckShapes(onnx::ModelProto& model, const Graph& resolved,
                        const InputShapes& input_shapes) {
  // Bound symbolic input dimensions are written in first, so that the inferred shapes are
  // concrete.
  for (onnx::ValueInfoProto& input : *model.mutable_graph()->mutable_input()) {
    const auto given = input_shapes.find(input.name());
    if (given == input_shapes.end() || !input.type().has_tensor_type()) continue;
    onnx::TensorShapeProto* shape = input.mutable_type()->mutable_tensor_type()->mutable_shape();
    if (static_cast<std::size_t>(shape->dim_size()) != given->second.size()) continue;
    for (int i = 0; i < shape->dim_size(); ++i) {
      if (!shape->dim(i).has_dim_value()) {
        shape->mutable_dim(i)->set_dim_value(given->second[static_cast<std::size_t>(i)]);
      }
    }
  }
  try {
    onnx::ShapeInferenceOptions options(/*check_type_val=*/true, /*strict_mode_val=*/1,
                                        /*data_prop_val=*/true);
    onnx::shape_inference::InferShapes(model, onnx::OpSchemaRegistry::Instance(), options);
  } catch (const std::exception& e) {
    return Status::InvalidArgument(std::string("ONNX shape inference: ") + e.what());
  }
  const auto compare = [&](const onnx::ValueInfoProto& info) -> Status {
    const ValueId id = resolved.FindValue(info.name());
    if (id == kNoValue || !resolved.value(id).info.has_value()) return Status::Ok();
    if (info.type().value_case() != onnx::TypeProto::kTensorType) return Status::Ok();
    const TensorInfo& computed = *resolved.value(id).info;
    const onnx::TypeProto_Tensor& inferred = info.type().tensor_type();
    bool match = true;
    const Result<DataType> dtype = DataTypeFromOnnx(inferred.elem_type());
    if (inferred.elem_type() != onnx::TensorProto::UNDEFINED) {
      match = dtype.ok() && *dtype == computed.dtype;
    }
    if (inferred.has_shape()) {
      match = match && inferred.shape().dim_size() == computed.shape.rank();
      for (int i = 0; match && i < inferred.shape().dim_size(); ++i) {
        const auto& dim = inferred.shape().dim(i);
        if (dim.has_dim_value() && dim.dim_value() != computed.shape.dim(i)) match = false;
      }
    }
    if (match) return Status::Ok();
    return Status::InvalidArgument("ONNX shape inference gives value '" + info.name() +
                                   "' another type than the engine computes (" +
                                   computed.ToString() + ")");
  };
  for (const onnx::ValueInfoProto& info : model.graph().value_info()) {
    EDGEMOND_RETURN_IF_ERROR(compare(info));
  }
  for (const onnx::ValueInfoProto& info : model.graph().output()) {
    EDGEMOND_RETURN_IF_ERROR(compare(info));
  }
  return Status::Ok();
}

Status SetDeclared(Graph& graph, const onnx::ValueInfoProto& info) {
  const ValueId id = graph.FindValue(info.name());
  if (id == kNoValue || graph.value(id).declared.has_value()) return Status::Ok();
  if (info.type().value_case() != onnx::TypeProto::kTensorType ||
      info.type().tensor_type().elem_type() == onnx::TensorProto::UNDEFINED) {
    return Status::Ok();  // Nothing usable to cross-check.
  }
  EDGEMOND_ASSIGN_OR_RETURN(DeclaredType declared, DeclaredTypeFromProto(info));
  graph.value(id).declared = std::move(declared);
  return Status::Ok();
}

// Builds the graph. Each floating-point initializer's data is released from `model` once
// converted, so that the weights are held twice at most for one tensor at a time.
Result<Graph> BuildGraph(onnx::ModelProto& model, const std::map<std::string, int>& opsets,
                         const ExternalDataDir& external) {
  const onnx::GraphProto& proto = model.graph();
  if (proto.sparse_initializer_size() > 0) {
    return Status::Unsupported("sparse initializers are not supported");
  }
  Graph graph;
  for (onnx::TensorProto& initializer : *model.mutable_graph()->mutable_initializer()) {
    Result<Tensor> tensor = TensorFromProto(initializer, &external);
    // Weights are released (release_raw_data hands over the heap string; clearing would keep
    // its capacity); small integer tensors stay for libonnx's shape inference.
    std::unique_ptr<std::string> released(
        IsFloatingPoint(initializer.data_type()) ? initializer.release_raw_data() : nullptr);
    if (!tensor.ok()) return tensor.status().WithContext("initializer");
    EDGEMOND_ASSIGN_OR_RETURN(const ValueId id, graph.AddValue(initializer.name()));
    EDGEMOND_RETURN_IF_ERROR(
        graph.SetConstant(id, std::make_shared<const Tensor>(std::move(tensor).value())));
  }
  for (const onnx::ValueInfoProto& input : proto.input()) {
    // IR < 4 lists initializers as inputs too; they are constants, not inputs, here.
    const ValueId existing = graph.FindValue(input.name());
    if (existing != kNoValue && graph.value(existing).constant != nullptr) continue;
    EDGEMOND_ASSIGN_OR_RETURN(const ValueId id, graph.AddValue(input.name()));
    EDGEMOND_ASSIGN_OR_RETURN(DeclaredType declared, DeclaredTypeFromProto(input));
    graph.value(id).declared = std::move(declared);
    EDGEMOND_RETURN_IF_ERROR(graph.AddInput(id));
  }
  for (const onnx::NodeProto& node_proto : proto.node()) {
    Node node;
    node.name = node_proto.name();
    node.domain = NormalizeDomain(node_proto.domain());
    node.op_type = node_proto.op_type();
    const auto opset = opsets.find(node.domain);
    if (opset == opsets.end()) {
      return Status::InvalidArgument("node '" + node.name + "' (" + node.op_type +
                                     ") uses domain '" + node.domain +
                                     "', which the model does not import");
    }
    if (node.domain == kInternalDomain) {
      return Status::Unsupported("node '" + node.name + "' (" + node.op_type + "): domain '" +
                                 node.domain + "' is reserved for the engine's own operators");
    }
    node.opset = opset->second;
    for (const std::string& input : node_proto.input()) {
      node.inputs.push_back(input.empty() ? kNoValue : graph.FindOrAddValue(input));
    }
    for (const std::string& output : node_proto.output()) {
      node.outputs.push_back(output.empty() ? kNoValue : graph.FindOrAddValue(output));
    }
    for (const onnx::AttributeProto& attribute_proto : node_proto.attribute()) {
      Result<Attribute> attribute = AttributeFromProto(attribute_proto, external);
      if (!attribute.ok()) {
        return attribute.status().WithContext("node '" + node.name + "' (" + node.op_type + ")");
      }
      node.attributes.push_back(std::move(attribute).value());
    }
    const std::string description = "node '" + node.name + "' (" + node.op_type + ")";
    const Result<NodeId> added = graph.AddNode(std::move(node));
    if (!added.ok()) return added.status().WithContext(description);
  }
  for (const onnx::ValueInfoProto& output : proto.output()) {
    const ValueId id = graph.FindValue(output.name());
    if (id == kNoValue) {
      return Status::InvalidArgument("graph output '" + output.name() +
                                     "' is not produced by any node, initializer or input");
    }
    EDGEMOND_RETURN_IF_ERROR(SetDeclared(graph, output));
    graph.AddOutput(output.name(), id);
  }
  for (const onnx::ValueInfoProto& info : proto.value_info()) {
    EDGEMOND_RETURN_IF_ERROR(SetDeclared(graph, info));
  }
  if (graph.outputs().empty()) return Status::InvalidArgument("the graph has no outputs");
  return graph;
}

Result<onnx::ModelProto> ParseModel(std::string_view bytes) {
  if (static_cast<std::int64_t>(bytes.size()) > kMaxModelFileBytes) {
    return Status::ResourceExhausted("the model is larger than protobuf can parse");
  }
  onnx::ModelProto model;
  if (!model.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return Status::Corruption(kDoesNotParse);
  }
  return model;
}

Result<Graph> ImportParsed(onnx::ModelProto& model, std::int64_t file_bytes,
                           const std::string& model_dir, OnnxModelInfo* info) {
  if (!model.has_graph()) {
    return Status::Corruption("not an ONNX model: it has no graph");
  }
  if (model.ir_version() < 3) {
    return Status::Unsupported("IR version " + std::to_string(model.ir_version()) +
                               " is not supported (3 or later is)");
  }
  std::map<std::string, int> opsets;
  for (const onnx::OperatorSetIdProto& opset : model.opset_import()) {
    const std::string domain = NormalizeDomain(opset.domain());
    if (opset.version() < 1 || opset.version() > INT32_MAX) {
      return Status::InvalidArgument("opset import for domain '" + domain + "' has version " +
                                     std::to_string(opset.version()));
    }
    if (!opsets.emplace(domain, static_cast<int>(opset.version())).second) {
      return Status::InvalidArgument("domain '" + domain + "' is imported twice");
    }
  }
  const auto default_opset = opsets.find("");
  if (default_opset != opsets.end() && default_opset->second > kNewestOpset) {
    return Status::Unsupported("the model imports ai.onnx opset " +
                               std::to_string(default_opset->second) +
                               "; this engine knows opsets up to " + std::to_string(kNewestOpset));
  }

  EDGEMOND_RETURN_IF_ERROR(CheckStoredTensors(model.graph()));
  EDGEMOND_RETURN_IF_ERROR(CheckDivisorAttributes(model.graph()));
  // libonnx's checker only warns on stderr about experimental operators; refuse them here.
  for (const onnx::NodeProto& node : model.graph().node()) {
    if (NormalizeDomain(node.domain()).empty() &&
        onnx::checker::check_is_experimental_op(node.op_type())) {
      return Status::Unsupported("node '" + node.name() + "' (" + node.op_type() +
                                 "): experimental operators are not supported");
    }
  }
  // External data is read (through the engine's own path checks) before libonnx's checker
  // runs, which would otherwise look for the files relative to the working directory.
  EDGEMOND_ASSIGN_OR_RETURN(ExternalDataDir external, ExternalDataDir::Open(model_dir));
  for (onnx::TensorProto& tensor : *model.mutable_graph()->mutable_initializer()) {
    const Status inlined = InlineExternalData(tensor, external);
    if (!inlined.ok()) return inlined.WithContext("initializer");
  }
  for (onnx::NodeProto& node : *model.mutable_graph()->mutable_node()) {
    for (onnx::AttributeProto& attribute : *node.mutable_attribute()) {
      if (attribute.has_t())
        EDGEMOND_RETURN_IF_ERROR(InlineExternalData(*attribute.mutable_t(), external));
    }
  }
  const bool full = LibraryKnowsModel(model);
  EDGEMOND_RETURN_IF_ERROR(CheckWithLibrary(model, full));

  EDGEMOND_ASSIGN_OR_RETURN(Graph graph, BuildGraph(model, opsets, external));
  if (info != nullptr) {
    info->ir_version = model.ir_version();
    info->opsets = opsets;
    info->producer = model.producer_name();
    if (!model.producer_version().empty()) info->producer += " " + model.producer_version();
    info->file_bytes = file_bytes;
    info->external_data_bytes = external.bytes_read();
    info->fully_checked = full;
  }
  return graph;
}

// Imports, builds, then (for models libonnx knows) cross-checks with its shape inference.
Result<std::shared_ptr<const Model>> BuildParsed(onnx::ModelProto& proto, std::int64_t file_bytes,
                                                 const std::string& model_dir,
                                                 const ModelOptions& options, OnnxModelInfo* info) {
  OnnxModelInfo local;
  OnnxModelInfo& out = info != nullptr ? *info : local;
  EDGEMOND_ASSIGN_OR_RETURN(Graph graph, ImportParsed(proto, file_bytes, model_dir, &out));
  EDGEMOND_ASSIGN_OR_RETURN(std::shared_ptr<const Model> model,
                            Model::Build(std::move(graph), options));
  if (out.fully_checked) {
    StripWeightsForInference(proto);
    EDGEMOND_RETURN_IF_ERROR(CrossCheckShapes(proto, model->graph(), options.input_shapes));
  }
  return model;
}

}  // namespace

Result<Graph> ImportOnnx(std::string_view bytes, const std::string& model_dir,
                         OnnxModelInfo* info) {
  EDGEMOND_ASSIGN_OR_RETURN(onnx::ModelProto model, ParseModel(bytes));
  return ImportParsed(model, static_cast<std::int64_t>(bytes.size()), model_dir, info);
}

Result<std::shared_ptr<const Model>> LoadOnnxModelFromBytes(std::string_view bytes,
                                                            const std::string& model_dir,
                                                            const ModelOptions& options,
                                                            OnnxModelInfo* info) {
  EDGEMOND_ASSIGN_OR_RETURN(onnx::ModelProto model, ParseModel(bytes));
  return BuildParsed(model, static_cast<std::int64_t>(bytes.size()), model_dir, options, info);
}

Result<std::shared_ptr<const Model>> LoadOnnxModel(const std::string& path,
                                                   const ModelOptions& options,
                                                   OnnxModelInfo* info) {
  std::string dir = std::filesystem::path(path).parent_path().string();
  if (dir.empty()) dir = ".";
  std::int64_t file_bytes = 0;
  onnx::ModelProto proto;
  {
    EDGEMOND_ASSIGN_OR_RETURN(const UniqueFd fd,
                              OpenRegularFile(path, kMaxModelFileBytes, &file_bytes));
    int read_errno = 0;
    if (!ParseFromFile(fd.get(), proto, &read_errno)) {
      if (read_errno != 0) return Status::FromErrno(read_errno, path);
      return Status::Corruption(kDoesNotParse).WithContext(path);
    }
  }
  Result<std::shared_ptr<const Model>> model = BuildParsed(proto, file_bytes, dir, options, info);
  if (!model.ok()) return model.status().WithContext(path);
  return model;
}

Result<Tensor> ReadOnnxTensorFile(const std::string& path, std::string* name) {
  std::int64_t file_bytes = 0;
  EDGEMOND_ASSIGN_OR_RETURN(const UniqueFd fd,
                            OpenRegularFile(path, kMaxModelFileBytes, &file_bytes));
  onnx::TensorProto proto;
  int read_errno = 0;
  if (!ParseFromFile(fd.get(), proto, &read_errno)) {
    if (read_errno != 0) return Status::FromErrno(read_errno, path);
    return Status::Corruption(path + ": not a serialized onnx.TensorProto");
  }
  if (name != nullptr) *name = proto.name();
  Result<Tensor> tensor = TensorFromProto(proto, /*external=*/nullptr);
  if (!tensor.ok()) return tensor.status().WithContext(path);
  return tensor;
}

}  // namespace edgemond::engine
