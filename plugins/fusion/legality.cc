#include "legality.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

namespace kiln::fusion {
namespace {

std::string Label(const sdk::Node& n) {
  return "node '" + std::string(n.Name().empty() ? n.OpType() : n.Name()) + "' (" + std::string(n.OpType()) + ")";
}

bool IsOnnxDomain(std::string_view d) { return d.empty() || d == "ai.onnx" || d == "ai.onnx.ml"; }

}  // namespace

std::string OpLegality(const sdk::Node& n) {
  std::string_view op = n.OpType();
  if (!IsOnnxDomain(n.Domain())) return Label(n) + " is of domain '" + std::string(n.Domain()) + "'";
  static const std::string_view kNondeterministic[] = {"RandomNormal", "RandomUniform", "RandomNormalLike",
                                                        "RandomUniformLike", "Multinomial", "Bernoulli"};
  if (std::find(std::begin(kNondeterministic), std::end(kNondeterministic), op) != std::end(kNondeterministic))
    return Label(n) + " is non-deterministic";
  if (op == "Dropout" && (n.InputCount() > 2 && n.Input(2))) return Label(n) + " may train (training_mode given)";
  if (op == "If" || op == "Loop" || op == "Scan" || op == "SequenceMap" || n.SubgraphCount() > 0)
    return Label(n) + " is control flow";
  if (op.rfind("Sequence", 0) == 0 || op == "SplitToSequence" || op == "ConcatFromSequence" ||
      op.rfind("Optional", 0) == 0)
    return Label(n) + " works on sequences or optionals";
  return "";
}

std::string GroupLegality(const sdk::Graph& graph, const std::vector<sdk::Node>& nodes,
                          const std::vector<sdk::Value>& outputs) {
  std::unordered_set<KilnNode*> in_group;
  for (const sdk::Node& n : nodes) {
    if (n.OwnerGraph() != graph) return Label(n) + " is in another graph";
    if (std::string why = OpLegality(n); !why.empty()) return why;
    in_group.insert(n.raw());
  }
  std::unordered_set<KilnValue*> allowed;
  for (const sdk::Value& v : outputs) allowed.insert(v.raw());
  // The nodes read from outside the group, and those nothing in the group reads (the group's sinks).
  size_t read_outside = 0, sinks = 0;
  KilnNode *exit = nullptr, *sink = nullptr;
  for (const sdk::Node& n : nodes) {
    bool outside = false, inside = false;
    for (const sdk::Value& out : n.Outputs()) {
      if (!out) continue;
      const bool is_output = allowed.count(out.raw()) != 0;
      if (out.IsGraphOutput() && !is_output) return "value '" + std::string(out.Name()) + "' of " + Label(n) + " is a graph output";
      for (const sdk::Use& u : out.Consumers()) {
        if (in_group.count(u.node.raw())) {
          inside = true;
          continue;
        }
        if (!is_output)
          return "value '" + std::string(out.Name()) + "' of " + Label(n) + " is read by " + Label(u.node) +
                 " outside the group";
        outside = true;
      }
    }
    if (outside) ++read_outside, exit = n.raw();
    if (!inside) ++sinks, sink = n.raw();
  }
  // Convex by the group's own edges: at most one node is read from outside, and it is the one node nothing in the
  // group reads. Every node of the group leads to it, so a path leaving the group (from it) and coming back would
  // lead to it again: a cycle, which the graph (acyclic at the pass's start, and kept so by outlining convex groups
  // only) cannot have. A pattern match whose only exit is its root is such a group (every matched node is an operand
  // of another, up to the root). The host's search, which needs the graph's topological order made again after
  // every outline, is left for the other groups: AutoFusionPass outlines as it goes, and on a 100k-node chain spent
  // 25 s remaking that order. (It used to be skipped whenever only the group's first node escaped, which for
  // AutoFusionPass's groups, listed in topological order, is not their root.)
  const bool convex_by_its_own_edges = read_outside <= 1 && sinks == 1 && (exit == nullptr || exit == sink);
  if (!convex_by_its_own_edges) {
    sdk::Node outside, inside;
    if (!sdk::AreConvex(nodes, &outside, &inside))
      return "the group is not convex: a path leaves it at " + Label(outside) + " and comes back at " + Label(inside);
  }
  return "";
}

std::vector<size_t> GroupsMakingCycles(const sdk::Graph& graph, const std::vector<std::vector<sdk::Node>>& groups,
                                       const std::vector<double>& priority) {
  // The condensed graph: every group is one vertex, every other node its own. A depth-first search finds back
  // edges; the weakest group on a cycle is dropped and the search repeats.
  std::vector<size_t> dropped;
  std::vector<sdk::Node> order = graph.TopoOrder();
  for (;;) {
    std::unordered_map<KilnNode*, int64_t> vertex;  // node -> vertex id (group index, or groups.size() + position)
    for (size_t i = 0; i < order.size(); ++i) vertex[order[i].raw()] = static_cast<int64_t>(groups.size() + i);
    for (size_t g = 0; g < groups.size(); ++g)
      if (std::find(dropped.begin(), dropped.end(), g) == dropped.end())
        for (const sdk::Node& n : groups[g]) vertex[n.raw()] = static_cast<int64_t>(g);
    std::unordered_map<int64_t, std::vector<int64_t>> succ;
    for (const sdk::Node& n : order) {
      int64_t from = vertex[n.raw()];
      for (const sdk::Value& out : n.Outputs()) {
        if (!out) continue;
        for (const sdk::Use& u : out.Consumers()) {
          auto it = vertex.find(u.node.raw());
          if (it != vertex.end() && it->second != from) succ[from].push_back(it->second);
        }
      }
    }
    // Depth-first search with colours and an explicit stack; on a back edge the cycle is the stack's tail.
    std::unordered_map<int64_t, int> colour;
    std::vector<int64_t> cycle;
    bool found = false;
    for (const auto& [root, _] : succ) {
      if (found || colour[root] != 0) continue;
      std::vector<std::pair<int64_t, size_t>> stack{{root, 0}};
      colour[root] = 1;
      while (!stack.empty() && !found) {
        auto& [v, next] = stack.back();
        static const std::vector<int64_t> kNone;
        auto found_succ = succ.find(v);
        const std::vector<int64_t>& out = found_succ == succ.end() ? kNone : found_succ->second;
        if (next == out.size()) {
          colour[v] = 2;
          stack.pop_back();
          continue;
        }
        int64_t w = out[next++];
        if (colour[w] == 1) {
          auto it = std::find_if(stack.begin(), stack.end(), [&](const auto& e) { return e.first == w; });
          for (; it != stack.end(); ++it) cycle.push_back(it->first);
          found = true;
        } else if (colour[w] == 0) {
          colour[w] = 1;
          stack.emplace_back(w, 0);
        }
      }
    }
    if (!found) return dropped;
    int64_t weakest = -1;
    for (int64_t v : cycle)
      if (v < static_cast<int64_t>(groups.size()) &&
          (weakest < 0 || priority[static_cast<size_t>(v)] < priority[static_cast<size_t>(weakest)]))
        weakest = v;
    if (weakest < 0) return dropped;  // a cycle of plain nodes: the graph itself is cyclic, nothing to drop
    dropped.push_back(static_cast<size_t>(weakest));
  }
}

}  // namespace kiln::fusion
