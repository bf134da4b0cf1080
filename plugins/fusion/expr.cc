#include "expr.h"

#include <cctype>
#include <cmath>
#include <cstdlib>

#include "pattern.h"

namespace kiln::fusion {

struct Expr::Node {
  enum class Kind { kNumber, kBinary, kNeg, kCall } kind = Kind::kNumber;
  double number = 0;
  char op = 0;
  std::string name;  // kCall
  std::vector<std::shared_ptr<const Node>> args;
  std::string var;   // kCall on a variable: dim/rank/value
};

namespace {

using NodeP = std::shared_ptr<const Expr::Node>;

class ExprParser {
 public:
  explicit ExprParser(std::string_view s) : s_(s) {}
  NodeP All() {
    NodeP n = Sum();
    Skip();
    if (pos_ != s_.size()) throw PatternError{"unexpected '" + std::string(1, s_[pos_]) + "' in expression", pos_};
    return n;
  }

 private:
  void Skip() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  bool Eat(char c) {
    Skip();
    if (pos_ < s_.size() && s_[pos_] == c) return ++pos_, true;
    return false;
  }
  NodeP Binary(char op, NodeP a, NodeP b) {
    auto n = std::make_shared<Expr::Node>();
    n->kind = Expr::Node::Kind::kBinary;
    n->op = op;
    n->args = {std::move(a), std::move(b)};
    return n;
  }
  NodeP Sum() {
    NodeP n = Product();
    for (;;) {
      if (Eat('+')) n = Binary('+', n, Product());
      else if (Eat('-')) n = Binary('-', n, Product());
      else return n;
    }
  }
  NodeP Product() {
    NodeP n = Power();
    for (;;) {
      if (Eat('*')) n = Binary('*', n, Power());
      else if (Eat('/')) n = Binary('/', n, Power());
      else return n;
    }
  }
  NodeP Power() {
    NodeP n = Unary();
    if (Eat('^')) n = Binary('^', n, Unary());
    return n;
  }
  NodeP Unary() {
    if (Eat('-')) {
      auto n = std::make_shared<Expr::Node>();
      n->kind = Expr::Node::Kind::kNeg;
      n->args = {Unary()};
      return n;
    }
    return Atom();
  }
  NodeP Atom() {
    Skip();
    if (Eat('(')) {
      NodeP n = Sum();
      if (!Eat(')')) throw PatternError{"expected ')' in expression", pos_};
      return n;
    }
    if (pos_ < s_.size() && (std::isalpha(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_')) {
      size_t start = pos_;
      while (pos_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_')) ++pos_;
      std::string name(s_.substr(start, pos_ - start));
      auto n = std::make_shared<Expr::Node>();
      if (name == "pi" || name == "e") {
        n->number = name == "pi" ? M_PI : M_E;
        return n;
      }
      if (!Eat('(')) throw PatternError{"'" + name + "' is not a constant; functions take arguments", start};
      n->kind = Expr::Node::Kind::kCall;
      n->name = name;
      if (name == "dim" || name == "rank" || name == "value") {
        Skip();
        size_t vs = pos_;
        while (pos_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_')) ++pos_;
        n->var = std::string(s_.substr(vs, pos_ - vs));
        if (n->var.empty()) throw PatternError{name + "() needs a variable", vs};
        if (name == "dim") {
          if (!Eat(',')) throw PatternError{"dim(v, i) needs an index", pos_};
          n->args.push_back(Sum());
        }
      } else {
        static const char* kFns[] = {"sqrt", "exp", "log", "abs", "tanh", "erf", "min", "max"};
        bool known = false;
        for (const char* f : kFns) known = known || name == f;
        if (!known) throw PatternError{"unknown function '" + name + "'", start};
        if (!Eat(')')) {
          do n->args.push_back(Sum());
          while (Eat(','));
        } else {
          return n;
        }
      }
      if (!Eat(')')) throw PatternError{"expected ')' after the arguments of " + name, pos_};
      return n;
    }
    const std::string rest(s_.substr(pos_, std::min<size_t>(64, s_.size() - pos_)));
    char* end = nullptr;
    double v = std::strtod(rest.c_str(), &end);
    if (end == rest.c_str()) throw PatternError{"expected a number", pos_};
    pos_ += static_cast<size_t>(end - rest.c_str());
    auto n = std::make_shared<Expr::Node>();
    n->number = v;
    return n;
  }

  std::string_view s_;
  size_t pos_ = 0;
};

std::optional<double> Eval(const Expr::Node& n, const ExprContext& ctx) {
  using K = Expr::Node::Kind;
  switch (n.kind) {
    case K::kNumber: return n.number;
    case K::kNeg: {
      auto a = Eval(*n.args[0], ctx);
      return a ? std::optional<double>(-*a) : std::nullopt;
    }
    case K::kBinary: {
      auto a = Eval(*n.args[0], ctx), b = Eval(*n.args[1], ctx);
      if (!a || !b) return std::nullopt;
      switch (n.op) {
        case '+': return *a + *b;
        case '-': return *a - *b;
        case '*': return *a * *b;
        case '/': return *b == 0 ? std::nullopt : std::optional<double>(*a / *b);
        default: return std::pow(*a, *b);
      }
    }
    case K::kCall: {
      if (n.name == "dim") {
        auto i = Eval(*n.args[0], ctx);
        return i && ctx.dim ? ctx.dim(n.var, static_cast<int64_t>(*i)) : std::nullopt;
      }
      if (n.name == "rank") return ctx.rank ? ctx.rank(n.var) : std::nullopt;
      if (n.name == "value") return ctx.value ? ctx.value(n.var) : std::nullopt;
      std::vector<double> a;
      for (const auto& arg : n.args) {
        auto v = Eval(*arg, ctx);
        if (!v) return std::nullopt;
        a.push_back(*v);
      }
      if (a.empty()) return std::nullopt;
      if (n.name == "sqrt") return a[0] < 0 ? std::nullopt : std::optional<double>(std::sqrt(a[0]));
      if (n.name == "exp") return std::exp(a[0]);
      if (n.name == "log") return a[0] <= 0 ? std::nullopt : std::optional<double>(std::log(a[0]));
      if (n.name == "abs") return std::fabs(a[0]);
      if (n.name == "tanh") return std::tanh(a[0]);
      if (n.name == "erf") return std::erf(a[0]);
      double r = a[0];
      for (double x : a) r = n.name == "min" ? std::min(r, x) : std::max(r, x);
      return r;
    }
  }
  return std::nullopt;
}

void CollectVars(const Expr::Node& n, std::vector<std::string>& out) {
  if (!n.var.empty()) out.push_back(n.var);
  for (const auto& a : n.args) CollectVars(*a, out);
}

}  // namespace

Expr Expr::Parse(std::string_view text) {
  Expr e;
  e.text_ = std::string(text);
  e.root_ = ExprParser(text).All();
  return e;
}

std::optional<double> Expr::Eval(const ExprContext& ctx) const {
  auto v = fusion::Eval(*root_, ctx);
  return v && std::isfinite(*v) ? v : std::nullopt;
}

std::vector<std::string> Expr::Vars() const {
  std::vector<std::string> out;
  CollectVars(*root_, out);
  return out;
}

}  // namespace kiln::fusion
