#include "engine/onnx/onnx_loader.h"

#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

#include "engine/session.h"
#include "engine/testing/op_tester.h"
#include "tests/testing/temp_dir.h"

namespace edgemond::engine {
namespace {

using edgemond::testing::TempDir;

void AddTensorValue(onnx::ValueInfoProto* value, const std::string& name,
                    const std::vector<std::int64_t>& dims, const std::string& symbol = "") {
  value->set_name(name);
  auto* tensor = value->mutable_type()->mutable_tensor_type();
  tensor->set_elem_type(onnx::TensorProto::FLOAT);
  auto* shape = tensor->mutable_shape();
  shape->clear_dim();
  for (const std::int64_t d : dims) {
    if (d < 0) {
      shape->add_dim()->set_dim_param(symbol);
    } else {
      shape->add_dim()->set_dim_value(d);
    }
  }
}

// y = Relu(x + w): x [1, 4] is an input, w [4] an initializer.
onnx::ModelProto MakeModel(int opset = 13) {
  onnx::ModelProto model;
  model.set_ir_version(7);
  model.set_producer_name("edgemond-test");
  auto* import = model.add_opset_import();
  import->set_domain("");
  import->set_version(opset);
  onnx::GraphProto* graph = model.mutable_graph();
  graph->set_name("g");
  AddTensorValue(graph->add_input(), "x", {1, 4});
  AddTensorValue(graph->add_output(), "y", {1, 4});
  onnx::TensorProto* w = graph->add_initializer();
  w->set_name("w");
  w->set_data_type(onnx::TensorProto::FLOAT);
  w->add_dims(4);
  for (const float v : {1.0f, -2.0f, 3.0f, -4.0f}) w->add_float_data(v);
  onnx::NodeProto* add = graph->add_node();
  add->set_name("add");
  add->set_op_type("Add");
  add->add_input("x");
  add->add_input("w");
  add->add_output("sum");
  onnx::NodeProto* relu = graph->add_node();
  relu->set_name("relu");
  relu->set_op_type("Relu");
  relu->add_input("sum");
  relu->add_output("y");
  return model;
}

std::string Write(const TempDir& dir, const std::string& name, const std::string& bytes) {
  const std::string path = dir.Join(name);
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

std::string Write(const TempDir& dir, const onnx::ModelProto& model) {
  return Write(dir, "model.onnx", model.SerializeAsString());
}

Result<std::vector<Tensor>> RunOnce(const std::shared_ptr<const Model>& model) {
  EDGEMOND_ASSIGN_OR_RETURN(std::unique_ptr<Session> session, Session::Create(model));
  const Tensor x = testing::FloatTensor(Shape({1, 4}), {1, 1, 1, 1});
  return session->Run({{"x", x.view()}});
}

TEST(OnnxLoaderTest, LoadsAndRunsAModel) {
  TempDir dir;
  OnnxModelInfo info;
  Result<std::shared_ptr<const Model>> model =
      LoadOnnxModel(Write(dir, MakeModel()), ModelOptions{}, &info);
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_TRUE(info.fully_checked);
  EXPECT_EQ(info.ir_version, 7);
  EXPECT_EQ(info.opsets.at(""), 13);
  EXPECT_EQ(info.producer, "edgemond-test");
  EXPECT_EQ((*model)->stats().parameters, 4);
  Result<std::vector<Tensor>> y = RunOnce(*model);
  ASSERT_TRUE(y.ok()) << y.status();
  const std::span<const float> v = (*y)[0].values<float>();
  EXPECT_EQ(std::vector<float>(v.begin(), v.end()), (std::vector<float>{2, 0, 4, 0}));
}

TEST(OnnxLoaderTest, RefusesFilesThatAreNotOnnx) {
  TempDir dir;
  for (const std::string& bytes :
       {std::string(), std::string("hello, world\n"), std::string("\x89PNG\r\n\x1a\n\0\0\0", 12),
        std::string(100, '\xff')}) {
    const Status status = LoadOnnxModel(Write(dir, "bad.onnx", bytes), ModelOptions{}).status();
    EXPECT_EQ(status.code(), StatusCode::kCorruption) << status;
    EXPECT_NE(status.message().find("not an ONNX model"), std::string_view::npos) << status;
  }
  EXPECT_TRUE(LoadOnnxModel(dir.Join("missing.onnx"), ModelOptions{}).status().IsNotFound());
  EXPECT_EQ(LoadOnnxModel(dir.path(), ModelOptions{}).status().code(),
            StatusCode::kInvalidArgument);
}

// Every prefix of a valid file, and every single-byte corruption of it, is an error or a
// model; never a crash (the sanitizer build runs this too).
TEST(OnnxLoaderTest, SurvivesTruncationAndCorruption) {
  TempDir dir;
  const std::string bytes = MakeModel().SerializeAsString();
  int errors = 0;
  for (std::size_t length = 0; length < bytes.size(); ++length) {
    if (!LoadOnnxModel(Write(dir, "t.onnx", bytes.substr(0, length)), ModelOptions{}).ok()) {
      ++errors;
    }
  }
  EXPECT_GT(errors, static_cast<int>(bytes.size()) / 2);
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    std::string corrupt = bytes;
    corrupt[i] = static_cast<char>(corrupt[i] ^ 0x5a);
    const Result<std::shared_ptr<const Model>> model =
        LoadOnnxModel(Write(dir, "c.onnx", corrupt), ModelOptions{});
    if (model.ok()) (void)RunOnce(*model);  // Whatever loads must also run safely.
  }
}

TEST(OnnxLoaderTest, RefusesCyclicGraphs) {
  onnx::ModelProto model = MakeModel();
  // add reads relu's output: add -> relu -> add.
  model.mutable_graph()->mutable_node(0)->set_input(1, "y");
  TempDir dir;
  const Status status = LoadOnnxModel(Write(dir, model), ModelOptions{}).status();
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find("topologically sorted"), std::string_view::npos) << status;
}

TEST(OnnxLoaderTest, RefusesMissingInitializers) {
  onnx::ModelProto model = MakeModel();
  model.mutable_graph()->clear_initializer();
  TempDir dir;
  const Status status = LoadOnnxModel(Write(dir, model), ModelOptions{}).status();
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find("'w'"), std::string_view::npos) << status;
}

