// Outlining realistic groups of the generated bench models (bench/models/gen_models.py, built into the build tree
// by CMake with their inputs from make_inputs.py): every Conv+BatchNormalization+Relu triple and Conv+BN pair of
// ResNet-50, and BERT's decomposed LayerNorm (ReduceMean, Sub, Pow, ReduceMean, Add, Sqrt, Div, Mul, Add and their
// Constant nodes) and attention block (MatMul, Div by a Constant, mask Add, Softmax, MatMul). For each:
//   - every group outlines, and the number of functions is the number of distinct group keys (the op types and
//     attribute names of the group's nodes with attributes by reference, their values too without);
//   - the model verifies, is written with WriteModel and passes onnx.checker (full_check, via /usr/bin/python3);
//   - the original and the outlined model compute the same outputs on the executor (rtol 1e-4);
//   - inlining every call gives back the original graph: StructuralFingerprint and the number of values, and the
//     value names too where each group had its own body (with a shared body, the names inside the groups are the
//     first group's, freshened: a body holds one set of names). With embedded constants, inlining gives them back
//     as Constant nodes where the original had initializers: equal after ConstantNodeToInitializerPass and DCE.
// With KILN_KEEP_OUTLINED=1 the outlined models stay in the build tree (bench/<model>.<variant>.onnx, about 80 MB
// each) for check_with_ort.sh; otherwise each is removed once checked.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <map>
#include <set>
#include <sstream>

#include "compile/compiler.h"
#include "driver/graph_fingerprint.h"
#include "exec/compare.h"
#include "exec/executor.h"
#include "exec/input_feed.h"
#include "ir/model.h"
#include "ir/outline.h"
#include "onnx/onnx_export.h"
#include "onnx/onnx_import.h"
#include "support/pass_runner.h"
#include "verify/verifier.h"

