// CommonSubexpressionEliminationPass: golden tests (ONNX text before and after), attribute- and subgraph-aware
// merging, constants, graph outputs, non-deterministic ops, and a graph it leaves alone.
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "ir/buffer.h"
#include "ir/graph.h"
#include "ir/tensor.h"
#include "support/golden.h"
#include "support/pass_runner.h"

namespace kiln {
namespace {

using kiln::testing::Canonical;
using kiln::testing::ParseModel;
using kiln::testing::PrintGraph;
using kiln::testing::RunPasses;

const std::vector<std::string> kCse = {"CommonSubexpressionEliminationPass"};

std::string M(const std::string& graph) { return "<ir_version: 8, opset_import: [\"\" : 17]>\n" + graph; }

std::vector<std::string> InitializerNames(const Model& m) {
  std::vector<std::string> names;
  for (const Value* v : m.graph().initializers()) names.push_back(v->name());
  return names;
}

// Returns the model rewritten, for more checks (null when `before` does not parse).
std::unique_ptr<Model> ExpectRewrite(const std::string& before, const std::string& after) {
  auto m = ParseModel(M(before));
  EXPECT_TRUE(m);
  if (!m) return nullptr;
  auto run = RunPasses(*m, kCse);
  EXPECT_TRUE(run.changed());
  EXPECT_EQ(PrintGraph(*m), Canonical(M(after)));
  return m;
}

void ExpectNoChange(const std::string& text) {
  auto m = ParseModel(M(text));
  ASSERT_TRUE(m);
  auto run = RunPasses(*m, kCse);
  EXPECT_FALSE(run.changed());
  EXPECT_EQ(PrintGraph(*m), Canonical(M(text)));
}

TEST(CommonSubexpressionEliminationPass, MergesIdenticalNodes) {
  // Relu(x) twice -> once; then the two Exp nodes read the same value and merge too.
  ExpectRewrite(R"(g (float[2] x) => (float[2] y) {
    a = Relu(x)
    b = Relu(x)
    ea = Exp(a)
    eb = Exp(b)
    y = Add(ea, eb)
  })",
                R"(g (float[2] x) => (float[2] y) {
    a = Relu(x)
    ea = Exp(a)
    y = Add(ea, ea)
  })");
}

// Thousands of nodes, each with a twin: the kept nodes' table (its slot count not a power of two, probes wrapping
// at its end) finds every twin and nothing else. Each a_{i+1} = Relu(a_i) has a twin b_{i+1} = Relu(a_i); the twins
// merge into the a chain, and every output then reads it, but for the last pair: a and b there are both graph
// outputs, which stay apart.
TEST(CommonSubexpressionEliminationPass, MergesEveryTwinOfAThousandsLongChain) {
  constexpr int kLength = 5000;
  std::string body = "    a0 = Relu(x)\n", outs;
  for (int i = 1; i <= kLength; ++i) {
    const std::string p = "a" + std::to_string(i - 1), a = "a" + std::to_string(i), b = "b" + std::to_string(i);
    body += "    " + a + " = Relu(" + p + ")\n    " + b + " = Relu(" + p + ")\n";
    outs += ", float[2] " + b;
  }
  auto m = ParseModel(M("g (float[2] x) => (float[2] a" + std::to_string(kLength) + outs + ") {\n" + body + "  }"));
  ASSERT_TRUE(m);
  ASSERT_EQ(m->graph().num_nodes(), size_t{2 * kLength + 1});
  auto run = RunPasses(*m, kCse);
  EXPECT_TRUE(run.changed());
  EXPECT_EQ(m->graph().num_nodes(), size_t{kLength + 2});
  for (const auto& n : m->graph().nodes()) EXPECT_EQ(n->op_type(), "Relu");
  EXPECT_EQ(m->graph().outputs().size(), size_t{kLength + 1});
}

