// Tests of the C++ wrapper (kiln_plugin.hpp) against a fake host: a KilnHostApi filled with just the slots these
// tests reach, over a toy graph. The test binary is itself a plugin (KILN_PLUGIN below) that the fake host loads
// the way the real loader will: entry, descriptor checks, register_plugin, callbacks, destroy_user_data.
//
// Like the real host, this file completes the ABI's opaque types (KilnStatus, KilnNode, ...) with its own structs.
#include <kiln/kiln_plugin.hpp>

#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <memory>
#include <new>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

// ---- the fake host's objects ----
struct KilnStatus {
  KilnStatusCode code;
  std::string message;
};
struct KilnAttribute {
  std::string name;
  int64_t value;
};
struct KilnNode {
  std::string op_type;
  std::vector<KilnAttribute> attrs;
  bool refuse_changes = false;  // node_set_attr_int fails, as a host refusing an edit would
};
struct KilnGraph {
  std::vector<KilnNode*> nodes;
};
struct KilnPassContext {
  std::map<std::string, int64_t> counters;
};
struct KilnValue {
  KilnTensorView aligned;  // what value_constant_data shows
  KilnTensorView stored;   // what value_constant_bytes shows
};
struct KilnKernelContext {
  KilnTensorView input;
  std::vector<float> output;
  std::vector<int64_t> output_dims;
  KilnTensorView output_view;
};
struct KilnShapeContext {};
struct KilnRegistrar {
  bool refuse = false;  // every register_* call fails
  std::vector<KilnPassInfo> passes;
  std::vector<std::vector<std::string>> pass_options;  // per pass: "name=default" (strings copied)
  std::vector<std::string> pass_names, switch_options;
  std::vector<KilnKernelInfo> kernels;  // strings and arrays in them are not valid after the call
  std::vector<std::vector<int32_t>> kernel_elem_types;
  std::vector<std::string> kernel_names, options, rules, targets, schemas;
};

