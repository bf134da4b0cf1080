// Numeric expressions in fusion rules: constant predicates (`const: sqrt(2)`, `const: 1/sqrt(dim(q, -1))`) and
// attribute values of rewrites (`epsilon: $(value(eps))`).
//
//   expr := sum ; sum := product (('+'|'-') product)* ; product := power (('*'|'/') power)*
//   power := unary ('^' unary)? ; unary := '-' unary | atom
//   atom := number | 'pi' | 'e' | name '(' args ')' | '(' expr ')'
//   functions: sqrt, exp, log, abs, tanh, erf, min, max, and on bound variables dim(v, i) (a static dimension;
//   negative i counts from the end), rank(v), value(v) (the single value of a constant whose elements are all
//   equal).
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::fusion {

// What an expression may ask of the variables a match bound; nullopt: not known (the expression has no value).
struct ExprContext {
  std::function<std::optional<double>(const std::string& var, int64_t index)> dim;
  std::function<std::optional<double>(const std::string& var)> rank;
  std::function<std::optional<double>(const std::string& var)> value;
};

class Expr {
 public:
  // Throws PatternError (pattern.h) with the offset of a syntax error.
  static Expr Parse(std::string_view text);
  // nullopt when a variable's dimension, rank or value is not known, or the result is not finite.
  std::optional<double> Eval(const ExprContext& ctx) const;
  // The variables it reads.
  std::vector<std::string> Vars() const;
  const std::string& text() const { return text_; }

  struct Node;

 private:
  std::string text_;
  std::shared_ptr<const Node> root_;
};

}  // namespace kiln::fusion
