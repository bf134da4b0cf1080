// The host table over the IR, called the way a plugin calls it: reading graphs in topological order, values,
// shapes and constants; attributes; mutations, and their roll-back through the journal; node_compute through the
// built-in kernels and through a plugin kernel (the hello plugin's hello.Double); a plugin schema's shape
// inference inside ONNX's; subgraph inlining; and statuses.
#include <gtest/gtest.h>

#include <onnx/shape_inference/implementation.h>

#include <cstring>
#include <vector>

#include "compile/compiler.h"
#include "ir/model.h"
#include "onnx/onnx_export.h"
#include "plugin/host_api.h"
#include "support/golden.h"

namespace kiln {
namespace {

using testing::ParseModel;
using testing::PrintGraph;

std::string M(const std::string& body, const std::string& extra_opsets = "") {
  return R"(<ir_version: 8, opset_import: ["" : 17)" + extra_opsets + "]>\n" + body;
}

const char* kChain = R"(g (float[batch,3] x) => (float[batch,3] y) {
  c = Constant <value = float[3] {1.0, 2.0, 3.0}> ()
  a = Add (x, c)
  i = Identity (a)
  y = Relu (i)
})";

// s = c1 + c2 can be computed; y = s + x cannot (x is an input).
const char* kConstantAdd = R"(g (int64[2] x) => (int64[2] y) {
  c1 = Constant <value = int64[2] {1, 2}> ()
  c2 = Constant <value = int64[2] {10, 20}> ()
  s = Add (c1, c2)
  y = Add (s, x)
})";

class HostApi : public ::testing::Test {
 protected:
  KilnNode* NodeOf(Model& m, const std::string& op) {
    for (const auto& n : m.graph().nodes())
      if (n->op_type() == op) return plugin::ToKiln(n.get());
    ADD_FAILURE() << "no " << op;
    return nullptr;
  }
  KilnValue* ValueOf(Model& m, const std::string& name) { return plugin::ToKiln(m.graph().LookupValue(name)); }
  std::string Str(const char* s) { return s ? s : "(null)"; }
  // Takes a status: "" for success, else "CODE: message".
  std::string Take(KilnStatus* s) {
    if (!s) return "";
    std::string text = std::string(plugin::StatusCodeName(api.status_code(s))) + ": " + api.status_message(s);
    api.status_release(s);
    return text;
  }

  const KilnHostApi& api = plugin::HostApi();
  Compiler compiler;
  plugin::CallFrame frame{&compiler.plugins().services()};
};

TEST_F(HostApi, ReadsGraphsInTopologicalOrder) {
  auto m = ParseModel(M(kChain));
  ASSERT_TRUE(m);
  KilnGraph* g = plugin::ToKiln(&m->graph());
  ASSERT_EQ(api.graph_nodes(g, nullptr, 0), 4u);
  std::vector<KilnNode*> nodes(4);
  ASSERT_EQ(api.graph_nodes(g, nodes.data(), 2), 4u);  // a short array gets the first ones
  ASSERT_EQ(api.graph_nodes(g, nodes.data(), nodes.size()), 4u);
  std::vector<std::string> ops;
  for (KilnNode* n : nodes) ops.push_back(api.node_op_type(n));
  EXPECT_EQ(ops, (std::vector<std::string>{"Constant", "Add", "Identity", "Relu"}));
  EXPECT_EQ(api.graph_opset_version(g, ""), 17);
  EXPECT_EQ(api.graph_opset_version(g, "hello"), 0);
  EXPECT_EQ(api.graph_input_count(g), 1u);
  EXPECT_EQ(api.graph_parent_node(g), nullptr);

  KilnValue* x = api.graph_input(g, 0);
  EXPECT_EQ(Str(api.value_name(x)), "x");
  EXPECT_EQ(api.value_type_kind(x), KILN_TYPE_KIND_TENSOR);
  EXPECT_EQ(api.value_elem_type(x), KILN_ELEM_FLOAT);
  const int64_t* dims = nullptr;
  ASSERT_EQ(api.value_shape(x, &dims), 2);
  EXPECT_EQ(dims[0], -1);
  EXPECT_EQ(dims[1], 3);
  EXPECT_EQ(Str(api.value_dim_symbol(x, 0)), "batch");
  EXPECT_EQ(api.value_dim_symbol(x, 1), nullptr);
  EXPECT_EQ(api.value_is_graph_input(x), 1);
  EXPECT_EQ(api.value_is_constant(x), 0);
  EXPECT_EQ(api.value_graph(x), g);

  KilnNode* add = NodeOf(*m, "Add");
  KilnValue* c = api.node_input(add, 1);
  EXPECT_EQ(api.value_is_constant(c), 1);
  const KilnTensorView* data = api.value_constant_data(c);
  ASSERT_NE(data, nullptr);
  EXPECT_EQ(data->elem_type, KILN_ELEM_FLOAT);
  ASSERT_EQ(data->byte_size, 12u);
  EXPECT_EQ(static_cast<const float*>(data->data)[2], 3.0f);
  KilnValue* a = api.node_output(add, 0);
  size_t index = 99;
  EXPECT_EQ(api.value_producer(a, &index), add);
  EXPECT_EQ(index, 0u);
  ASSERT_EQ(api.value_consumer_count(a), 1u);
  EXPECT_EQ(Str(api.node_op_type(api.value_consumer(a, 0, &index))), "Identity");
  EXPECT_EQ(api.graph_find_value(g, "i"), ValueOf(*m, "i"));
  EXPECT_EQ(api.value_is_graph_output(ValueOf(*m, "y")), 1);
  EXPECT_EQ(api.node_input(add, 7), nullptr);  // out of range reads as nothing
}