namespace {

std::vector<std::string> g_log;

KilnStatus* StatusCreate(KilnStatusCode code, const char* message) { return new KilnStatus{code, message}; }
KilnStatusCode StatusCode(const KilnStatus* s) { return s ? s->code : KILN_STATUS_OK; }
const char* StatusMessage(const KilnStatus* s) { return s ? s->message.c_str() : ""; }
void StatusRelease(KilnStatus* s) { delete s; }
void Log(KilnLogLevel level, const char* logger, const char* message) {
  g_log.push_back(std::to_string(level) + " " + logger + ": " + message);
}
int LogEnabled(KilnLogLevel level) { return level >= KILN_LOG_DEBUG; }

KilnStatus* Refused(const KilnRegistrar* r) {
  return r->refuse ? StatusCreate(KILN_STATUS_FAILED_PRECONDITION, "registrar closed") : nullptr;
}
KilnStatus* RegisterPass(KilnRegistrar* r, const KilnPassInfo* info) {
  if (KilnStatus* s = Refused(r)) return s;
  r->passes.push_back(*info);
  r->pass_names.emplace_back(info->name);
  r->switch_options.emplace_back(info->switch_option ? info->switch_option : "");
  std::vector<std::string> options;
  for (size_t i = 0; i < info->option_count; ++i)
    options.push_back(std::string(info->options[i]->name) + "=" + info->options[i]->default_value);
  r->pass_options.push_back(options);
  return nullptr;
}
KilnStatus* RegisterKernel(KilnRegistrar* r, const KilnKernelInfo* info) {
  if (KilnStatus* s = Refused(r)) return s;
  r->kernels.push_back(*info);
  r->kernel_names.push_back(std::string(info->domain) + "." + info->op_type);
  r->kernel_elem_types.emplace_back(info->elem_types, info->elem_types + info->elem_type_count);
  return nullptr;
}
KilnStatus* RegisterOpSchema(KilnRegistrar* r, const KilnOpSchemaInfo* info) {
  if (KilnStatus* s = Refused(r)) return s;
  r->schemas.push_back(std::string(info->domain) + "." + info->op_type);
  if (info->destroy_user_data) info->destroy_user_data(info->user_data);  // this fake keeps no schemas
  return nullptr;
}
KilnStatus* RegisterFusionRules(KilnRegistrar* r, const KilnFusionRulePackInfo* info) {
  r->rules.emplace_back(info->name);
  return nullptr;
}
KilnStatus* RegisterTarget(KilnRegistrar* r, const KilnTargetInfo* info) {
  r->targets.emplace_back(info->name);
  return nullptr;
}
KilnStatus* RegisterOption(KilnRegistrar* r, const KilnOptionInfo* info) {
  std::string allowed;
  for (size_t i = 0; i < info->allowed_value_count; ++i) allowed += std::string("|") + info->allowed_values[i];
  r->options.push_back(std::string(info->name) + "=" + info->default_value + allowed + "@O" +
                       std::to_string(info->min_level));
  return nullptr;
}

size_t GraphNodeCount(KilnGraph* g) { return g->nodes.size(); }
size_t GraphNodes(KilnGraph* g, KilnNode** out, size_t capacity) {
  for (size_t i = 0; i < capacity && i < g->nodes.size(); ++i) out[i] = g->nodes[i];
  return g->nodes.size();
}
const char* NodeOpType(KilnNode* n) { return n->op_type.c_str(); }
const char* NodeDomain(KilnNode*) { return ""; }
const KilnAttribute* NodeAttribute(KilnNode* n, const char* name) {
  for (const KilnAttribute& a : n->attrs)
    if (a.name == name) return &a;
  return nullptr;
}
int32_t AttrType(const KilnAttribute*) { return KILN_ATTR_INT; }
int64_t AttrInt(const KilnAttribute* a) { return a->value; }
KilnStatus* NodeSetAttrInt(KilnNode* n, const char* name, int64_t value) {
  if (n->refuse_changes) return StatusCreate(KILN_STATUS_FAILED_PRECONDITION, "node is read-only");
  n->attrs.push_back({name, value});
  return nullptr;
}
void PassAddCounter(KilnPassContext* c, const char* name, int64_t delta) { c->counters[name] += delta; }

const KilnTensorView* ValueConstantData(KilnValue* v) { return &v->aligned; }
const KilnTensorView* ValueConstantBytes(KilnValue* v) { return &v->stored; }
const KilnTensorView* KernelInput(KilnKernelContext* c, size_t i) { return i == 0 ? &c->input : nullptr; }
KilnStatus* KernelAllocOutput(KilnKernelContext* c, size_t index, int32_t elem_type, size_t rank,
                              const int64_t* dims, KilnTensorView** out) {
  if (index != 0 || elem_type != KILN_ELEM_FLOAT) return StatusCreate(KILN_STATUS_INVALID_ARGUMENT, "bad output");
  c->output_dims.assign(dims, dims + rank);
  int64_t n = 1;
  for (int64_t d : c->output_dims) n *= d;
  c->output.assign(static_cast<size_t>(n), 0.0f);
  c->output_view = {sizeof(KilnTensorView), elem_type, static_cast<uint32_t>(rank), c->output_dims.data(),
                    c->output.data(), c->output.size() * sizeof(float)};
  *out = &c->output_view;
  return nullptr;
}

KilnHostApi MakeHost() {
  KilnHostApi h{};
  h.struct_size = sizeof h;
  h.abi_version = KILN_ABI_VERSION;
  h.host_version = "fake";
  h.status_create = StatusCreate;
  h.status_code = StatusCode;
  h.status_message = StatusMessage;
  h.status_release = StatusRelease;
  h.log = Log;
  h.log_enabled = LogEnabled;
  h.register_pass = RegisterPass;
  h.register_kernel = RegisterKernel;
  h.register_op_schema = RegisterOpSchema;
  h.register_fusion_rules = RegisterFusionRules;
  h.register_target = RegisterTarget;
  h.register_option = RegisterOption;
  h.graph_node_count = GraphNodeCount;
  h.graph_nodes = GraphNodes;
  h.node_op_type = NodeOpType;
  h.node_domain = NodeDomain;
  h.node_attribute = NodeAttribute;
  h.attr_type = AttrType;
  h.attr_int = AttrInt;
  h.node_set_attr_int = NodeSetAttrInt;
  h.pass_add_counter = PassAddCounter;
  h.kernel_input = KernelInput;
  h.value_constant_data = ValueConstantData;
  h.value_constant_bytes = ValueConstantBytes;
  h.kernel_alloc_output = KernelAllocOutput;
  return h;
}

// ---- the plugin under test ----
namespace sdk = kiln::sdk;

int g_live_passes = 0;

class CountingPass final : public sdk::NodePass {
 public:
  static constexpr std::string_view kName = "CountingPass";
  static constexpr std::string_view kSwitchOption = "test.counting";
  static std::vector<sdk::OptionSpec> Options() {
    return {sdk::OptionSpec::Bool("enabled", true, "h"), sdk::OptionSpec::Int("limit", 8, "h"),
            sdk::OptionSpec::Float("ratio", 0.25, "h"), sdk::OptionSpec::String("mode", "fast", "h", {"fast", "slow"})};
  }
  CountingPass() { ++g_live_passes; }
  ~CountingPass() override { --g_live_passes; }
  void Run(sdk::PassContext& ctx, sdk::Node node) override {
    ctx.AddCounter("visited");
    if (node.Is("Identity", "ai.onnx")) ctx.AddCounter("identities");
    node.SetInt("_visited", node.GetInt("_visited", 0) + 1);
    ctx.Log(KILN_LOG_INFO, "visited " + std::string(node.OpType()));
  }
  void OnFinishGraph(sdk::PassContext& ctx, sdk::Graph graph) override {
    ctx.AddCounter("finished", static_cast<int64_t>(graph.Nodes().size()));
  }
};

// Throws what its node's op type names.
class ThrowingPass final : public sdk::NodePass {
 public:
  static constexpr std::string_view kName = "ThrowingPass";
  ThrowingPass() { ++g_live_passes; }
  ~ThrowingPass() override { --g_live_passes; }
  void Run(sdk::PassContext&, sdk::Node node) override {
    std::string_view op = node.OpType();
    if (op == "Runtime") throw std::runtime_error("boom");
    if (op == "KilnError") throw sdk::Error("no such thing", KILN_STATUS_NOT_FOUND);
    if (op == "BadAlloc") throw std::bad_alloc();
    if (op == "Int") throw 42;
    if (op == "WrongAttr") node.GetString("_visited", "");  // an INT read as STRING
    node.SetInt("touched", 1);                               // fails on a read-only node: the host's status
  }
};

class NodeCountPass final : public sdk::GraphPass {
 public:
  static constexpr std::string_view kName = "NodeCountPass";
  static constexpr std::string_view kDescription = "counts nodes";
  void Run(sdk::PassContext& ctx, sdk::Graph graph) override {
    ctx.AddCounter("nodes", static_cast<int64_t>(graph.NodeCount()));
  }
};

class DoubleKernel final : public sdk::Kernel {
 public:
  void Compute(sdk::KernelContext& ctx) override {
    sdk::TensorView x = ctx.RequiredInput(0);
    sdk::MutableTensor y = ctx.AllocOutput(0, KILN_ELEM_FLOAT, x.Dims());
    std::span<const float> in = x.Values<float>();
    std::span<float> out = y.MutableValues<float>();
    for (size_t i = 0; i < in.size(); ++i) out[i] = 2 * in[i];
  }
};

}  // namespace

