// Dominator and post-dominator trees (host/analysis/dominators.h) on small graphs worked out by hand: a diamond, a
// chain, several sources and sinks, graph inputs and outputs in the middle, nodes whose subgraphs read outer values;
// and on random DAGs against the definition (every path from the entry to b passes a), computed by brute force.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <vector>

#include "analysis/dominators.h"
#include "analysis_test_util.h"

namespace kiln {
namespace {

using testing::M;
using testing::N;
using testing::NameOf;
using testing::ParseModel;

// Immediate dominators ("-" for none) of every named node, as "name:idom" pairs.
std::map<std::string, std::string> Idoms(const Graph& g, const std::vector<std::string>& names, bool post = false) {
  std::map<std::string, std::string> out;
  for (const std::string& n : names) {
    Node* d = post ? ImmediatePostDominator(*N(g, n)) : ImmediateDominator(*N(g, n));
    out[n] = d ? NameOf(d) : "-";
  }
  return out;
}

TEST(Dominators, Diamond) {
  auto m = ParseModel(M(R"(g (float[2] x) => (float[2] y) {
    a = Relu(x)
    b = Neg(a)
    c = Exp(a)
    y = Add(b, c)
  })"));
  ASSERT_TRUE(m);
  const Graph& g = m->graph();
  const std::vector<std::string> all = {"a", "b", "c", "y"};
  EXPECT_EQ(Idoms(g, all), (std::map<std::string, std::string>{{"a", "-"}, {"b", "a"}, {"c", "a"}, {"y", "a"}}));
  EXPECT_EQ(Idoms(g, all, true),
            (std::map<std::string, std::string>{{"a", "y"}, {"b", "y"}, {"c", "y"}, {"y", "-"}}));
  EXPECT_TRUE(Dominates(*N(g, "a"), *N(g, "y")));
  EXPECT_FALSE(Dominates(*N(g, "b"), *N(g, "y")));
  EXPECT_FALSE(Dominates(*N(g, "b"), *N(g, "c")));
  EXPECT_FALSE(Dominates(*N(g, "y"), *N(g, "a")));
  EXPECT_TRUE(PostDominates(*N(g, "y"), *N(g, "a")));
  EXPECT_FALSE(PostDominates(*N(g, "b"), *N(g, "a")));
  EXPECT_FALSE(PostDominates(*N(g, "a"), *N(g, "y")));
  for (const std::string& n : all) {  // a node (post-)dominates itself
    EXPECT_TRUE(Dominates(*N(g, n), *N(g, n))) << n;
    EXPECT_TRUE(PostDominates(*N(g, n), *N(g, n))) << n;
  }
}

TEST(Dominators, Chain) {
  auto m = ParseModel(M(R"(g (float[2] x) => (float[2] y) {
    a = Relu(x)
    b = Neg(a)
    c = Exp(b)
    y = Abs(c)
  })"));
  ASSERT_TRUE(m);
  const Graph& g = m->graph();
  const std::vector<std::string> all = {"a", "b", "c", "y"};
  EXPECT_EQ(Idoms(g, all), (std::map<std::string, std::string>{{"a", "-"}, {"b", "a"}, {"c", "b"}, {"y", "c"}}));
  EXPECT_EQ(Idoms(g, all, true),
            (std::map<std::string, std::string>{{"a", "b"}, {"b", "c"}, {"c", "y"}, {"y", "-"}}));
  for (size_t i = 0; i < all.size(); ++i)
    for (size_t j = 0; j < all.size(); ++j) {
      EXPECT_EQ(Dominates(*N(g, all[i]), *N(g, all[j])), i <= j) << all[i] << " " << all[j];
      EXPECT_EQ(PostDominates(*N(g, all[i]), *N(g, all[j])), i >= j) << all[i] << " " << all[j];
    }
}

TEST(Dominators, SeveralSourcesAndSinks) {
  // Two inputs, a Constant node, an initializer, two outputs and a node no one reads. The entry precedes a, b and
  // k (they read graph inputs, or nothing); reading the initializer w joins nothing. The exit follows y, w2 (graph
  // outputs) and e (no reader).
  auto m = ParseModel(M(R"(g (float[2] x, float[2] z) => (float[2] y, float[2] w2) <float[2] w = {1.0, 2.0}> {
    a = Relu(x)
    b = Relu(z)
    k = Constant <value = float[2] {3.0, 4.0}> ()
    c = Add(a, b)
    d = Mul(c, k)
    f = Mul(c, w)
    y = Add(d, f)
    w2 = Exp(c)
    e = Abs(a)
  })"));
  ASSERT_TRUE(m);
  const Graph& g = m->graph();
  const std::vector<std::string> all = {"a", "b", "k", "c", "d", "f", "y", "w2", "e"};
  EXPECT_EQ(Idoms(g, all), (std::map<std::string, std::string>{{"a", "-"},
                                                                {"b", "-"},
                                                                {"k", "-"},
                                                                {"c", "-"},  // a and b meet only at the entry
                                                                {"d", "-"},  // c and the Constant k
                                                                {"f", "c"},  // c and an initializer
                                                                {"y", "-"},
                                                                {"w2", "c"},
                                                                {"e", "a"}}));
  EXPECT_EQ(Idoms(g, all, true), (std::map<std::string, std::string>{{"a", "-"},  // c and e part until the exit
                                                                      {"b", "c"},
                                                                      {"k", "d"},
                                                                      {"c", "-"},  // y and w2 are outputs
                                                                      {"d", "y"},
                                                                      {"f", "y"},
                                                                      {"y", "-"},
                                                                      {"w2", "-"},
                                                                      {"e", "-"}}));
  EXPECT_TRUE(Dominates(*N(g, "c"), *N(g, "w2")));
  EXPECT_FALSE(Dominates(*N(g, "a"), *N(g, "c")));
  EXPECT_FALSE(Dominates(*N(g, "c"), *N(g, "y")));
  EXPECT_TRUE(PostDominates(*N(g, "y"), *N(g, "f")));
  EXPECT_FALSE(PostDominates(*N(g, "y"), *N(g, "c")));
}

TEST(Dominators, GraphInputsAndOutputsInTheMiddle) {
  // b's output is a graph output that y also reads: only the exit post-dominates b. y reads the graph input x
  // again: only the entry dominates it, though every path through nodes passes a.
  auto m = ParseModel(M(R"(g (float[2] x) => (float[2] y, float[2] b) {
    a = Relu(x)
    b = Neg(a)
    y = Add(b, x)
  })"));
  ASSERT_TRUE(m);
  const Graph& g = m->graph();
  EXPECT_EQ(ImmediatePostDominator(*N(g, "b")), nullptr);
  EXPECT_EQ(ImmediatePostDominator(*N(g, "a")), N(g, "b"));
  EXPECT_EQ(ImmediateDominator(*N(g, "y")), nullptr);
  EXPECT_FALSE(Dominates(*N(g, "a"), *N(g, "y")));
  EXPECT_TRUE(Dominates(*N(g, "a"), *N(g, "b")));
}

const char* kIfModel = R"(g (float[2] x) => (float[2] y) <float[1] zero = {0.0}> {
    a = Relu(x)
    b = Neg(a)
    d = Exp(a)
    s = ReduceMax <keepdims = 0> (a)
    cnd = Greater(s, zero)
    i = If(cnd) <then_branch = t () => (float[2] ty) { u = Neg(b) ty = Abs(u) },
                 else_branch = e () => (float[2] ey) {
                   ey = If(cnd) <then_branch = t2 () => (float[2] v) { v = Sigmoid(d) },
                                 else_branch = e2 () => (float[2] w) { w = Identity(b) }> }>
    y = Tanh(i)
  })";

