// The pattern language of fusion rules (configs/fusion/README.md has the grammar), parsed into a tree.
//
//   Mul(Mul(x, Add(Erf(Div(x, s)), one)), half)          ops with variables; x twice = the same value
//   Cast?(x)                                              an optional node: Cast(x), or x itself
//   Pow(d, two) | Mul(d, d)                               alternatives, tried in order
//   ReduceMean{axes: [-1], keepdims: 1}(x)                attribute predicates
//   Add@bias(MatMul(a, w), b)                             a label, to name the node in an action
//   Concat(a, b, ...)                                     more inputs may follow
//   com.microsoft.Gelu(x)                                 a domain before the op type
//   _                                                     any value, not bound
//
// Add, Mul, Max, Min, And, Or, Xor, Equal and Sum with two operands match their operands in either order.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::fusion {

// An attribute predicate's value: a number, a string, or a list of numbers.
struct AttrValue {
  enum class Kind { kNumber, kString, kList } kind = Kind::kNumber;
  double number = 0;
  std::string text;
  std::vector<double> list;
};

struct AttrPredicate {
  std::string name;
  AttrValue value;
};

struct Pattern {
  enum class Kind { kOp, kVar, kAny, kAlt } kind = Kind::kVar;
  // kOp
  std::string domain, op_type, label;
  bool optional = false;       // Cast?(x): the node may be absent (then its single argument matches the value)
  bool more_inputs = false;    // "..." after the arguments
  std::vector<AttrPredicate> attrs;
  std::vector<std::unique_ptr<Pattern>> args;  // kOp: inputs in order; kAlt: the alternatives
  // kVar
  std::string var;
  // Where it starts in the pattern text (for messages).
  size_t offset = 0;
};

// Parses `text`; on error throws PatternError with the offset of the problem.
std::unique_ptr<Pattern> ParsePattern(std::string_view text);

struct PatternError {
  std::string message;
  size_t offset;
};

// Whether the op's two operands commute (Add, Mul, ...).
bool IsCommutative(std::string_view domain, std::string_view op_type);

// Every op type a pattern's root can be (its alternatives' roots); empty when the root is not an op.
std::vector<std::string> RootOpTypes(const Pattern& p);
// The op types that the nodes making the root node's operands must have for `root` (with its rule's `lets`) to
// match: one for each operand pattern that is an op that cannot be absent, written there or as its variable's let.
// Empty when the root is an alternative or optional (the node may then match another part of it).
std::vector<std::string> RequiredOperandOps(const Pattern& root,
                                            const std::map<std::string, std::unique_ptr<Pattern>>& lets);
// The number of op nodes in the longest alternative (the default benefit).
int CountOps(const Pattern& p);
// Every variable and label the pattern binds.
void CollectNames(const Pattern& p, std::vector<std::string>& vars, std::vector<std::string>& labels);

}  // namespace kiln::fusion
