// A fusion rule as loaded from a pack (rule_loader.h): a pattern, predicates on what it binds, a benefit, and an
// action. `fuse` outlines the matched nodes into one call of a model-local function in domain kiln.fused;
// `rewrite` replaces them by standard ONNX ops (or by one of the values the pattern bound).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "expr.h"
#include "pattern.h"

namespace kiln::fusion {

// Where a rule or one of its parts was written, for messages: "norms.yaml:12:5".
struct SourcePos {
  std::string file;
  int line = 0, column = 0;
  std::string ToString() const { return file + ":" + std::to_string(line) + ":" + std::to_string(column); }
};

// What `where:` says of one variable.
struct ValuePredicate {
  std::optional<Expr> equals;       // a constant whose elements all equal this value
  double tolerance = 1e-6;          // relative (absolute below 1)
  bool constant = false;            // a constant (initializer that is no graph input, or a Constant output)
  bool scalar = false;              // a constant with one element
  std::vector<int64_t> ranks;       // one of these ranks
  std::vector<int32_t> elem_types;  // one of these element types (ONNX numbers)
  std::optional<std::vector<int64_t>> shape;  // these dims (-1: any)
  bool static_shape = false;
  std::vector<std::string> same_shape_as;  // the same (known) shape as these variables or labels
  bool single_use = false;          // read by one node only
};

// A replacement tree of a `rewrite` action.
struct Replacement {
  enum class Kind { kOp, kVar, kFunction } kind = Kind::kVar;
  std::string domain, op_type;  // kOp
  struct Attr {
    std::string name;
    enum class Kind { kLiteral, kFloatExpr, kIntExpr, kCopy } kind = Kind::kLiteral;
    AttrValue literal;
    bool literal_is_float = false;  // written with '.' or an exponent: a FLOAT(S) attribute, else INT(S)
    std::optional<Expr> expr;
    std::string copy_label, copy_name;  // kCopy: @label.name
  };
  std::vector<Attr> attrs;
  std::vector<std::unique_ptr<Replacement>> args;  // kOp inputs; kFunction arguments
  std::string var;       // kVar
  std::string function;  // kFunction: recip, neg, mul, add, sub, div (element-wise on constants)
};

struct Rule {
  std::string name, pack;
  std::string comment;  // the rewrite shown as a comment in the pack
  SourcePos pos;
  std::unique_ptr<Pattern> pattern;
  std::map<std::string, std::unique_ptr<Pattern>> lets;  // variables defined by a sub-pattern
  std::map<std::string, ValuePredicate> where;
  int benefit = 0;
  enum class Action { kFuse, kRewrite } action = Action::kFuse;
  std::string fuse_name;                  // kFuse: the function's name
  std::vector<std::string> extra_outputs;  // kFuse: values (variables or labels) that may be read outside
  std::unique_ptr<Replacement> rewrite;   // kRewrite
  int64_t min_opset = 0, max_opset = 0;   // of the default domain; 0: any
  // The op types the producers of the root's operands must have in any match (RequiredOperandOps).
  std::vector<std::string> operand_ops;
};

struct RulePack {
  std::string name, source, description;
  std::vector<Rule> rules;
};

}  // namespace kiln::fusion