TEST(Dominators, NodesWhoseSubgraphsReadOuterValues) {
  // i reads b in its then-branch and d two levels down in its else-branch: it depends on cnd, b and d.
  auto m = ParseModel(M(kIfModel));
  ASSERT_TRUE(m);
  const Graph& g = m->graph();
  const std::vector<std::string> all = {"a", "b", "d", "s", "cnd", "i", "y"};
  EXPECT_EQ(Idoms(g, all), (std::map<std::string, std::string>{
                               {"a", "-"}, {"b", "a"}, {"d", "a"}, {"s", "a"}, {"cnd", "s"}, {"i", "a"}, {"y", "i"}}));
  EXPECT_EQ(Idoms(g, all, true), (std::map<std::string, std::string>{
                                     {"a", "i"}, {"b", "i"}, {"d", "i"}, {"s", "cnd"}, {"cnd", "i"}, {"i", "y"}, {"y", "-"}}));
  EXPECT_TRUE(Dominates(*N(g, "a"), *N(g, "i")));
  EXPECT_FALSE(Dominates(*N(g, "b"), *N(g, "i")));
  EXPECT_TRUE(PostDominates(*N(g, "i"), *N(g, "d")));

  // Inside the then-branch: u reads the outer b, which comes from outside the branch (the entry); ty is its output.
  Node* i = N(g, "i");
  const Graph& then_branch = *i->subgraphs()[0];
  Node* u = N(then_branch, "u");
  Node* ty = N(then_branch, "ty");
  EXPECT_EQ(ImmediateDominator(*u), nullptr);
  EXPECT_EQ(ImmediateDominator(*ty), u);
  EXPECT_EQ(ImmediatePostDominator(*u), ty);
  EXPECT_EQ(ImmediatePostDominator(*ty), nullptr);
  // No relation across graphs.
  EXPECT_FALSE(Dominates(*i, *u));
  EXPECT_FALSE(PostDominates(*u, *N(g, "b")));
}