TEST(OnnxLoaderTest, RefusesAbsurdDimensions) {
  TempDir dir;
  onnx::ModelProto huge_input = MakeModel();
  const std::vector<std::int64_t> huge = {std::int64_t{1} << 40, std::int64_t{1} << 40, 4};
  AddTensorValue(huge_input.mutable_graph()->mutable_input(0), "x", huge);
  AddTensorValue(huge_input.mutable_graph()->mutable_output(0), "y", huge);
  const Status input = LoadOnnxModel(Write(dir, huge_input), ModelOptions{}).status();
  EXPECT_EQ(input.code(), StatusCode::kResourceExhausted) << input;

  onnx::ModelProto huge_weight = MakeModel();
  onnx::TensorProto* w = huge_weight.mutable_graph()->mutable_initializer(0);
  w->clear_dims();
  w->add_dims(std::int64_t{1} << 62);
  w->add_dims(16);
  const Status status = LoadOnnxModel(Write(dir, huge_weight), ModelOptions{}).status();
  EXPECT_EQ(status.code(), StatusCode::kResourceExhausted) << status;

  // 16 GB declared, 16 bytes stored: refused before anything that large is allocated, for
  // models libonnx knows and for newer ones alike.
  for (const int opset : {13, 21}) {
    onnx::ModelProto hollow = MakeModel(opset);
    hollow.mutable_graph()->mutable_initializer(0)->set_dims(0, 4'000'000'000);
    const Status hollow_status = LoadOnnxModel(Write(dir, hollow), ModelOptions{}).status();
    EXPECT_EQ(hollow_status.code(), StatusCode::kCorruption) << hollow_status;
  }
}

// libonnx's shape inference divides by strides unchecked; a zero must be refused first.
TEST(OnnxLoaderTest, RefusesZeroStridesBeforeShapeInference) {
  onnx::ModelProto model = MakeModel();
  onnx::GraphProto* graph = model.mutable_graph();
  AddTensorValue(graph->mutable_input(0), "x", {1, 1, 4, 4});
  AddTensorValue(graph->mutable_output(0), "y", {1, 1, 2, 2});
  graph->clear_node();
  onnx::NodeProto* pool = graph->add_node();
  pool->set_name("pool");
  pool->set_op_type("MaxPool");
  pool->add_input("x");
  pool->add_output("y");
  onnx::AttributeProto* kernel = pool->add_attribute();
  kernel->set_name("kernel_shape");
  kernel->set_type(onnx::AttributeProto::INTS);
  kernel->add_ints(2);
  kernel->add_ints(2);
  onnx::AttributeProto* strides = pool->add_attribute();
  strides->set_name("strides");
  strides->set_type(onnx::AttributeProto::INTS);
  strides->add_ints(2);
  strides->add_ints(0);
  TempDir dir;
  const Status status = LoadOnnxModel(Write(dir, model), ModelOptions{}).status();
  EXPECT_EQ(status.message().substr(status.message().find("node")),
            "node 'pool' (MaxPool): attribute 'strides' must be positive");
}

// A weight of the wrong rank crashes libonnx 1.12's Conv shape inference; the kernel must
// refuse it before that runs.
TEST(OnnxLoaderTest, RefusesMalformedConvBeforeShapeInference) {
  onnx::ModelProto model = MakeModel();
  onnx::GraphProto* graph = model.mutable_graph();
  AddTensorValue(graph->mutable_input(0), "x", {1, 3, 8, 8});
  AddTensorValue(graph->mutable_output(0), "y", {1, 4, 6, 6});
  onnx::TensorProto* w = graph->mutable_initializer(0);
  w->clear_dims();
  w->clear_float_data();
  for (const std::int64_t d : {4, 3, 1, 3, 3}) w->add_dims(d);
  for (int i = 0; i < 4 * 3 * 9; ++i) w->add_float_data(0.5f);
  graph->clear_node();
  onnx::NodeProto* conv = graph->add_node();
  conv->set_name("conv");
  conv->set_op_type("Conv");
  conv->add_input("x");
  conv->add_input("w");
  conv->add_output("y");
  TempDir dir;
  const Status status = LoadOnnxModel(Write(dir, model), ModelOptions{}).status();
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument) << status;
  EXPECT_NE(status.message().find("node 'conv' (Conv, opset 13): W has shape 4x3x1x3x3"),
            std::string_view::npos)
      << status;
}