namespace kiln::testing {
namespace {

const std::string kBenchDir = KILN_FUNCTION_BENCH_DIR;

using Group = std::vector<Node*>;

// The only node reading `v` (outside graph outputs), or null.
Node* SoleReader(const Value* v) {
  if (v == nullptr || v->is_graph_output() || v->uses().size() != 1) return nullptr;
  return v->uses()[0].node;
}

// The producer of n's input when it is an `op` read only by n. A call of a function outlined as `op` counts too
// (Outline names the second function of a name `op_1`, and so on).
Node* ProducerOf(const Node* n, size_t input, const std::string& op) {
  Value* v = n->input(input);
  Node* p = v ? v->producer() : nullptr;
  if (p == nullptr || SoleReader(v) != n) return nullptr;
  const std::string& t = p->op_type();
  bool numbered = !p->domain().empty() && t.size() > op.size() + 1 && t.compare(0, op.size() + 1, op + "_") == 0 &&
                  t.find_first_not_of("0123456789", op.size() + 1) == std::string::npos;
  return t == op || numbered ? p : nullptr;
}

std::string AttributeText(const Attribute& a, bool values) {
  std::ostringstream s;
  s << a.name;
  if (!values) return s.str();
  if (a.f) s << "=f" << *a.f;
  if (a.i) s << "=i" << *a.i;
  if (a.s) s << "=s" << *a.s;
  for (int64_t v : a.ints) s << "," << v;
  for (float v : a.floats) s << "," << v;
  if (a.t) {
    s << "=t";
    auto b = a.t->bytes();
    s.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
  }
  return s.str();
}

// What decides whether two groups share a body: the ops in order, their attribute names, and with attributes by
// value their values.
std::string GroupKey(const Group& g, bool values) {
  std::string key;
  for (const Node* n : g) {
    key += n->op_type() + "[";
    for (const Attribute& a : n->attributes()) key += AttributeText(a, values) + ";";
    key += "]";
  }
  return key;
}

// Conv -> BatchNormalization -> Relu, each read only by the next.
std::vector<Group> ConvBnRelu(const Graph& g) {
  std::vector<Group> out;
  for (const auto& n : g.nodes()) {
    if (n->op_type() != "Relu") continue;
    Node* bn = ProducerOf(n.get(), 0, "BatchNormalization");
    Node* conv = bn ? ProducerOf(bn, 0, "Conv") : nullptr;
    if (conv) out.push_back({conv, bn, n.get()});
  }
  return out;
}

// Conv -> BatchNormalization whose output goes elsewhere than a Relu (the residual Add).
std::vector<Group> ConvBnWithoutRelu(const Graph& g) {
  std::vector<Group> out;
  for (const auto& n : g.nodes()) {
    if (n->op_type() != "BatchNormalization") continue;
    Node* reader = SoleReader(n->output(0));
    if (reader && reader->op_type() == "Relu") continue;
    if (Node* conv = ProducerOf(n.get(), 0, "Conv")) out.push_back({conv, n.get()});
  }
  return out;
}

// Every node under one ".../LayerNorm/" name scope, a group per scope, in graph order.
std::vector<Group> LayerNorms(const Graph& g) {
  std::map<std::string, Group> scopes;
  std::vector<std::string> order;
  for (const auto& n : g.nodes()) {
    size_t at = n->name().find("/LayerNorm/");
    if (at == std::string::npos) continue;
    std::string scope = n->name().substr(0, at);
    if (!scopes.count(scope)) order.push_back(scope);
    scopes[scope].push_back(n.get());
  }
  std::vector<Group> out;
  for (const auto& s : order) out.push_back(scopes[s]);
  return out;
}

// MatMul(q, k^T) -> Div(., Constant) -> Add(., mask) -> Softmax -> MatMul(., v).
std::vector<Group> AttentionBlocks(const Graph& g) {
  std::vector<Group> out;
  for (const auto& n : g.nodes()) {
    if (n->op_type() != "Softmax") continue;
    Node* add = ProducerOf(n.get(), 0, "Add");
    Node* div = add ? ProducerOf(add, 0, "Div") : nullptr;
    Node* scale = div ? ProducerOf(div, 1, "Constant") : nullptr;
    Node* qk = div ? ProducerOf(div, 0, "MatMul") : nullptr;
    Node* pv = SoleReader(n->output(0));
    if (qk && scale && pv && pv->op_type() == "MatMul") out.push_back({qk, scale, div, add, n.get(), pv});
  }
  return out;
}

// After ConvBnRelu and ConvBn are outlined: a bottleneck block of calls, ConvBnRelu -> ConvBnRelu -> ConvBn ->
// Add(., shortcut) -> Relu, with the shortcut's ConvBn call (the downsample) when there is one.
std::vector<Group> Bottlenecks(const Graph& g) {
  std::vector<Group> out;
  for (const auto& n : g.nodes()) {
    if (n->op_type() != "Relu") continue;
    Node* add = ProducerOf(n.get(), 0, "Add");
    Node* c3 = add ? ProducerOf(add, 0, "ConvBn") : nullptr;
    Node* c2 = c3 ? ProducerOf(c3, 0, "ConvBnRelu") : nullptr;
    Node* c1 = c2 ? ProducerOf(c2, 0, "ConvBnRelu") : nullptr;
    if (c1 == nullptr) continue;
    Group group = {c1, c2, c3};
    if (Node* ds = ProducerOf(add, 1, "ConvBn"); ds && ds->input(0) == c1->input(0)) group.push_back(ds);
    group.push_back(add);
    group.push_back(n.get());
    out.push_back(group);
  }
  return out;
}

// Every call in the main graph tree (not in function bodies).
std::vector<Node*> MainCalls(const Model& m) {
  std::vector<Node*> out;
  ForEachGraphIn(m.graph(), [&](const Graph& g) {
    for (const auto& n : g.nodes())
      if (m.CalledFunction(*n)) out.push_back(n.get());
  });
  return out;
}

struct Pattern {
  std::string name;  // the function's name
  std::function<std::vector<Group>(const Graph&)> find;
  size_t expected_groups;
};

std::string RunCommand(const std::string& cmd, int* rc) {
  FILE* p = ::popen((cmd + " 2>&1").c_str(), "r");
  std::string out;
  std::array<char, 4096> buf{};
  size_t n;
  while ((n = std::fread(buf.data(), 1, buf.size(), p)) > 0) out.append(buf.data(), n);
  int status = ::pclose(p);
  *rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128;
  return out;
}

std::multiset<std::string> ValueNames(const Graph& g) {
  std::multiset<std::string> names;
  for (const Value* v : g.values()) names.insert(v->name());
  return names;
}

// Names of the values every group leaves in the main graph: inputs, initializers, graph outputs, and the values
// read outside a group (the calls' outputs).
std::set<std::string> BoundaryNames(const Graph& g) {
  std::set<std::string> names;
  for (const Value* v : g.values())
    if (v->producer() == nullptr || v->is_graph_output() || !v->producer()->domain().empty())
      names.insert(v->name());
  return names;
}

class OutlineBench : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    compiler_ = new Compiler();
    compiler_->LoadSearchPathPlugins();
  }
  static void TearDownTestSuite() {
    delete compiler_;
    compiler_ = nullptr;
  }

  std::vector<RtValue> Run(const Model& m, const std::string& model) {
    InputSpec spec;
    spec.inputs_dir = kBenchDir + "/" + model + "_inputs";
    return Executor(m, compiler_->kernels()).Run(ReadInputs(m.graph(), spec));
  }