TEST_F(HostApi, ReadsAndWritesAttributes) {
  auto m = ParseModel(M(R"(g (float[2,3] x) => (float[3,2] y) { y = Transpose <perm = [1, 0]> (x) })"));
  ASSERT_TRUE(m);
  KilnNode* t = NodeOf(*m, "Transpose");
  const KilnAttribute* perm = api.node_attribute(t, "perm");
  ASSERT_NE(perm, nullptr);
  EXPECT_EQ(api.attr_type(perm), KILN_ATTR_INTS);
  const int64_t* ints = nullptr;
  ASSERT_EQ(api.attr_ints(perm, &ints), 2u);
  EXPECT_EQ(ints[0], 1);
  EXPECT_EQ(api.attr_int(perm), 0);  // the wrong getter reads as 0
  EXPECT_EQ(api.attr_string(perm, nullptr), nullptr);

  EXPECT_EQ(Take(api.node_set_attr_int(t, "i", 7)), "");
  EXPECT_EQ(Take(api.node_set_attr_float(t, "f", 0.5f)), "");
  EXPECT_EQ(Take(api.node_set_attr_string(t, "s", "a\0b", 3)), "");
  const float floats[] = {1.5f, 2.5f};
  EXPECT_EQ(Take(api.node_set_attr_floats(t, "fs", floats, 2)), "");
  const KilnString strings[] = {{"x", 1}, {"yz", 2}};
  EXPECT_EQ(Take(api.node_set_attr_strings(t, "ss", strings, 2)), "");
  const int64_t dims[] = {2};
  int32_t values[] = {4, 5};
  KilnTensorView view{sizeof(KilnTensorView), KILN_ELEM_INT32, 1, dims, values, sizeof values};
  EXPECT_EQ(Take(api.node_set_attr_tensor(t, "t", &view)), "");
  EXPECT_EQ(api.attr_int(api.node_attribute(t, "i")), 7);
  EXPECT_EQ(api.attr_float(api.node_attribute(t, "f")), 0.5f);
  size_t size = 0;
  const char* s = api.attr_string(api.node_attribute(t, "s"), &size);
  EXPECT_EQ(std::string(s, size), std::string("a\0b", 3));
  const KilnString* read = nullptr;
  ASSERT_EQ(api.attr_strings(api.node_attribute(t, "ss"), &read), 2u);
  EXPECT_EQ(std::string(read[1].data, read[1].size), "yz");
  const KilnTensorView* tv = api.attr_tensor(api.node_attribute(t, "t"));
  ASSERT_NE(tv, nullptr);
  EXPECT_EQ(static_cast<const int32_t*>(tv->data)[1], 5);
  EXPECT_EQ(api.node_attribute_count(t), 7u);
  EXPECT_EQ(Take(api.node_remove_attr(t, "i")), "");
  EXPECT_EQ(Take(api.node_remove_attr(t, "i")), "");  // removing an absent attribute succeeds
  EXPECT_EQ(api.node_attribute(t, "i"), nullptr);
  view.byte_size = 3;  // not what the dims call for
  EXPECT_EQ(Take(api.node_set_attr_tensor(t, "bad", &view)).rfind("INVALID_ARGUMENT", 0), 0u);
}