KILN_PLUGIN("wrapper_test", "0.0.1", "the wrapper's own test") {
  reg.AddOption(sdk::OptionSpec::String("test.mode", "Balanced", "h", {"Balanced", "MemoryPriority"}).MinLevel(1));
  reg.AddNodePass<CountingPass>();
  reg.AddNodePass<ThrowingPass>();
  reg.AddGraphPass<NodeCountPass>();
  reg.AddKernel<DoubleKernel>({.domain = "test", .op_type = "Double", .elem_types = {KILN_ELEM_FLOAT}});
  reg.AddKernelFn({.domain = "test", .op_type = "Never"},
                  [](sdk::KernelContext&) { throw sdk::Unsupported("Never handles nothing"); });
  reg.AddOpSchema({.domain = "test", .op_type = "Double"}, [](sdk::ShapeContext&) {});
  reg.AddFusionRules("test_rules", "rules: []\n");
  reg.AddTarget("test_target");
}

namespace {

class WrapperTest : public ::testing::Test {
 protected:
  void SetUp() override {
    host_ = MakeHost();
    ASSERT_EQ(kiln_plugin_entry(&host_, KILN_ABI_VERSION, &descriptor_), nullptr);
    ASSERT_NE(descriptor_, nullptr);
  }
  void TearDown() override {
    for (const KilnPassInfo& p : registrar_.passes) p.destroy_user_data(p.user_data);
    for (const KilnKernelInfo& k : registrar_.kernels) k.destroy_user_data(k.user_data);
    EXPECT_EQ(g_live_passes, 0);
  }
  void Register() { ASSERT_EQ(descriptor_->register_plugin(&host_, &registrar_), nullptr); }
  const KilnPassInfo& Pass(std::string_view name) {
    for (size_t i = 0; i < registrar_.passes.size(); ++i)
      if (registrar_.pass_names[i] == name) return registrar_.passes[i];
    throw std::out_of_range(std::string(name));
  }
  // Runs pass `name` on a node of op type `op`; returns the status code and message, releasing the status.
  std::pair<KilnStatusCode, std::string> RunOn(std::string_view name, KilnNode* node) {
    const KilnPassInfo& p = Pass(name);
    std::unique_ptr<KilnStatus> s(p.run_on_node(p.user_data, &ctx_, node));
    return {StatusCode(s.get()), StatusMessage(s.get())};
  }