TEST(OnnxLoaderTest, BindsSymbolicInputsAndRefusesWrongShapes) {
  onnx::ModelProto model = MakeModel();
  AddTensorValue(model.mutable_graph()->mutable_input(0), "x", {-1, 4}, "batch");
  AddTensorValue(model.mutable_graph()->mutable_output(0), "y", {-1, 4}, "batch");
  TempDir dir;
  const std::string path = Write(dir, model);
  const Status unbound = LoadOnnxModel(path, ModelOptions{}).status();
  EXPECT_NE(unbound.message().find("unresolved dimension 0 ('batch')"), std::string_view::npos)
      << unbound;
  ModelOptions options;
  options.input_shapes["x"] = {3, 4};
  Result<std::shared_ptr<const Model>> bound = LoadOnnxModel(path, options);
  ASSERT_TRUE(bound.ok()) << bound.status();
  EXPECT_EQ((*bound)->outputs()[0].info.shape, Shape({3, 4}));
  options.input_shapes["x"] = {3, 5};
  EXPECT_EQ(LoadOnnxModel(path, options).status().code(), StatusCode::kInvalidArgument);
}

TEST(OnnxLoaderTest, NamesUnsupportedOpsAndAttributes) {
  TempDir dir;
  onnx::ModelProto unknown_op = MakeModel();
  unknown_op.mutable_graph()->mutable_node(1)->set_op_type("LpNormalization");
  const Status op = LoadOnnxModel(Write(dir, unknown_op), ModelOptions{}).status();
  EXPECT_TRUE(op.IsUnsupported());
  EXPECT_NE(op.message().find("node 'relu' (LpNormalization, opset 13): no kernel for operator "
                              "'LpNormalization'"),
            std::string_view::npos)
      << op;

  onnx::ModelProto custom_domain = MakeModel();
  custom_domain.mutable_graph()->mutable_node(1)->set_domain("com.example");
  auto* import = custom_domain.add_opset_import();
  import->set_domain("com.example");
  import->set_version(1);
  const Status domain = LoadOnnxModel(Write(dir, custom_domain), ModelOptions{}).status();
  EXPECT_TRUE(domain.IsUnsupported()) << domain;
  EXPECT_NE(domain.message().find("'com.example.Relu'"), std::string_view::npos) << domain;
}

TEST(OnnxLoaderTest, ModelsNewerThanTheOnnxLibraryAreCheckedByTheKernels) {
  TempDir dir;
  onnx::ModelProto model = MakeModel(/*opset=*/21);
  model.set_ir_version(10);
  OnnxModelInfo info;
  Result<std::shared_ptr<const Model>> loaded = LoadOnnxModel(Write(dir, model), {}, &info);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_FALSE(info.fully_checked);

  // An attribute Relu never had is still refused, by the kernel.
  onnx::AttributeProto* attribute = model.mutable_graph()->mutable_node(1)->add_attribute();
  attribute->set_name("alpha");
  attribute->set_type(onnx::AttributeProto::FLOAT);
  attribute->set_f(0.1f);
  EXPECT_TRUE(LoadOnnxModel(Write(dir, model), {}).status().IsUnsupported());

  const Status too_new =
      LoadOnnxModel(Write(dir, MakeModel(/*opset=*/kNewestOpset + 1)), {}).status();
  EXPECT_TRUE(too_new.IsUnsupported());
  onnx::ModelProto too_old = MakeModel();
  too_old.set_ir_version(2);
  EXPECT_TRUE(LoadOnnxModel(Write(dir, too_old), {}).status().IsUnsupported());
}