TEST_F(HostApi, MutationsRollBackThroughTheJournal) {
  auto m = ParseModel(M(kChain));
  ASSERT_TRUE(m);
  const std::string before = PrintGraph(*m);
  KilnGraph* g = plugin::ToKiln(&m->graph());
  m->journal().Begin();
  KilnValue* x = ValueOf(*m, "x");
  KilnNode* neg = nullptr;
  ASSERT_EQ(Take(api.graph_create_node(g, "Neg", "", nullptr, &x, 1, 1, &neg)), "");
  KilnValue* k = nullptr;
  KilnTensorView* kdata = nullptr;
  const int64_t dims[] = {3};
  ASSERT_EQ(Take(api.graph_create_constant(g, "k", KILN_ELEM_FLOAT, 1, dims, &k, &kdata)), "");
  static_cast<float*>(kdata->data)[0] = 9.0f;
  KilnNode* add = NodeOf(*m, "Add");
  EXPECT_EQ(Take(api.node_set_input(add, 1, k)), "");
  EXPECT_EQ(Take(api.value_replace_all_uses(ValueOf(*m, "a"), api.node_output(neg, 0))), "");
  const int64_t io[] = {0};
  EXPECT_EQ(Take(api.node_isolate_and_delete(NodeOf(*m, "Identity"), io, 1)), "");
  EXPECT_EQ(Take(api.value_set_tensor_type(ValueOf(*m, "a"), KILN_ELEM_FLOAT, 1, dims, nullptr)), "");
  frame.Finish();  // the unused Constant goes too
  EXPECT_NE(PrintGraph(*m), before);
  m->journal().Rollback();
  EXPECT_EQ(PrintGraph(*m), before);
}

TEST_F(HostApi, RefusedMutationsChangeNothing) {
  auto m = ParseModel(M(kChain));
  ASSERT_TRUE(m);
  const std::string before = PrintGraph(*m);
  std::string s = Take(api.node_delete(NodeOf(*m, "Add")));
  EXPECT_EQ(s.rfind("FAILED_PRECONDITION", 0), 0u) << s;
  EXPECT_NE(s.find("still used"), std::string::npos) << s;
  const int64_t no_input[] = {-1};
  s = Take(api.node_isolate_and_delete(NodeOf(*m, "Identity"), no_input, 1));
  EXPECT_EQ(s.rfind("FAILED_PRECONDITION", 0), 0u) << s;
  s = Take(api.node_set_input(NodeOf(*m, "Relu"), 5, nullptr));
  EXPECT_EQ(s.rfind("OUT_OF_RANGE", 0), 0u) << s;
  KilnGraph* g = plugin::ToKiln(&m->graph());
  KilnNode* out = nullptr;
  s = Take(api.graph_create_node(g, "", "", nullptr, nullptr, 0, 1, &out));
  EXPECT_EQ(s.rfind("INVALID_ARGUMENT", 0), 0u) << s;
  // The graph output y is declared: another graph input cannot take its place.
  s = Take(api.value_replace_all_uses(ValueOf(*m, "y"), ValueOf(*m, "x")));
  EXPECT_EQ(s.rfind("FAILED_PRECONDITION", 0), 0u) << s;
  EXPECT_EQ(PrintGraph(*m), before);
}

TEST_F(HostApi, DeletingANodeRemovesTheConstantsItLeftUnused) {
  auto m = ParseModel(M(R"(g (float[3] x) => (float[3] y) {
    c = Constant <value = float[3] {1.0, 2.0, 3.0}> ()
    unused = Add (x, c)
    y = Relu (x)
  })"));
  ASSERT_TRUE(m);
  KilnNode* add = NodeOf(*m, "Add");
  EXPECT_EQ(Take(api.node_delete(add)), "");
  EXPECT_EQ(api.node_is_deleted(add), 1);
  frame.Finish();
  EXPECT_EQ(m->graph().num_nodes(), 1u);  // Relu alone
}