TEST(Dominators, DeletedNodesReadAsNothing) {
  auto m = ParseModel(M(R"(g (float[2] x) => (float[2] y) {
    a = Relu(x)
    dead = Neg(a)
    y = Abs(a)
  })"));
  ASSERT_TRUE(m);
  Graph& g = m->graph();
  Node* dead = N(g, "dead");
  Node* a = N(g, "a");
  g.RemoveNode(dead);
  EXPECT_EQ(ImmediateDominator(*dead), nullptr);
  EXPECT_EQ(ImmediatePostDominator(*dead), nullptr);
  EXPECT_FALSE(Dominates(*a, *dead));
  EXPECT_FALSE(Dominates(*dead, *dead));
  EXPECT_EQ(ImmediatePostDominator(*a), N(g, "y"));  // dead no longer reads a
}

TEST(Dominators, ACyclicGraphGetsAnAnswer) {
  // A back edge (b -> a) counts as the entry for dominators and as the exit for post-dominators.
  auto m = ParseModel(M(R"(g (float[2] x) => (float[2] y) {
    a = Relu(x)
    b = Neg(a)
    y = Abs(b)
  })"));
  ASSERT_TRUE(m);
  Graph& g = m->graph();
  Node *a = N(g, "a"), *b = N(g, "b"), *y = N(g, "y");
  a->SetInput(1, b->output(0));
  EXPECT_EQ(ImmediateDominator(*a), nullptr);
  EXPECT_EQ(ImmediateDominator(*b), a);
  EXPECT_EQ(ImmediateDominator(*y), b);
  EXPECT_EQ(ImmediatePostDominator(*a), b);
  EXPECT_EQ(ImmediatePostDominator(*b), nullptr);  // read by y, and by a before it (the back edge)
  EXPECT_TRUE(Dominates(*a, *y));
}

// ---- random DAGs against the definition

struct RandomDag {
  std::unique_ptr<Model> model;
  std::vector<Node*> nodes;  // in creation order, which is not a topological order
};