  KilnHostApi host_{};
  const KilnPluginDescriptor* descriptor_ = nullptr;
  KilnRegistrar registrar_;
  KilnPassContext ctx_;
};

TEST_F(WrapperTest, EntryHandsBackTheDescriptor) {
  EXPECT_EQ(descriptor_->struct_size, sizeof(KilnPluginDescriptor));
  EXPECT_EQ(descriptor_->abi_version, KILN_ABI_VERSION);
  EXPECT_STREQ(descriptor_->name, "wrapper_test");
  EXPECT_STREQ(descriptor_->version, "0.0.1");
  EXPECT_STREQ(descriptor_->description, "the wrapper's own test");
  EXPECT_NE(descriptor_->register_plugin, nullptr);
}

TEST_F(WrapperTest, RegistersEverythingWithFullSizedStructs) {
  Register();
  EXPECT_EQ(registrar_.pass_names, (std::vector<std::string>{"CountingPass", "ThrowingPass", "NodeCountPass"}));
  EXPECT_EQ(registrar_.switch_options, (std::vector<std::string>{"test.counting", "", ""}));
  EXPECT_EQ(registrar_.pass_options[0],
            (std::vector<std::string>{"enabled=true", "limit=8", "ratio=0.25", "mode=fast"}));
  const KilnPassInfo& counting = Pass("CountingPass");
  EXPECT_EQ(counting.struct_size, sizeof(KilnPassInfo));
  EXPECT_EQ(counting.kind, static_cast<uint32_t>(KILN_PASS_NODE));
  EXPECT_NE(counting.run_on_node, nullptr);
  EXPECT_EQ(counting.run_on_graph, nullptr);
  EXPECT_NE(counting.on_finish_graph, nullptr);
  const KilnPassInfo& count = Pass("NodeCountPass");
  EXPECT_EQ(count.kind, static_cast<uint32_t>(KILN_PASS_GRAPH));
  EXPECT_EQ(count.run_on_node, nullptr);
  EXPECT_NE(count.run_on_graph, nullptr);
  EXPECT_EQ(registrar_.kernel_names, (std::vector<std::string>{"test.Double", "test.Never"}));
  EXPECT_EQ(registrar_.kernel_elem_types[0], (std::vector<int32_t>{KILN_ELEM_FLOAT}));
  EXPECT_TRUE(registrar_.kernel_elem_types[1].empty());
  EXPECT_EQ(registrar_.schemas, (std::vector<std::string>{"test.Double"}));
  EXPECT_EQ(registrar_.options, (std::vector<std::string>{"test.mode=Balanced|Balanced|MemoryPriority@O1"}));
  EXPECT_EQ(registrar_.rules, (std::vector<std::string>{"test_rules"}));
  EXPECT_EQ(registrar_.targets, (std::vector<std::string>{"test_target"}));
}

TEST_F(WrapperTest, NodePassRunsThroughTheHost) {
  Register();
  KilnNode identity{"Identity", {}};
  KilnGraph graph{{&identity}};
  EXPECT_EQ(RunOn("CountingPass", &identity).first, KILN_STATUS_OK);
  EXPECT_EQ(RunOn("CountingPass", &identity).first, KILN_STATUS_OK);
  EXPECT_EQ(ctx_.counters["visited"], 2);
  EXPECT_EQ(ctx_.counters["identities"], 2);
  ASSERT_FALSE(identity.attrs.empty());
  EXPECT_EQ(identity.attrs.back().value, 2);
  EXPECT_EQ(g_log.back(), std::to_string(KILN_LOG_INFO) + " CountingPass: visited Identity");

  const KilnPassInfo& p = Pass("CountingPass");
  EXPECT_EQ(p.on_finish_graph(p.user_data, &ctx_, &graph), nullptr);
  EXPECT_EQ(ctx_.counters["finished"], 1);
  const KilnPassInfo& g = Pass("NodeCountPass");
  EXPECT_EQ(g.run_on_graph(g.user_data, &ctx_, &graph), nullptr);
  EXPECT_EQ(ctx_.counters["nodes"], 1);
}

TEST_F(WrapperTest, ExceptionsBecomeStatuses) {
  Register();
  KilnNode runtime{"Runtime", {}}, kiln_error{"KilnError", {}}, bad_alloc{"BadAlloc", {}}, int_thrown{"Int", {}};
  EXPECT_EQ(RunOn("ThrowingPass", &runtime),
            std::make_pair(KilnStatusCode{KILN_STATUS_INTERNAL}, std::string("uncaught exception: boom")));
  EXPECT_EQ(RunOn("ThrowingPass", &kiln_error),
            std::make_pair(KilnStatusCode{KILN_STATUS_NOT_FOUND}, std::string("no such thing")));
  EXPECT_EQ(RunOn("ThrowingPass", &bad_alloc).first, KILN_STATUS_OUT_OF_MEMORY);
  EXPECT_EQ(RunOn("ThrowingPass", &int_thrown).first, KILN_STATUS_INTERNAL);
}

TEST_F(WrapperTest, HostErrorsComeBackWithTheirCodeAndMessage) {
  Register();
  KilnNode read_only{"Add", {}, /*refuse_changes=*/true};
  EXPECT_EQ(RunOn("ThrowingPass", &read_only),
            std::make_pair(KilnStatusCode{KILN_STATUS_FAILED_PRECONDITION}, std::string("node is read-only")));
  KilnNode wrong_attr{"WrongAttr", {{"_visited", 1}}};
  auto [code, message] = RunOn("ThrowingPass", &wrong_attr);
  EXPECT_EQ(code, KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(message.find("'_visited'"), std::string::npos) << message;
}

TEST_F(WrapperTest, KernelComputesIntoHostAllocatedOutput) {
  Register();
  float in[] = {1.5f, -2.0f, 0.0f, 4.0f};
  int64_t dims[] = {2, 2};
  KilnKernelContext ctx;
  ctx.input = {sizeof(KilnTensorView), KILN_ELEM_FLOAT, 2, dims, in, sizeof in};
  const KilnKernelInfo& k = registrar_.kernels[0];
  ASSERT_EQ(k.compute(k.user_data, &ctx), nullptr);
  EXPECT_EQ(ctx.output_dims, (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(ctx.output, (std::vector<float>{3.0f, -4.0f, 0.0f, 8.0f}));

  ctx.input.elem_type = KILN_ELEM_INT32;  // read as float: a typed error, not garbage
  std::unique_ptr<KilnStatus> s(k.compute(k.user_data, &ctx));
  EXPECT_EQ(StatusCode(s.get()), KILN_STATUS_INVALID_ARGUMENT);
}

TEST_F(WrapperTest, KernelSaysUnsupported) {
  Register();
  KilnKernelContext ctx{};
  const KilnKernelInfo& never = registrar_.kernels[1];
  std::unique_ptr<KilnStatus> s(never.compute(never.user_data, &ctx));
  EXPECT_EQ(StatusCode(s.get()), KILN_STATUS_UNSUPPORTED);
  EXPECT_STREQ(StatusMessage(s.get()), "Never handles nothing");
}

TEST_F(WrapperTest, FailedRegistrationReturnsTheHostStatusAndLeaksNothing) {
  registrar_.refuse = true;
  std::unique_ptr<KilnStatus> s(descriptor_->register_plugin(&host_, &registrar_));
  EXPECT_EQ(StatusCode(s.get()), KILN_STATUS_FAILED_PRECONDITION);
  EXPECT_STREQ(StatusMessage(s.get()), "registrar closed");
  EXPECT_EQ(g_live_passes, 0);  // the pass object built for the refused registration is gone
}

TEST_F(WrapperTest, SlotsAfter1_0FailCleanlyOnAnOlderHost) {
  host_.struct_size = KILN_HOST_API_SIZE_1_0;  // a 1.0 host: the subgraph slots are not there
  host_.abi_version = KILN_ABI_VERSION_1_0;
  KilnNode node{"If", {}};
  try {
    (void)sdk::Node(&node).SubgraphCount();
    FAIL() << "expected an error";
  } catch (const sdk::Error& e) {
    EXPECT_EQ(e.code(), KILN_STATUS_UNSUPPORTED);
    EXPECT_NE(std::string(e.what()).find("node_subgraph_count"), std::string::npos) << e.what();
  }
  EXPECT_EQ(sdk::NegotiatedAbiVersion(), KILN_ABI_VERSION_1_0);
}

// ABI 1.8: a constant's stored bytes may sit at any address; StoredTensor copies elements out of them, checks the
// type and the range, and on an older host shows ConstantData's bytes instead.
TEST_F(WrapperTest, StoredBytesAreReadByCopyingOutOfAnyAddress) {
  const float values[5] = {1.5f, -2.f, 3.25f, 0.f, 7.f};
  alignas(8) unsigned char file[sizeof values + 1];
  std::memcpy(file + 1, values, sizeof values);  // one byte past an aligned address, as a weight in a file can be
  const int64_t dims[] = {5};
  KilnValue v{{sizeof(KilnTensorView), KILN_ELEM_FLOAT, 1, dims, const_cast<float*>(values), sizeof values},
              {sizeof(KilnTensorView), KILN_ELEM_FLOAT, 1, dims, file + 1, sizeof values}};
  sdk::StoredTensor t = sdk::Value(&v).ConstantBytes();
  ASSERT_TRUE(t);
  EXPECT_EQ(t.Bytes().data(), reinterpret_cast<const std::byte*>(file + 1));
  EXPECT_EQ(t.ElementCount(), 5);
  float got[3];
  t.CopyTo(1, std::span<float>(got));
  EXPECT_EQ(got[0], -2.f);
  EXPECT_EQ(got[1], 3.25f);
  EXPECT_EQ(got[2], 0.f);
  EXPECT_EQ(t.At<float>(4), 7.f);
  try {
    (void)t.At<int32_t>(0);
    FAIL() << "a float tensor read as int32";
  } catch (const sdk::Error& e) {
    EXPECT_EQ(e.code(), KILN_STATUS_INVALID_ARGUMENT);
  }
  try {
    t.CopyTo(3, std::span<float>(got));
    FAIL() << "elements 3..6 of 5";
  } catch (const sdk::Error& e) {
    EXPECT_EQ(e.code(), KILN_STATUS_OUT_OF_RANGE);
  }

  host_.struct_size = KILN_STRUCT_SIZE_UNTIL(KilnHostApi, target_storage_shape);  // a 1.7 host
  host_.abi_version = KILN_ABI_VERSION_1_7;
  sdk::StoredTensor older = sdk::Value(&v).ConstantBytes();
  EXPECT_EQ(older.Bytes().data(), reinterpret_cast<const std::byte*>(values));
  EXPECT_EQ(older.At<float>(2), 3.25f);
}

// Four floats as a constant whose stored bytes sit 3 bytes past an aligned address, as a weight in a file can.
struct MisalignedConstant {
  static constexpr float kValues[4] = {1.5f, -2.f, 3.25f, 9.f};
  alignas(8) unsigned char file[sizeof kValues + 3] = {};
  const int64_t dims[1] = {4};
  KilnValue value{{sizeof(KilnTensorView), KILN_ELEM_FLOAT, 1, dims, const_cast<float*>(kValues), sizeof kValues},
                  {sizeof(KilnTensorView), KILN_ELEM_FLOAT, 1, dims, file + 3, sizeof kValues}};
  MisalignedConstant() { std::memcpy(file + 3, kValues, sizeof kValues); }
  MisalignedConstant(const MisalignedConstant&) = delete;  // the views point into it
};

// ABI 1.11: StoredTensor copies stored bytes out through the host's stored_bytes_read (which reads a mapped model
// file's bytes from the file); on a host before it, with memcpy. ReadBytes refuses a range past the end.
size_t g_stored_reads = 0;
void CountingStoredRead(const void* at, uint64_t size, void* out) {
  ++g_stored_reads;
  std::memcpy(out, at, static_cast<size_t>(size));
}

TEST_F(WrapperTest, StoredBytesAreCopiedThroughTheHostWhereItCan) {
  MisalignedConstant c;
  KilnValue& v = c.value;
  host_.stored_bytes_read = CountingStoredRead;
  g_stored_reads = 0;
  sdk::StoredTensor t = sdk::Value(&v).ConstantBytes();
  float got[2] = {};
  t.ReadBytes(sizeof(float), std::as_writable_bytes(std::span<float>(got)));
  EXPECT_EQ(got[0], -2.f);
  EXPECT_EQ(got[1], 3.25f);
  EXPECT_EQ(t.At<float>(3), 9.f);
  EXPECT_EQ(g_stored_reads, 2u);
  try {
    t.ReadBytes(3 * sizeof(float), std::as_writable_bytes(std::span<float>(got)));
    FAIL() << "bytes 12..20 of 16";
  } catch (const sdk::Error& e) {
    EXPECT_EQ(e.code(), KILN_STATUS_OUT_OF_RANGE);
  }
  host_.struct_size = KILN_STRUCT_SIZE_UNTIL(KilnHostApi, value_constant_read);  // a 1.10 host
  host_.abi_version = KILN_ABI_VERSION_1_10;
  t.ReadBytes(2 * sizeof(float), std::as_writable_bytes(std::span<float>(got)));
  EXPECT_EQ(got[0], 3.25f);
  EXPECT_EQ(got[1], 9.f);
  EXPECT_EQ(g_stored_reads, 2u);
}

// ABI 1.10: on a host before it, a range of a constant's bytes is copied out of the stored bytes, and a range past
// their end is refused.
TEST_F(WrapperTest, ConstantRangesOnAnOlderHostComeFromTheStoredBytes) {
  MisalignedConstant c;
  KilnValue& v = c.value;
  host_.struct_size = KILN_STRUCT_SIZE_UNTIL(KilnHostApi, value_constant_bytes);  // a 1.9 host
  host_.abi_version = KILN_ABI_VERSION_1_9;
  float got[2] = {};
  sdk::Value(&v).ReadConstantBytes(sizeof(float), std::as_writable_bytes(std::span<float>(got)));
  EXPECT_EQ(got[0], -2.f);
  EXPECT_EQ(got[1], 3.25f);
  try {
    sdk::Value(&v).ReadConstantBytes(3 * sizeof(float), std::as_writable_bytes(std::span<float>(got)));
    FAIL() << "bytes 12..20 of 16";
  } catch (const sdk::Error& e) {
    EXPECT_EQ(e.code(), KILN_STATUS_OUT_OF_RANGE);
  }
}

}  // namespace