TEST_F(HostApi, ComputesThroughTheBuiltinKernels) {
  auto m = ParseModel(M(kConstantAdd));
  ASSERT_TRUE(m);
  KilnNode* first = plugin::ToKiln(m->graph().LookupValue("s")->producer());
  KilnComputeResult* r = nullptr;
  ASSERT_EQ(Take(api.node_compute(first, nullptr, 0, KILN_COMPUTE_BUILTIN_ONLY, &r)), "");
  ASSERT_EQ(api.compute_result_output_count(r), 1u);
  const KilnTensorView* out = api.compute_result_output(r, 0);
  ASSERT_NE(out, nullptr);
  EXPECT_EQ(out->elem_type, KILN_ELEM_INT64);
  EXPECT_EQ(static_cast<const int64_t*>(out->data)[1], 22);
  api.compute_result_release(r);
  // Explicit input views instead of the node's constants.
  const int64_t dims[] = {2};
  int64_t a[] = {5, 6}, b[] = {1, 1};
  KilnTensorView va{sizeof(KilnTensorView), KILN_ELEM_INT64, 1, dims, a, sizeof a};
  KilnTensorView vb{sizeof(KilnTensorView), KILN_ELEM_INT64, 1, dims, b, sizeof b};
  const KilnTensorView* inputs[] = {&va, &vb};
  ASSERT_EQ(Take(api.node_compute(first, inputs, 2, 0, &r)), "");
  EXPECT_EQ(static_cast<const int64_t*>(api.compute_result_output(r, 0)->data)[0], 6);
  api.compute_result_release(r);
  KilnNode* second = plugin::ToKiln(m->graph().LookupValue("y")->producer());
  std::string s = Take(api.node_compute(second, nullptr, 0, 0, &r));
  EXPECT_EQ(s.rfind("FAILED_PRECONDITION", 0), 0u) << s;  // x is not a constant
}

// A view the host lent (a constant's data, a compute result) handed back as a compute input or a new constant
// shares the tensor's bytes, which outlive the result; a plugin's own view of the same bytes is copied.
TEST_F(HostApi, LentViewsAreSharedNotCopied) {
  auto m = ParseModel(M(kConstantAdd));
  ASSERT_TRUE(m);
  KilnGraph* g = plugin::ToKiln(&m->graph());
  KilnNode* add = plugin::ToKiln(m->graph().LookupValue("s")->producer());
  const KilnTensorView* c1 = api.value_constant_data(ValueOf(*m, "c1"));
  ASSERT_NE(c1, nullptr);
  KilnValue* shared = nullptr;
  ASSERT_EQ(Take(api.graph_create_constant_from_view(g, "shared", c1, &shared)), "");
  EXPECT_EQ(api.value_constant_data(shared)->data, c1->data);
  KilnTensorView own = *c1;  // the same bytes, but not a view the host lent
  KilnValue* copied = nullptr;
  ASSERT_EQ(Take(api.graph_create_constant_from_view(g, "copied", &own, &copied)), "");
  const KilnTensorView* cv = api.value_constant_data(copied);
  EXPECT_NE(cv->data, c1->data);
  EXPECT_EQ(std::memcmp(cv->data, c1->data, 16), 0);

  KilnComputeResult* r = nullptr;
  ASSERT_EQ(Take(api.node_compute(add, nullptr, 0, KILN_COMPUTE_BUILTIN_ONLY, &r)), "");
  const KilnTensorView* out = api.compute_result_output(r, 0);
  KilnValue* folded = nullptr;
  ASSERT_EQ(Take(api.graph_create_constant_from_view(g, "folded", out, &folded)), "");
  const KilnTensorView* fv = api.value_constant_data(folded);
  EXPECT_EQ(fv->data, out->data);
  EXPECT_EQ(static_cast<const int64_t*>(fv->data)[1], 22);
  api.compute_result_release(r);  // the folded constant keeps the bytes alive
  EXPECT_EQ(static_cast<const int64_t*>(fv->data)[1], 22);
  EXPECT_EQ(api.value_constant_data(folded)->data, fv->data);
}

