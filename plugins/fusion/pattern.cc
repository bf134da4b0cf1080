// The pattern parser: a recursive descent over the grammar in pattern.h.
//
//   alt    := term ('|' term)*
//   term   := '_' | var | op
//   op     := [domain '.'] OpType ['?'] ['@' label] [attrs] '(' [alt (',' alt)*] [',' '...'] ')'
//   attrs  := '{' name ':' value (',' name ':' value)* '}'
//   value  := number | string | '[' number (',' number)* ']'
// A name starting with a capital letter (after an optional dotted domain) is an op type; one starting with a
// lowercase letter is a variable.
#include "pattern.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>

namespace kiln::fusion {
namespace {

class Parser {
 public:
  explicit Parser(std::string_view s) : s_(s) {}

  std::unique_ptr<Pattern> ParseAll() {
    auto p = Alt();
    Skip();
    if (pos_ != s_.size()) Fail("unexpected '" + std::string(1, s_[pos_]) + "'");
    return p;
  }

 private:
  [[noreturn]] void Fail(const std::string& what) { throw PatternError{what, pos_}; }

  void Skip() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  bool Eat(char c) {
    Skip();
    if (pos_ < s_.size() && s_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  void Expect(char c) {
    if (!Eat(c)) Fail(std::string("expected '") + c + "'");
  }
  static bool IsNameChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

  std::string Name() {
    Skip();
    size_t start = pos_;
    while (pos_ < s_.size() && IsNameChar(s_[pos_])) ++pos_;
    if (start == pos_) Fail("expected a name");
    return std::string(s_.substr(start, pos_ - start));
  }

  std::unique_ptr<Pattern> Alt() {
    Skip();
    size_t start = pos_;
    auto first = Term();
    if (!Eat('|')) return first;
    auto alt = std::make_unique<Pattern>();
    alt->kind = Pattern::Kind::kAlt;
    alt->offset = start;
    alt->args.push_back(std::move(first));
    do alt->args.push_back(Term());
    while (Eat('|'));
    return alt;
  }

  std::unique_ptr<Pattern> Term() {
    Skip();
    auto p = std::make_unique<Pattern>();
    p->offset = pos_;
    if (pos_ >= s_.size()) Fail("expected an op, a variable or '_'");
    if (Eat('(')) {  // grouping: (A | B)
      auto inner = Alt();
      Expect(')');
      return inner;
    }
    if (s_[pos_] == '_' && (pos_ + 1 >= s_.size() || !IsNameChar(s_[pos_ + 1]))) {
      ++pos_;
      p->kind = Pattern::Kind::kAny;
      return p;
    }
    // A dotted name: its last part decides op or variable.
    std::vector<std::string> parts{Name()};
    while (pos_ < s_.size() && s_[pos_] == '.' && pos_ + 1 < s_.size() && IsNameChar(s_[pos_ + 1])) {
      ++pos_;
      parts.push_back(Name());
    }
    const std::string& last = parts.back();
    if (std::islower(static_cast<unsigned char>(last[0])) || last[0] == '_') {
      if (parts.size() > 1) Fail("a variable cannot have a domain");
      p->kind = Pattern::Kind::kVar;
      p->var = last;
      return p;
    }
    p->kind = Pattern::Kind::kOp;
    p->op_type = last;
    for (size_t i = 0; i + 1 < parts.size(); ++i) p->domain += (i ? "." : "") + parts[i];
    if (p->domain == "ai.onnx") p->domain.clear();
    if (Eat('?')) p->optional = true;
    if (Eat('@')) p->label = Name();
    if (Eat('{')) {
      do {
        AttrPredicate a;
        a.name = Name();
        Expect(':');
        a.value = Value();
        p->attrs.push_back(std::move(a));
      } while (Eat(','));
      Expect('}');
    }
    Expect('(');
    if (!Eat(')')) {
      do {
        Skip();
        if (s_.substr(pos_, 3) == "...") {
          pos_ += 3;
          p->more_inputs = true;
          break;
        }
        p->args.push_back(Alt());
      } while (Eat(','));
      Expect(')');
    }
    if (p->optional && p->args.size() != 1) Fail("an optional op (" + p->op_type + "?) takes exactly one argument");
    return p;
  }

  double Number() {
    Skip();
    const char* begin = s_.data() + pos_;
    char* end = nullptr;
    std::string copy(s_.substr(pos_, std::min<size_t>(64, s_.size() - pos_)));
    double v = std::strtod(copy.c_str(), &end);
    size_t used = static_cast<size_t>(end - copy.c_str());
    if (used == 0) Fail("expected a number");
    (void)begin;
    pos_ += used;
    return v;
  }

  AttrValue Value() {
    Skip();
    AttrValue v;
    if (Eat('[')) {
      v.kind = AttrValue::Kind::kList;
      if (!Eat(']')) {
        do v.list.push_back(Number());
        while (Eat(','));
        Expect(']');
      }
      return v;
    }
    if (pos_ < s_.size() && (s_[pos_] == '"' || s_[pos_] == '\'')) {
      char q = s_[pos_++];
      size_t start = pos_;
      while (pos_ < s_.size() && s_[pos_] != q) ++pos_;
      if (pos_ >= s_.size()) Fail("unterminated string");
      v.kind = AttrValue::Kind::kString;
      v.text = std::string(s_.substr(start, pos_ - start));
      ++pos_;
      return v;
    }
    if (pos_ < s_.size() && std::isalpha(static_cast<unsigned char>(s_[pos_]))) {
      v.kind = AttrValue::Kind::kString;
      v.text = Name();
      return v;
    }
    v.number = Number();
    return v;
  }

  std::string_view s_;
  size_t pos_ = 0;
};

}  // namespace

std::unique_ptr<Pattern> ParsePattern(std::string_view text) { return Parser(text).ParseAll(); }

bool IsCommutative(std::string_view domain, std::string_view op) {
  if (!domain.empty()) return false;
  static const std::string_view kOps[] = {"Add", "Mul", "Max", "Min", "And", "Or", "Xor", "Equal", "Sum", "Mean"};
  return std::find(std::begin(kOps), std::end(kOps), op) != std::end(kOps);
}

std::vector<std::string> RootOpTypes(const Pattern& p) {
  std::vector<std::string> out;
  if (p.kind == Pattern::Kind::kOp) out.push_back(p.op_type);
  if (p.kind == Pattern::Kind::kOp && p.optional)  // Cast?(Add(..)) at the root: the root may be the Add
    for (std::string& t : RootOpTypes(*p.args[0])) out.push_back(std::move(t));
  if (p.kind == Pattern::Kind::kAlt)
    for (const auto& a : p.args)
      for (std::string& t : RootOpTypes(*a)) out.push_back(std::move(t));
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<std::string> RequiredOperandOps(const Pattern& root,
                                            const std::map<std::string, std::unique_ptr<Pattern>>& lets) {
  std::vector<std::string> out;
  if (root.kind != Pattern::Kind::kOp || root.optional) return out;
  for (const auto& arg : root.args) {
    const Pattern* p = arg.get();
    if (p->kind == Pattern::Kind::kVar)
      if (auto let = lets.find(p->var); let != lets.end()) p = let->second.get();
    if (p->kind == Pattern::Kind::kOp && !p->optional) out.push_back(p->op_type);
  }
  return out;
}

int CountOps(const Pattern& p) {
  switch (p.kind) {
    case Pattern::Kind::kOp: {
      int n = 1;
      for (const auto& a : p.args) n += CountOps(*a);
      return n;
    }
    case Pattern::Kind::kAlt: {
      int best = 0;
      for (const auto& a : p.args) best = std::max(best, CountOps(*a));
      return best;
    }
    default: return 0;
  }
}

void CollectNames(const Pattern& p, std::vector<std::string>& vars, std::vector<std::string>& labels) {
  if (p.kind == Pattern::Kind::kVar && std::find(vars.begin(), vars.end(), p.var) == vars.end()) vars.push_back(p.var);
  if (p.kind == Pattern::Kind::kOp && !p.label.empty() &&
      std::find(labels.begin(), labels.end(), p.label) == labels.end())
    labels.push_back(p.label);
  for (const auto& a : p.args) CollectNames(*a, vars, labels);
}

}  // namespace kiln::fusion