  struct Sharing {
    bool reuse_body = true;
    bool by_reference = true;
    uint64_t embed = 0;  // OutlineOptions::embed_constant_max_bytes
  };

  // Outlines every group of every pattern, checks, writes, runs, inlines back (see the file comment).
  void Check(const std::string& model, const std::string& variant, const std::vector<Pattern>& patterns,
             Sharing sharing, size_t expected_functions) {
    const std::string path = kBenchDir + "/" + model + ".onnx";
    std::unique_ptr<Model> original = LoadModel(path), m = LoadModel(path);
    const uint64_t fingerprint = StructuralFingerprint(original->graph());
    const auto names = ValueNames(original->graph());
    const size_t values = original->graph().values().size();

    std::set<std::string> keys;
    size_t groups = 0, nested = 0, embedded_total = 0;
    for (const Pattern& p : patterns) {
      std::vector<Group> found = p.find(m->graph());
      EXPECT_EQ(found.size(), p.expected_groups) << p.name;
      OutlineOptions o;
      o.domain = "kiln.bench";
      o.name = p.name;
      o.reuse_body = sharing.reuse_body;
      o.attributes_by_reference = sharing.by_reference;
      o.embed_constant_max_bytes = sharing.embed;
      for (const Group& g : found) {
        std::set<const Value*> embedded;  // initializers the body takes as Constant nodes
        for (const Node* n : g) {
          nested += m->CalledFunction(*n) != nullptr;
          for (const Value* v : n->inputs())
            if (v && v->initializer() && !v->is_graph_input() && v->initializer()->byte_size() <= sharing.embed)
              embedded.insert(v);
        }
        keys.insert(sharing.reuse_body ? p.name + ":" + GroupKey(g, !sharing.by_reference)
                                       : p.name + ":" + std::to_string(groups));
        OutlineResult r = Outline(m->graph(), g, o);
        ASSERT_TRUE(r.refusal.empty()) << p.name << " at " << g.front()->name() << ": " << r.refusal;
        EXPECT_EQ(r.function->body().num_nodes(), g.size() + embedded.size());
        embedded_total += embedded.size();
        ++groups;
      }
    }
    EXPECT_EQ(m->num_functions(), keys.size()) << "groups of one key share one body, and only they";
    EXPECT_EQ(m->num_functions(), expected_functions);
    EXPECT_EQ(embedded_total > 0, sharing.embed > 0) << "the limit embeds constants where it is set";
    // A group holding calls takes them into its body.
    EXPECT_EQ(MainCalls(*m).size(), groups - nested);
    m->CollectGarbage();
    auto issues = VerifyModel(*m);
    EXPECT_TRUE(issues.empty()) << issues.front().message;

    const std::string written = kBenchDir + "/" + model + "." + variant + ".onnx";
    WriteModel(*m, written);
    int rc = 0;
    std::string out = RunCommand(std::string(KILN_SYSTEM_PYTHON) +
                                     " -c \"import onnx, sys; onnx.checker.check_model(sys.argv[1], full_check=True)\" " +
                                     written, &rc);
    EXPECT_EQ(rc, 0) << "onnx.checker on " << written << ":\n" << out;
    std::unique_ptr<Model> reread = LoadModel(written);
    EXPECT_EQ(reread->num_functions(), m->num_functions());
    const char* keep = std::getenv("KILN_KEEP_OUTLINED");
    if (keep == nullptr || std::string(keep) != "1") std::filesystem::remove(written);  // read into memory

    auto expected = Run(*original, model);
    auto got = Run(*reread, model);
    ASSERT_EQ(got.size(), expected.size());
    for (size_t i = 0; i < got.size(); ++i) {
      Comparison c = CompareValues(expected[i], got[i], 1e-4, 1e-6);
      EXPECT_TRUE(c.match) << original->graph().outputs()[i]->name() << ": " << c.message;
    }

    const auto boundary = BoundaryNames(m->graph());
    // Inline until no call is left (inlining a nested group's call brings its inner calls into the graph).
    for (auto calls = MainCalls(*m); !calls.empty(); calls = MainCalls(*m)) {
      for (Node* call : calls) Inline(*call);
      m->CollectGarbage();
    }
    std::vector<Function*> functions;
    for (const auto& f : m->functions()) functions.push_back(f.get());
    for (Function* f : functions) m->RemoveFunction(f);
    m->CollectGarbage();
    issues = VerifyModel(*m);
    EXPECT_TRUE(issues.empty()) << issues.front().message;
    if (sharing.embed > 0) {
      // Embedded initializers come back as Constant nodes (the initializers, unread, stay): equal to the
      // original once both have their Constant nodes turned into initializers and the dead ones dropped.
      EXPECT_EQ(m->graph().num_nodes(), original->graph().num_nodes() + embedded_total);
      for (Model* x : {original.get(), m.get()}) {
        RunPasses(*x, {"ConstantNodeToInitializerPass"});
        RunPasses(*x, {"DeadCodeEliminationPass"});
      }
      EXPECT_EQ(StructuralFingerprint(m->graph()), StructuralFingerprint(original->graph()));
      EXPECT_EQ(m->graph().values().size(), original->graph().values().size());
      return;
    }
    EXPECT_EQ(m->graph().num_nodes(), original->graph().num_nodes());
    EXPECT_EQ(StructuralFingerprint(m->graph()), fingerprint);
    EXPECT_EQ(m->graph().values().size(), values);
    const auto after = ValueNames(m->graph());
    if (!sharing.reuse_body) {
      EXPECT_EQ(after, names) << "each group had its own body: every name comes back";
    } else {
      for (const std::string& n : boundary) EXPECT_EQ(after.count(n), 1u) << n;
    }
  }