TEST(CommonSubexpressionEliminationPass, MergesIdenticalConstants) {
  ExpectRewrite(R"(g (float[2] x) => (float[2] y) {
    c1 = Constant <value = float[2] {1.0, 2.0}> ()
    c2 = Constant <value = float[2] {1.0, 2.0}> ()
    a = Add(x, c1)
    b = Add(x, c2)
    y = Mul(a, b)
  })",
                R"(g (float[2] x) => (float[2] y) {
    c1 = Constant <value = float[2] {1.0, 2.0}> ()
    a = Add(x, c1)
    y = Mul(a, a)
  })");
}

TEST(CommonSubexpressionEliminationPass, MergesIdenticalInitializersAndDropsTheOther) {
  auto m = ExpectRewrite(R"(g (float[2] x) => (float[2] y) <float[2] w1 = {1.0, 2.0}, float[2] w2 = {1.0, 2.0}> {
    a = Add(x, w1)
    b = Add(x, w2)
    y = Mul(a, b)
  })",
                         R"(g (float[2] x) => (float[2] y) <float[2] w1 = {1.0, 2.0}> {
    a = Add(x, w1)
    y = Mul(a, a)
  })");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->graph().initializers().size(), 1u);
}

// Constants read more than once (by two nodes, and twice by one) are each met once: the twin merges into the first
// and is dropped, and the nodes that became equal then merge too.
TEST(CommonSubexpressionEliminationPass, MergesConstantsReadMoreThanOnce) {
  auto m = ExpectRewrite(R"(g (float[2] x) => (float[2] y) <float[2] w1 = {1.0, 2.0}, float[2] w2 = {1.0, 2.0}> {
    s = Mul(w1, w1)
    a = Add(x, s)
    b = Add(a, w1)
    t = Mul(w2, w2)
    c = Add(b, t)
    y = Add(c, w2)
  })",
                         R"(g (float[2] x) => (float[2] y) <float[2] w1 = {1.0, 2.0}> {
    s = Mul(w1, w1)
    a = Add(x, s)
    b = Add(a, w1)
    c = Add(b, s)
    y = Add(c, w1)
  })");
  ASSERT_TRUE(m);
  EXPECT_EQ(InitializerNames(*m), (std::vector<std::string>{"w1"}));
}

// Large constants are bucketed by a hash of samples of their bytes; equality is still decided on every byte.
// Equal constants of one type and shape, two sets interleaved, merge into the first of each set met; one that is
// a graph output stays, and a later twin merges into the first, not into it.
TEST(CommonSubexpressionEliminationPass, MergesEachSetOfEqualConstantsIntoItsFirst) {
  auto m = ExpectRewrite(R"(g (float[2] x) => (float[2] y, float[2] k2)
      <float[2] k1 = {1.0, 2.0}, float[2] j1 = {3.0, 4.0}, float[2] k2 = {1.0, 2.0}, float[2] j2 = {3.0, 4.0},
       float[2] k3 = {1.0, 2.0}> {
    a = Add(x, k1)
    b = Mul(a, j1)
    c = Add(b, k2)
    d = Mul(c, j2)
    y = Add(d, k3)
  })",
                         R"(g (float[2] x) => (float[2] y, float[2] k2)
      <float[2] k1 = {1.0, 2.0}, float[2] j1 = {3.0, 4.0}, float[2] k2 = {1.0, 2.0}> {
    a = Add(x, k1)
    b = Mul(a, j1)
    c = Add(b, k2)
    d = Mul(c, j1)
    y = Add(d, k1)
  })");
  ASSERT_TRUE(m);
  EXPECT_EQ(InitializerNames(*m), (std::vector<std::string>{"k1", "j1", "k2"}));
}