// n nodes over two graph inputs and an initializer, wired in a random topological labelling unrelated to the
// order of creation; some nodes' outputs are graph outputs. With `reach`, a node reads only the `reach` nodes before
// it (and graph inputs): long chains, deep trees.
RandomDag MakeRandomDag(std::mt19937& rng, int n, int reach = 0) {
  RandomDag d;
  d.model = ParseModel(M(R"(g (float[2] x0, float[2] x1) => (float[2] o) <float[2] w = {1.0, 2.0}> {
    o = Identity(x0)
  })"));
  Graph& g = d.model->graph();
  for (int i = 0; i < n; ++i) d.nodes.push_back(g.AddNode("Op" + std::to_string(i), {}, 1));
  std::vector<int> rank(n);
  for (int i = 0; i < n; ++i) rank[i] = i;
  std::shuffle(rank.begin(), rank.end(), rng);  // rank[k]: the node at position k of the DAG's order
  std::vector<Value*> outer = {g.FindValue("x0"), g.FindValue("x1"), g.FindValue("w")};
  for (int k = 0; k < n; ++k) {
    Node* node = d.nodes[rank[k]];
    auto dice = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    int inputs = dice(0, reach > 0 ? 99 : 9) == 0 ? 0 : dice(1, 3);
    for (int s = 0; s < inputs; ++s) {
      // Mostly earlier nodes; now and then a graph input or the initializer.
      const int from = reach > 0 ? std::max(0, k - reach) : 0;
      const bool from_outside = k == 0 || dice(0, reach > 0 ? 99 : 9) < 2;
      Value* v = from_outside ? outer[dice(0, 2)] : d.nodes[rank[dice(from, k - 1)]]->output(0);
      node->SetInput(node->num_inputs(), v);
    }
  }
  for (Node* node : d.nodes)
    if (std::uniform_int_distribution<int>(0, reach > 0 ? 40 : 4)(rng) == 0) g.AppendOutput(node->output(0));
  d.nodes.push_back(N(g, "o"));
  return d;
}

// Brute force over the graph closed by the entry (index n) and the exit (n + 1), by the rules of dominators.h.
class Closure {
 public:
  explicit Closure(const RandomDag& d) : nodes_(d.nodes), n_(static_cast<int>(d.nodes.size())), succ_(n_ + 2) {
    std::map<const Node*, int> index;
    for (int i = 0; i < n_; ++i) index[nodes_[i]] = i;
    const Graph& g = *nodes_[0]->graph();
    for (int i = 0; i < n_; ++i) {
      bool has_producer = false;
      for (Value* v : nodes_[i]->inputs()) {
        if (v->producer() != nullptr) {
          succ_[index[v->producer()]].push_back(i);
          has_producer = true;
        } else if (v->is_graph_input()) {
          succ_[n_].push_back(i);
        }
      }
      if (!has_producer) succ_[n_].push_back(i);
      Value* out = nodes_[i]->output(0);
      bool is_output = std::find(g.outputs().begin(), g.outputs().end(), out) != g.outputs().end();
      if (is_output || out->uses().empty()) succ_[i].push_back(n_ + 1);
    }
  }

  // Whether `to` is reachable from `from` without passing `avoid`.
  bool Reachable(int from, int to, int avoid) const {
    std::vector<bool> seen(n_ + 2, false);
    std::vector<int> stack{from};
    seen[from] = true;
    while (!stack.empty()) {
      int u = stack.back();
      stack.pop_back();
      if (u == to) return true;
      for (int v : succ_[u])
        if (v != avoid && !seen[v]) seen[v] = true, stack.push_back(v);
    }
    return false;
  }
  bool Dom(int a, int b) const { return a == b || !Reachable(n_, b, a); }
  bool PostDom(int a, int b) const { return a == b || !Reachable(b, n_ + 1, a); }
  // The strict (post-)dominator of b that every other one (post-)dominates; -1 for none.
  int Immediate(int b, bool post) const {
    std::vector<int> strict;
    for (int a = 0; a < n_; ++a)
      if (a != b && (post ? PostDom(a, b) : Dom(a, b))) strict.push_back(a);
    for (int c : strict) {
      bool lowest = true;
      for (int o : strict) lowest = lowest && (post ? PostDom(o, c) : Dom(o, c));
      if (lowest) return c;
    }
    return -1;
  }
  int size() const { return n_; }