  static Compiler* compiler_;
};

Compiler* OutlineBench::compiler_ = nullptr;

// 33 Conv+BN+Relu triples (the stem and two per bottleneck) and 20 Conv+BN pairs (conv3 and the 4 downsamples).
std::vector<Pattern> ResNetPatterns() {
  return {{"ConvBnRelu", ConvBnRelu, 33}, {"ConvBn", ConvBnWithoutRelu, 20}};
}

TEST_F(OutlineBench, ResNet50GroupsByReferenceShareOneBodyPerPattern) {
  Check("resnet50", "conv_by_reference", ResNetPatterns(), {.reuse_body = true, .by_reference = true}, 2);
}

// By value: the triples have 4 attribute sets (7x7/2 stem, 1x1, 3x3/1, 3x3/2), the pairs 2 (1x1/1, 1x1/2).
TEST_F(OutlineBench, ResNet50GroupsByValueGetOneBodyPerAttributeSet) {
  Check("resnet50", "conv_by_value", ResNetPatterns(), {.reuse_body = true, .by_reference = false}, 6);
}

// Without reuse every group is its own function, and inlining gives back every value name.
TEST_F(OutlineBench, ResNet50WithoutReuseInlinesBackNamesIncluded) {
  Check("resnet50", "conv_unshared", ResNetPatterns(), {.reuse_body = false, .by_reference = false}, 53);
}

// Nested: the bottleneck blocks (12 identity, 4 with a downsample) outlined around the calls of the triples and
// pairs, so their bodies call functions. By reference: 2 + 2 bodies; by value, the blocks differ in their calls
// (layer1.0's downsample has stride 1, the other three stride 2): 6 + 3.
TEST_F(OutlineBench, ResNet50BottlenecksAroundOutlinedGroupsNest) {
  auto patterns = ResNetPatterns();
  patterns.push_back({"Bottleneck", Bottlenecks, 16});
  Check("resnet50", "bottleneck_by_reference", patterns, {.reuse_body = true, .by_reference = true}, 4);
  Check("resnet50", "bottleneck_by_value", patterns, {.reuse_body = true, .by_reference = false}, 9);
}

// The LayerNorm weights and biases (768 floats) embedded as Constant nodes whose values the calls pass by reference:
// still one body per pattern, and the model computes the same.
TEST_F(OutlineBench, BertWithEmbeddedWeightsStillSharesBodies) {
  const std::vector<Pattern> patterns = {{"LayerNorm", LayerNorms, 5}, {"Attention", AttentionBlocks, 2}};
  Check("bert", "embedded", patterns, {.reuse_body = true, .by_reference = true, .embed = 4096}, 2);
}

// BERT (2 layers): 5 LayerNorms (embeddings, and after attention and FFN in each layer), 2 attention blocks; all
// LayerNorms have the same attributes and epsilon, so by value they share a body too.
TEST_F(OutlineBench, BertLayerNormsAndAttentionBlocksShareBodies) {
  const std::vector<Pattern> patterns = {{"LayerNorm", LayerNorms, 5}, {"Attention", AttentionBlocks, 2}};
  Check("bert", "by_reference", patterns, {.reuse_body = true, .by_reference = true}, 2);
  Check("bert", "by_value", patterns, {.reuse_body = true, .by_reference = false}, 2);
  Check("bert", "unshared", patterns, {.reuse_body = false, .by_reference = false}, 7);
}

}  // namespace
}  // namespace kiln::testing