// Moves initializer w into `location` (a path written relative to the model).
onnx::ModelProto WithExternalWeights(const std::string& location, std::int64_t offset = 0,
                                     std::int64_t length = 16) {
  onnx::ModelProto model = MakeModel();
  onnx::TensorProto* w = model.mutable_graph()->mutable_initializer(0);
  w->clear_float_data();
  w->set_data_location(onnx::TensorProto::EXTERNAL);
  auto add = [w](const std::string& key, const std::string& value) {
    auto* entry = w->add_external_data();
    entry->set_key(key);
    entry->set_value(value);
  };
  add("location", location);
  add("offset", std::to_string(offset));
  add("length", std::to_string(length));
  return model;
}

std::string WeightBytes() {
  const float values[] = {1.0f, -2.0f, 3.0f, -4.0f};
  return std::string(reinterpret_cast<const char*>(values), sizeof(values));
}

TEST(OnnxLoaderTest, ReadsExternalData) {
  TempDir dir;
  ASSERT_EQ(::mkdir(dir.Join("data").c_str(), 0755), 0);
  Write(dir, "data/weights.bin", "pad!" + WeightBytes());
  OnnxModelInfo info;
  Result<std::shared_ptr<const Model>> model =
      LoadOnnxModel(Write(dir, WithExternalWeights("data/weights.bin", 4)), {}, &info);
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_EQ(info.external_data_bytes, 16);
  Result<std::vector<Tensor>> y = RunOnce(*model);
  ASSERT_TRUE(y.ok());
  EXPECT_EQ((*y)[0].values<float>()[2], 4.0f);
}

TEST(OnnxLoaderTest, RefusesExternalDataOutsideTheModelDirectory) {
  TempDir outside;
  Write(outside, "secret.bin", WeightBytes());
  TempDir dir;
  ASSERT_EQ(::symlink(outside.Join("secret.bin").c_str(), dir.Join("link.bin").c_str()), 0);
  for (const std::string& location : {std::string("../secret.bin"), outside.Join("secret.bin"),
                                      std::string("link.bin"), std::string("a/../../secret.bin")}) {
    const Status status = LoadOnnxModel(Write(dir, WithExternalWeights(location)), {}).status();
    EXPECT_EQ(status.code(), StatusCode::kPermissionDenied) << location << ": " << status;
  }
}

TEST(OnnxLoaderTest, RefusesInconsistentExternalData) {
  TempDir dir;
  Write(dir, "short.bin", WeightBytes().substr(0, 12));
  Write(dir, "weights.bin", WeightBytes());
  EXPECT_EQ(LoadOnnxModel(Write(dir, WithExternalWeights("short.bin")), {}).status().code(),
            StatusCode::kCorruption);
  EXPECT_EQ(
      LoadOnnxModel(Write(dir, WithExternalWeights("weights.bin", 0, 12)), {}).status().code(),
      StatusCode::kCorruption);
  EXPECT_EQ(LoadOnnxModel(Write(dir, WithExternalWeights("weights.bin", 8)), {}).status().code(),
            StatusCode::kCorruption);
  EXPECT_FALSE(LoadOnnxModel(Write(dir, WithExternalWeights("missing.bin")), {}).ok());
}

TEST(OnnxLoaderTest, ReadsTensorFiles) {
  TempDir dir;
  onnx::TensorProto proto;
  proto.set_name("input");
  proto.set_data_type(onnx::TensorProto::INT64);
  proto.add_dims(3);
  for (const std::int64_t v : {5, 6, 7}) proto.add_int64_data(v);
  std::string name;
  Result<Tensor> tensor = ReadOnnxTensorFile(Write(dir, "t.pb", proto.SerializeAsString()), &name);
  ASSERT_TRUE(tensor.ok()) << tensor.status();
  EXPECT_EQ(name, "input");
  EXPECT_EQ(tensor->values<std::int64_t>()[2], 7);
  proto.add_int64_data(8);  // Four values for three elements.
  EXPECT_EQ(ReadOnnxTensorFile(Write(dir, "t.pb", proto.SerializeAsString())).status().code(),
            StatusCode::kCorruption);
}

}  // namespace
}  // namespace edgemond::engine