TEST(CommonSubexpressionEliminationPass, ComparesLargeConstantsOnEveryByte) {
  constexpr int kCount = 8192;  // 32 KiB: past the size hashed whole
  auto values = [](int changed) {
    std::string s = "{";
    for (int i = 0; i < kCount; ++i) s += (i ? ", " : "") + std::to_string(i == changed ? 99 : i % 7) + ".0";
    return s + "}";
  };
  const std::string t = "float[" + std::to_string(kCount) + "]";
  // w3 differs from w1 in element 300 only (bytes 1200..1203), which no sample covers: same bucket, not merged.
  auto m = ParseModel(M("g (" + t + " x) => (" + t + " y) <" + t + " w1 = " + values(-1) + ", " + t + " w2 = " +
                        values(-1) + ", " + t + " w3 = " + values(300) + R"(> {
    a = Add(x, w1)
    b = Add(x, w2)
    c = Add(x, w3)
    s = Sum(a, b, c)
    y = Relu(s)
  })"));
  ASSERT_TRUE(m);
  auto run = RunPasses(*m, kCse);
  EXPECT_TRUE(run.changed());
  EXPECT_EQ(InitializerNames(*m), (std::vector<std::string>{"w1", "w3"}));
  std::string after = PrintGraph(*m);
  EXPECT_NE(after.find("s = Sum(a, a, c)"), std::string::npos) << after;
}

// A graph adding x to each of `names`, float constants of kComputedCount elements (32 KiB: past the size hashed
// whole) made on demand (Buffer::Computed, ABI 1.10) with element i of constant n = value(n, i), and summing the
// results. bytes[n] counts the bytes n's computation made; buffers[n] is n's buffer.
constexpr size_t kComputedCount = 8192;

struct ComputedConstants {
  std::unique_ptr<Model> model;
  std::map<std::string, std::shared_ptr<std::atomic<size_t>>> bytes;
  std::map<std::string, std::shared_ptr<const Buffer>> buffers;
};

ComputedConstants AddsOfComputedConstants(const std::vector<std::string>& names,
                                          std::function<float(const std::string&, size_t)> value) {
  const std::string t = "float[" + std::to_string(kComputedCount) + "]";
  std::string values = "{";
  for (size_t i = 0; i < kComputedCount; ++i) values += i ? ", 0.0" : "0.0";
  values += "}";
  std::string constants, body, sum;
  for (size_t k = 0; k < names.size(); ++k) {
    constants += (k ? ", " : "") + t + " " + names[k] + " = " + values;
    body += "    r" + std::to_string(k) + " = Add(x, " + names[k] + ")\n";
    sum += (k ? ", r" : "r") + std::to_string(k);
  }
  ComputedConstants c;
  c.model = ParseModel(M("g (" + t + " x) => (" + t + " y) <" + constants + "> {\n" + body + "    s = Sum(" + sum +
                         ")\n    y = Relu(s)\n  }"));
  if (!c.model) return c;
  for (Value* v : std::vector<Value*>(c.model->graph().initializers())) {
    const std::string name = v->name();
    auto bytes = c.bytes[name] = std::make_shared<std::atomic<size_t>>(0);
    auto fill = [name, bytes, value](size_t offset, std::span<std::byte> out) {
      for (size_t i = 0; i < out.size() / 4; ++i) {
        const float f = value(name, offset / 4 + i);
        std::memcpy(out.data() + i * 4, &f, 4);
      }
      *bytes += out.size();
    };
    auto b = c.buffers[name] = Buffer::Computed(kComputedCount * 4, 4, fill);
    c.model->graph().SetInitializer(
        v, std::make_shared<const Tensor>(DataType::kFloat, std::vector<int64_t>{kComputedCount}, b));
  }
  return c;
}