// The host lends views in pieces of a growing number of slots (16, 32, 64, ...): views from many pieces, handed back,
// are each found and shared; a view's copy made by the plugin, lying elsewhere, is not.
TEST_F(HostApi, ViewsLentAcrossManyPiecesAreEachShared) {
  std::string body = "g (int64[2] x) => (int64[2] y) <";
  const int count = 300;
  for (int i = 0; i < count; ++i)
    body += std::string(i ? ", " : "") + "int64[2] c" + std::to_string(i) + " = {" + std::to_string(i) + ", 7}";
  body += "> {\n  y = Add (x, c0)\n}";
  auto m = ParseModel(M(body));
  ASSERT_TRUE(m);
  KilnGraph* g = plugin::ToKiln(&m->graph());
  std::vector<const KilnTensorView*> views;
  for (int i = 0; i < count; ++i) views.push_back(api.value_constant_data(ValueOf(*m, "c" + std::to_string(i))));
  for (int i = 0; i < count; ++i) {
    ASSERT_NE(views[i], nullptr);
    EXPECT_EQ(static_cast<const int64_t*>(views[i]->data)[0], i);
    KilnValue* shared = nullptr;
    ASSERT_EQ(Take(api.graph_create_constant_from_view(g, ("s" + std::to_string(i)).c_str(), views[i], &shared)), "");
    EXPECT_EQ(api.value_constant_data(shared)->data, views[i]->data) << i;
  }
  EXPECT_EQ(api.value_constant_data(ValueOf(*m, "c5")), views[5]);  // one view per weight and frame
  KilnTensorView own = *views[count - 1];
  KilnValue* copied = nullptr;
  ASSERT_EQ(Take(api.graph_create_constant_from_view(g, "copied", &own, &copied)), "");
  EXPECT_NE(api.value_constant_data(copied)->data, views[count - 1]->data);
}

TEST_F(HostApi, RunsAPluginKernelAndAPluginSchema) {
  compiler.LoadPlugins({std::string(KILN_TEST_PLUGIN_DIR) + "/libkiln_test_plugin_hello.so"});
  auto m = ParseModel(M(R"(g (float[3] x) => (float[3] y) {
    c = Constant <value = float[3] {1.0, 2.0, 3.0}> ()
    d = hello.Double (c)
    y = Add (x, d)
  })", R"(, "hello" : 1)"));
  ASSERT_TRUE(m);
  KilnNode* dbl = plugin::ToKiln(m->graph().LookupValue("d")->producer());
  KilnComputeResult* r = nullptr;
  ASSERT_EQ(Take(api.node_compute(dbl, nullptr, 0, KILN_COMPUTE_DETERMINISTIC_ONLY, &r)), "");
  const KilnTensorView* out = api.compute_result_output(r, 0);
  ASSERT_NE(out, nullptr);
  EXPECT_EQ(static_cast<const float*>(out->data)[2], 6.0f);
  api.compute_result_release(r);
  EXPECT_EQ(Take(api.node_compute(dbl, nullptr, 0, KILN_COMPUTE_BUILTIN_ONLY, &r)).rfind("UNSUPPORTED", 0), 0u);

  // ONNX's shape inference goes through the plugin's schema: d gets c's type and shape.
  onnx::ModelProto proto = ExportModelProto(*m);
  proto.mutable_graph()->clear_value_info();
  onnx::shape_inference::InferShapes(proto);
  bool found = false;
  for (const auto& vi : proto.graph().value_info()) {
    if (vi.name() != "d") continue;
    found = true;
    EXPECT_EQ(vi.type().tensor_type().elem_type(), KILN_ELEM_FLOAT);
    ASSERT_EQ(vi.type().tensor_type().shape().dim_size(), 1);
    EXPECT_EQ(vi.type().tensor_type().shape().dim(0).dim_value(), 3);
  }
  EXPECT_TRUE(found) << proto.graph().DebugString();
}

