// Matching one rule's pattern at one node: a backtracking walk from the root's output up its producers, trying
// alternatives in order, commutative operands both ways, optional nodes present and absent, and binding each
// variable once (a variable met again must be the same value). Then the rule's predicates (`where:`) and opset range
// are checked on what was bound. Matching reads the graph and changes nothing.
#pragma once

#include <kiln/kiln_plugin.hpp>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "rule.h"

namespace kiln::fusion {

struct Match {
  const Rule* rule = nullptr;
  sdk::Node root;
  std::vector<sdk::Node> nodes;  // every op node matched, each once, root first
  // Names point into the rule (which outlives the match).
  std::vector<std::pair<const std::string*, sdk::Value>> vars;
  std::vector<std::pair<const std::string*, sdk::Node>> labels;

  sdk::Value Var(std::string_view name) const;
  sdk::Node Label(std::string_view name) const;
  // A variable's value, or a label's output 0.
  sdk::Value ValueOf(std::string_view name) const;
};

// Tries `rule` with its root at `root`'s output 0; `opset` is the graph's default-domain opset.
std::optional<Match> MatchRule(const Rule& rule, sdk::Node root, int64_t opset);

// The op types of the nodes making a node's inputs, read once for all the rules tried at it. Most rules tried at a
// node fail on an operand made by the wrong op; MayMatch tells those apart without starting the search.
class RootOperands {
 public:
  explicit RootOperands(const sdk::Node& root);
  // False when `rule` needs an operand made by an op that makes none of the inputs (Rule::operand_ops): MatchRule
  // would find nothing. True says nothing.
  bool MayMatch(const Rule& rule) const;

 private:
  std::vector<std::string_view> ops_;
};

// The scalar value of a constant whose elements are all equal (any numeric type), or nullopt.
std::optional<double> UniformConstant(const sdk::Value& v);

}  // namespace kiln::fusion