// Large constants are first told apart by their first KiB: one whose start no other shares is read no further,
// and two that start alike but differ later (here only in their last element) stay apart; equal ones merge.
TEST(CommonSubexpressionEliminationPass, ConstantsThatStartAlikeAreComparedInFull) {
  auto c = AddsOfComputedConstants({"a", "b", "c", "d"}, [](const std::string& name, size_t at) {
    float f = static_cast<float>(at % 11);
    if (name == "b" && at == kComputedCount - 1) f = -1.0f;  // b differs from a and c in its last element only
    if (name == "d") f += 100.0f;                              // d differs from the first element on
    return f;
  });
  ASSERT_TRUE(c.model);
  RunPasses(*c.model, kCse);
  EXPECT_EQ(InitializerNames(*c.model), (std::vector<std::string>{"a", "b", "d"})) << "c merged into a; b and d kept";
  // Its first KiB, and the one element RunPasses probes to list the constants still computed.
  EXPECT_EQ(*c.bytes["d"], size_t{1024 + 4}) << "d, alone in its start, was read beyond its first KiB";
}

// Constants a fold computes when needed are hashed from the bytes sampled alone: one without a twin is never made
// whole, and equal ones still merge (compared whole).
TEST(CommonSubexpressionEliminationPass, HashesComputedConstantsWithoutMakingThemWhole) {
  auto c = AddsOfComputedConstants({"w1", "w2", "w3"}, [](const std::string& name, size_t at) {
    const size_t mod = name == "w3" ? 5 : 7;  // w1 and w2 equal, w3 not
    return static_cast<float>(at % mod);
  });
  ASSERT_TRUE(c.model);
  auto run = RunPasses(*c.model, kCse);
  EXPECT_TRUE(run.changed());
  EXPECT_EQ(InitializerNames(*c.model), (std::vector<std::string>{"w1", "w3"}));
  std::vector<std::byte> probe(4);
  EXPECT_TRUE(c.buffers["w3"]->ComputeInto(0, probe)) << "w3 was made whole";
  EXPECT_LT(*c.bytes["w3"], kComputedCount * 4 / 4) << "w3 was read beyond its samples";
  EXPECT_FALSE(c.buffers["w1"]->ComputeInto(0, probe)) << "w1 and w2 are compared whole";
}

TEST(CommonSubexpressionEliminationPass, ComparesAttributes) {
  // Equal attributes merge (in any order); a different alpha or different dims do not.
  ExpectRewrite(R"(g (float[2,3] x) => (float[3,2] y, float[2] z, float[2,3] w) {
    a = LeakyRelu <alpha = 0.5> (x)
    b = LeakyRelu <alpha = 0.5> (x)
    c = LeakyRelu <alpha = 0.25> (x)
    t = Transpose <perm = [1, 0]> (a)
    u = Transpose <perm = [1, 0]> (b)
    y = Add(t, u)
    s1 = ReduceSum <keepdims = 0, noop_with_empty_axes = 0> (c)
    s2 = ReduceSum <noop_with_empty_axes = 0, keepdims = 0> (c)
    z = Add(s1, s2)
    w = Identity(c)
  })",
                R"(g (float[2,3] x) => (float[3,2] y, float[2] z, float[2,3] w) {
    a = LeakyRelu <alpha = 0.5> (x)
    c = LeakyRelu <alpha = 0.25> (x)
    t = Transpose <perm = [1, 0]> (a)
    y = Add(t, t)
    s1 = ReduceSum <keepdims = 0, noop_with_empty_axes = 0> (c)
    z = Add(s1, s1)
    w = Identity(c)
  })");
}