TEST_F(HostApi, FillsAStringConstant) {
  auto m = ParseModel(M(kChain));
  ASSERT_TRUE(m);
  KilnGraph* g = plugin::ToKiln(&m->graph());
  KilnValue* v = nullptr;
  KilnTensorView* data = nullptr;
  const int64_t dims[] = {2};
  ASSERT_EQ(Take(api.graph_create_constant(g, nullptr, KILN_ELEM_STRING, 1, dims, &v, &data)), "");
  EXPECT_EQ(Take(api.tensor_set_string(data, 0, "ab", 2)), "");
  EXPECT_EQ(Take(api.tensor_set_string(data, 1, "c", 1)), "");
  EXPECT_EQ(Take(api.tensor_set_string(data, 2, "d", 1)).rfind("OUT_OF_RANGE", 0), 0u);
  frame.Finish();
  const Value* value = plugin::FromKiln(v);
  ASSERT_TRUE(value->initializer());
  EXPECT_EQ(value->initializer()->strings(), (std::vector<std::string>{"ab", "c"}));
}

TEST_F(HostApi, ANewNodeOfACustomDomainImportsIt) {
  auto m = ParseModel(M(kChain));
  ASSERT_TRUE(m);
  m->journal().Begin();
  KilnValue* x = ValueOf(*m, "x");
  KilnNode* n = nullptr;
  ASSERT_EQ(Take(api.graph_create_node(plugin::ToKiln(&m->graph()), "Op", "kiln.test.custom", "mine", &x, 1, 2, &n)), "");
  EXPECT_EQ(Str(api.node_name(n)), "mine");
  EXPECT_EQ(api.node_output_count(n), 2u);
  EXPECT_EQ(m->OpsetVersion("kiln.test.custom"), 1);
  m->journal().Rollback();
  EXPECT_FALSE(m->OpsetVersion("kiln.test.custom"));
}

TEST_F(HostApi, InlinesAnIfBranch) {
  auto m = ParseModel(M(R"(g (bool c, float[2] x) => (float[2] y) {
    z = If (c) <then_branch = t () => (float[2] ty) { ty = Relu (x) }, else_branch = e () => (float[2] ey) { ey = Neg (x) }>
    y = Identity (z)
  })"));
  ASSERT_TRUE(m);
  KilnNode* if_node = NodeOf(*m, "If");
  ASSERT_EQ(api.node_subgraph_count(if_node), 2u);
  const char* attr = nullptr;
  KilnGraph* then_g = api.node_subgraph(if_node, 0, &attr);
  EXPECT_EQ(Str(attr), "then_branch");
  EXPECT_EQ(api.graph_parent_node(then_g), if_node);
  EXPECT_EQ(api.value_consumer_count(ValueOf(*m, "x")), 1u);  // read once, inside the If
  size_t slot = 0;
  api.value_consumer(ValueOf(*m, "x"), 0, &slot);
  EXPECT_EQ(slot, KILN_IMPLICIT_INPUT);
  ASSERT_EQ(Take(api.node_inline_subgraph(if_node, 0)), "");
  std::vector<std::string> ops;
  for (const auto& n : m->graph().nodes()) ops.push_back(n->op_type());
  EXPECT_EQ(ops, (std::vector<std::string>{"Identity", "Relu"}));
  EXPECT_EQ(m->graph().LookupValue("y")->producer()->input(0)->producer()->op_type(), "Relu");
}