 private:
  std::vector<Node*> nodes_;
  int n_;
  std::vector<std::vector<int>> succ_;
};

TEST(Dominators, RandomDagsMatchTheDefinition) {
  std::mt19937 rng(20240611);
  int with_idom = 0, with_ipdom = 0;  // the generator must make answers other than "none"
  for (int round = 0; round < 40; ++round) {
    RandomDag d = MakeRandomDag(rng, 3 + round % 12);
    ASSERT_TRUE(d.model);
    Closure c(d);
    for (int b = 0; b < c.size(); ++b) {
      int idom = c.Immediate(b, false), ipdom = c.Immediate(b, true);
      with_idom += idom >= 0;
      with_ipdom += ipdom >= 0;
      EXPECT_EQ(ImmediateDominator(*d.nodes[b]), idom < 0 ? nullptr : d.nodes[idom]) << "round " << round << " node " << b;
      EXPECT_EQ(ImmediatePostDominator(*d.nodes[b]), ipdom < 0 ? nullptr : d.nodes[ipdom])
          << "round " << round << " node " << b;
      for (int a = 0; a < c.size(); ++a) {
        EXPECT_EQ(Dominates(*d.nodes[a], *d.nodes[b]), c.Dom(a, b)) << "round " << round << ": " << a << " dom " << b;
        EXPECT_EQ(PostDominates(*d.nodes[a], *d.nodes[b]), c.PostDom(a, b))
            << "round " << round << ": " << a << " postdom " << b;
      }
    }
  }
  RecordProperty("with_idom", with_idom);
  RecordProperty("with_ipdom", with_ipdom);
  EXPECT_GT(with_idom, 100);
  EXPECT_GT(with_ipdom, 50);
}

// Deep trees, where a common ancestor is found through long jumps: chains of a few hundred nodes, each reading
// from the few before it.
TEST(Dominators, DeepRandomDagsMatchTheDefinition) {
  std::mt19937 rng(20261207);
  int deepest = 0;  // the generator must make deep trees
  for (int round = 0; round < 6; ++round) {
    RandomDag d = MakeRandomDag(rng, 150 + 20 * round, /*reach=*/2 + round % 3);
    ASSERT_TRUE(d.model);
    Closure c(d);
    for (int b = 0; b < c.size(); ++b) {
      const int idom = c.Immediate(b, false), ipdom = c.Immediate(b, true);
      ASSERT_EQ(ImmediateDominator(*d.nodes[b]), idom < 0 ? nullptr : d.nodes[idom])
          << "round " << round << " node " << b;
      ASSERT_EQ(ImmediatePostDominator(*d.nodes[b]), ipdom < 0 ? nullptr : d.nodes[ipdom])
          << "round " << round << " node " << b;
      int depth = 0;
      for (const Node* n = d.nodes[b]; (n = ImmediateDominator(*n)) != nullptr;) ++depth;
      deepest = std::max(deepest, depth);
      for (int a = 0; a < c.size(); ++a) {
        ASSERT_EQ(Dominates(*d.nodes[a], *d.nodes[b]), c.Dom(a, b)) << "round " << round << ": " << a << " dom " << b;
        ASSERT_EQ(PostDominates(*d.nodes[a], *d.nodes[b]), c.PostDom(a, b))
            << "round " << round << ": " << a << " postdom " << b;
      }
    }
  }
  RecordProperty("deepest", deepest);
  EXPECT_GT(deepest, 20);
}

}  // namespace
}  // namespace kiln