TEST(CommonSubexpressionEliminationPass, ComparesSubgraphsStructurally) {
  // Two Ifs on the same condition with equal branches (other value names) merge; a third, whose else-branch
  // differs, does not.
  ExpectRewrite(R"(g (bool c, float[2] x) => (float[2] y) {
    i1 = If(c) <then_branch = t1 () => (float[2] a1) { a1 = Relu(x) },
                 else_branch = e1 () => (float[2] b1) { b1 = Neg(x) }>
    i2 = If(c) <then_branch = t2 () => (float[2] a2) { a2 = Relu(x) },
                 else_branch = e2 () => (float[2] b2) { b2 = Neg(x) }>
    i3 = If(c) <then_branch = t3 () => (float[2] a3) { a3 = Relu(x) },
                 else_branch = e3 () => (float[2] b3) { b3 = Exp(x) }>
    s = Add(i1, i2)
    y = Add(s, i3)
  })",
                R"(g (bool c, float[2] x) => (float[2] y) {
    i1 = If(c) <then_branch = t1 () => (float[2] a1) { a1 = Relu(x) },
                 else_branch = e1 () => (float[2] b1) { b1 = Neg(x) }>
    i3 = If(c) <then_branch = t3 () => (float[2] a3) { a3 = Relu(x) },
                 else_branch = e3 () => (float[2] b3) { b3 = Exp(x) }>
    s = Add(i1, i1)
    y = Add(s, i3)
  })");
}

TEST(CommonSubexpressionEliminationPass, MergesInsideSubgraphs) {
  ExpectRewrite(R"(g (bool c, float[2] x) => (float[2] y) {
    y = If(c) <then_branch = t () => (float[2] ty) { p = Relu(x) q = Relu(x) ty = Add(p, q) },
                else_branch = e () => (float[2] ey) { ey = Neg(x) }>
  })",
                R"(g (bool c, float[2] x) => (float[2] y) {
    y = If(c) <then_branch = t () => (float[2] ty) { p = Relu(x) ty = Add(p, p) },
                else_branch = e () => (float[2] ey) { ey = Neg(x) }>
  })");
}

TEST(CommonSubexpressionEliminationPass, KeepsTheNodeThatIsAGraphOutput) {
  // a and y are equal; y is a graph output, so y stays and a's readers read y.
  ExpectRewrite(R"(g (float[2] x) => (float[2] y, float[2] z) {
    a = Relu(x)
    z = Neg(a)
    y = Relu(x)
  })",
                R"(g (float[2] x) => (float[2] y, float[2] z) {
    y = Relu(x)
    z = Neg(y)
  })");
}

// Interleaved sets of equal nodes: each merges into the first of its set kept, whatever came between; two equal
// graph outputs both stay, and a later twin of theirs merges into the first of them.
TEST(CommonSubexpressionEliminationPass, MergesEachSetOfEqualNodesIntoTheFirstKept) {
  ExpectRewrite(R"(g (float[2] x, float[2] w) => (float[2] o1, float[2] o2, float[2] y) {
    a = Relu(x)
    n1 = Neg(x)
    b = Relu(x)
    c = Relu(w)
    n2 = Neg(x)
    o1 = Sigmoid(x)
    o2 = Sigmoid(x)
    s3 = Sigmoid(x)
    d = Relu(x)
    y = Sum(a, b, c, d, n1, n2, s3)
  })",
                R"(g (float[2] x, float[2] w) => (float[2] o1, float[2] o2, float[2] y) {
    a = Relu(x)
    n1 = Neg(x)
    c = Relu(w)
    o1 = Sigmoid(x)
    o2 = Sigmoid(x)
    y = Sum(a, a, c, a, n1, n1, o1)
  })");
}

TEST(CommonSubexpressionEliminationPass, ChangesNothingWithoutDuplicates) {
  // Different ops, different inputs, different attributes; two equal nodes that are both graph outputs (merging
  // would rename one); random ops (equal-looking but not equal).
  ExpectNoChange(R"(g (float[2] x, float[2] w) => (float[2] y1, float[2] y2, float[2] r) {
    a = Relu(x)
    b = Relu(w)
    c = LeakyRelu <alpha = 0.5> (x)
    d = LeakyRelu <alpha = 0.25> (x)
    s = Sum(a, b, c, d)
    y1 = Sigmoid(s)
    y2 = Sigmoid(s)
    u1 = RandomUniformLike(x)
    u2 = RandomUniformLike(x)
    r = Add(u1, u2)
  })");
}

}  // namespace
}  // namespace kiln