// value_shape's dims stay valid until the plugin's call returns; equal dims asked for again in the same call share
// one array (a pass reading the dims of every value held one per call), and a value whose type changed gets its new
// dims while what was read before keeps its numbers.
TEST_F(HostApi, DimsReadInOneCallShareAnArrayAndOutliveTypeChanges) {
  auto m = ParseModel(M(R"(g (float[2,3] x, float[2,3] z) => (float[2,3] y) {
    a = Add (x, z)
    y = Relu (a)
  })"));
  ASSERT_TRUE(m);
  const int64_t *x_dims = nullptr, *z_dims = nullptr, *again = nullptr;
  ASSERT_EQ(api.value_shape(ValueOf(*m, "x"), &x_dims), 2);
  ASSERT_EQ(api.value_shape(ValueOf(*m, "z"), &z_dims), 2);
  ASSERT_EQ(api.value_shape(ValueOf(*m, "x"), &again), 2);
  EXPECT_EQ(x_dims, z_dims);
  EXPECT_EQ(x_dims, again);
  KilnValue* a = ValueOf(*m, "a");
  const int64_t dims[] = {5, 7, 9};
  ASSERT_EQ(Take(api.value_set_tensor_type(a, KILN_ELEM_FLOAT, 3, dims, nullptr)), "");
  const int64_t* a_dims = nullptr;
  ASSERT_EQ(api.value_shape(a, &a_dims), 3);
  EXPECT_EQ(std::vector<int64_t>(a_dims, a_dims + 3), (std::vector<int64_t>{5, 7, 9}));
  const int64_t longer[] = {5, 7, 9, 11};
  ASSERT_EQ(Take(api.value_set_tensor_type(a, KILN_ELEM_FLOAT, 4, longer, nullptr)), "");
  const int64_t* a_now = nullptr;
  ASSERT_EQ(api.value_shape(a, &a_now), 4);
  EXPECT_NE(a_now, a_dims);
  EXPECT_EQ(std::vector<int64_t>(a_now, a_now + 4), (std::vector<int64_t>{5, 7, 9, 11}));
  EXPECT_EQ(std::vector<int64_t>(a_dims, a_dims + 3), (std::vector<int64_t>{5, 7, 9}));  // still as read
  EXPECT_EQ(std::vector<int64_t>(x_dims, x_dims + 2), (std::vector<int64_t>{2, 3}));
  // A rank over what fits on the stack, and a scalar (no dims).
  std::vector<int64_t> many(40);
  for (size_t i = 0; i < many.size(); ++i) many[i] = static_cast<int64_t>(i % 3 + 1);
  ASSERT_EQ(Take(api.value_set_tensor_type(a, KILN_ELEM_FLOAT, 40, many.data(), nullptr)), "");
  const int64_t* a_many = nullptr;
  ASSERT_EQ(api.value_shape(a, &a_many), 40);
  EXPECT_EQ(std::vector<int64_t>(a_many, a_many + 40), many);
  ASSERT_EQ(Take(api.value_set_tensor_type(a, KILN_ELEM_FLOAT, 0, nullptr, nullptr)), "");
  const int64_t* scalar = x_dims;
  EXPECT_EQ(api.value_shape(a, &scalar), 0);
  EXPECT_EQ(scalar, nullptr);
}

TEST_F(HostApi, StatusesAndTypes) {
  KilnStatus* s = api.status_create(KILN_STATUS_NOT_FOUND, "gone");
  EXPECT_EQ(api.status_code(s), KILN_STATUS_NOT_FOUND);
  EXPECT_EQ(Str(api.status_message(s)), "gone");
  EXPECT_EQ(plugin::TakeStatusText(s), "gone [NOT_FOUND]");
  EXPECT_EQ(api.status_code(nullptr), KILN_STATUS_OK);
  EXPECT_EQ(Str(api.status_message(nullptr)), "");
  api.status_release(nullptr);

  auto m = ParseModel(M(kChain));
  ASSERT_TRUE(m);
  const int64_t dims[] = {-1, 4};
  const char* symbols[] = {"n", nullptr};
  KilnValue* a = ValueOf(*m, "a");
  EXPECT_EQ(Take(api.value_set_tensor_type(a, KILN_ELEM_DOUBLE, 2, dims, symbols)), "");
  const int64_t* read = nullptr;
  ASSERT_EQ(api.value_shape(a, &read), 2);
  EXPECT_EQ(read[1], 4);
  EXPECT_EQ(Str(api.value_dim_symbol(a, 0)), "n");
  EXPECT_EQ(api.value_elem_type(a), KILN_ELEM_DOUBLE);
  EXPECT_EQ(Take(api.value_set_tensor_type(a, KILN_ELEM_FLOAT, -1, nullptr, nullptr)), "");
  EXPECT_EQ(api.value_shape(a, nullptr), -1);
  const int64_t bad[] = {-7};
  EXPECT_EQ(Take(api.value_set_tensor_type(a, KILN_ELEM_FLOAT, 1, bad, nullptr)).rfind("INVALID_ARGUMENT", 0), 0u);
}

}  // namespace
}  // namespace kiln
