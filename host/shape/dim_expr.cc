// DimExpr: see dim_expr.h.
#include "shape/dim_expr.h"

#include <algorithm>
#include <cctype>
#include <utility>

namespace kiln {
namespace {

bool IsIdentifier(std::string_view s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  return std::all_of(s.begin(), s.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

std::optional<int64_t> CheckedMul(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
  return r;
}

std::optional<int64_t> CheckedAdd(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
  return r;
}

int64_t FloorDivInt(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

std::string MonomialText(const DimExpr::Monomial& m) {
  std::string s;
  for (const auto& a : m) {
    if (!s.empty()) s += "*";
    s += a->key;
  }
  return s;
}

// ---- the text form's parser
class Parser {
 public:
  explicit Parser(std::string_view s) : s_(s) {}

  std::optional<DimExpr> ParseAll() {
    auto e = Expr();
    Skip();
    if (!e || pos_ != s_.size()) return std::nullopt;
    return e;
  }

 private:
  void Skip() {
    while (pos_ < s_.size() && s_[pos_] == ' ') ++pos_;
  }
  bool Eat(std::string_view t) {
    Skip();
    if (s_.substr(pos_, t.size()) != t) return false;
    pos_ += t.size();
    return true;
  }

  std::optional<DimExpr> Expr() {
    auto e = Term();
    while (e) {
      if (Eat("+")) {
        auto r = Term();
        e = r ? Add(*e, *r) : std::nullopt;
      } else if (Eat("-")) {
        auto r = Term();
        e = r ? Sub(*e, *r) : std::nullopt;
      } else {
        break;
      }
    }
    return e;
  }

  std::optional<DimExpr> Term() {
    auto e = Unary();
    while (e) {
      if (Eat("//")) {
        auto r = Unary();
        e = r ? FloorDiv(*e, *r) : std::nullopt;
      } else if (Eat("*")) {
        auto r = Unary();
        e = r ? Mul(*e, *r) : std::nullopt;
      } else {
        break;
      }
    }
    return e;
  }

  std::optional<DimExpr> Unary() {
    if (Eat("-")) {
      auto e = Unary();
      return e ? Mul(DimExpr(-1), *e) : std::nullopt;
    }
    return Primary();
  }

  std::optional<DimExpr> Call(std::string_view name) {
    auto a = Expr();
    if (!a) return std::nullopt;
    if (name == "floor") {
      if (!Eat("/")) return std::nullopt;
      auto b = Expr();
      if (!b || !Eat(")")) return std::nullopt;
      return FloorDiv(*a, *b);
    }
    if (!Eat(",")) return std::nullopt;
    auto b = Expr();
    if (!b || !Eat(")")) return std::nullopt;
    if (name == "mod") return Mod(*a, *b);
    if (name == "min") return Min(*a, *b);
    return Max(*a, *b);
  }

  std::optional<DimExpr> Primary() {
    Skip();
    if (pos_ >= s_.size()) return std::nullopt;
    char c = s_[pos_];
    if (c == '(') {
      ++pos_;
      auto e = Expr();
      if (!e || !Eat(")")) return std::nullopt;
      return e;
    }
    if (c == '[') {
      size_t end = s_.find(']', pos_);
      if (end == std::string_view::npos) return std::nullopt;
      std::string name(s_.substr(pos_ + 1, end - pos_ - 1));
      pos_ = end + 1;
      return DimExpr::Symbol(std::move(name));
    }
    if (std::isdigit(static_cast<unsigned char>(c))) {
      int64_t v = 0;
      while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) {
        auto m = CheckedMul(v, 10);
        auto a = m ? CheckedAdd(*m, s_[pos_] - '0') : std::nullopt;
        if (!a) return std::nullopt;
        v = *a;
        ++pos_;
      }
      return DimExpr(v);
    }
    size_t start = pos_;
    while (pos_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_')) ++pos_;
    std::string_view ident = s_.substr(start, pos_ - start);
    if (!IsIdentifier(ident)) return std::nullopt;
    if ((ident == "floor" || ident == "mod" || ident == "min" || ident == "max") && Eat("(")) return Call(ident);
    return DimExpr::Symbol(std::string(ident));
  }

  std::string_view s_;
  size_t pos_ = 0;
};

}  // namespace

bool DimExpr::MonomialLess::operator()(const Monomial& a, const Monomial& b) const {
  if (a.size() != b.size()) return a.size() > b.size();  // higher degree first, the constant last
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i]->key != b[i]->key) return a[i]->key < b[i]->key;
  return false;
}

DimExpr::DimExpr(int64_t constant) {
  if (constant != 0) terms_.emplace(Monomial{}, constant);
  Finish();
}

DimExpr DimExpr::Symbol(std::string name) {
  auto atom = std::make_shared<Atom>();
  atom->kind = DimAtomKind::kSymbol;
  atom->key = IsIdentifier(name) ? name : "[" + name + "]";
  atom->name = std::move(name);
  return FromAtom(std::move(atom));
}

DimExpr DimExpr::FromAtom(AtomRef atom) {
  DimExpr e;
  e.terms_.clear();
  e.terms_.emplace(Monomial{std::move(atom)}, 1);
  e.Finish();
  return e;
}

DimExpr DimExpr::FromDimParam(std::string_view text) {
  if (text.find_first_of(" *(") != std::string_view::npos)
    if (auto e = Parse(text)) return *e;
  return Symbol(std::string(text));
}

std::optional<DimExpr> DimExpr::Parse(std::string_view text) { return Parser(text).ParseAll(); }

std::optional<DimExpr> DimExpr::FromTerms(Terms terms) {
  for (auto it = terms.begin(); it != terms.end();) it = it->second == 0 ? terms.erase(it) : std::next(it);
  DimExpr e;
  e.terms_ = std::move(terms);
  e.Finish();
  return e;
}

void DimExpr::Finish() {
  std::string s;
  for (const auto& [m, c] : terms_) {
    int64_t coef = c;
    if (s.empty()) {
      if (coef < 0 && !m.empty()) {
        s += "-";
        coef = -coef;
      }
    } else {
      s += coef < 0 ? " - " : " + ";
      if (coef < 0) coef = -coef;  // INT64_MIN cannot reach here: Mul/Add refuse overflow, and -INT64_MIN would
    }
    if (m.empty()) {
      s += std::to_string(coef);
    } else {
      if (coef != 1) s += std::to_string(coef) + "*";
      s += MonomialText(m);
    }
  }
  key_ = s.empty() ? "0" : s;
}

std::optional<int64_t> DimExpr::constant() const {
  if (terms_.empty()) return 0;
  if (terms_.size() == 1 && terms_.begin()->first.empty()) return terms_.begin()->second;
  return std::nullopt;
}

std::optional<std::string> DimExpr::symbol() const {
  if (terms_.size() != 1) return std::nullopt;
  const auto& [m, c] = *terms_.begin();
  if (c != 1 || m.size() != 1 || m[0]->kind != DimAtomKind::kSymbol) return std::nullopt;
  return m[0]->name;
}

std::string DimExpr::ToString() const { return key_; }

std::optional<DimExpr> Add(const DimExpr& a, const DimExpr& b) {
  DimExpr::Terms t = a.terms_;
  for (const auto& [m, c] : b.terms_) {
    auto sum = CheckedAdd(t[m], c);
    if (!sum) return std::nullopt;
    t[m] = *sum;
  }
  return DimExpr::FromTerms(std::move(t));
}

std::optional<DimExpr> Sub(const DimExpr& a, const DimExpr& b) {
  auto neg = Mul(DimExpr(-1), b);
  return neg ? Add(a, *neg) : std::nullopt;
}

std::optional<DimExpr> Mul(const DimExpr& a, const DimExpr& b) {
  DimExpr::Terms t;
  for (const auto& [ma, ca] : a.terms_) {
    for (const auto& [mb, cb] : b.terms_) {
      DimExpr::Monomial m = ma;
      m.insert(m.end(), mb.begin(), mb.end());
      std::sort(m.begin(), m.end(), [](const auto& x, const auto& y) { return x->key < y->key; });
      auto prod = CheckedMul(ca, cb);
      auto sum = prod ? CheckedAdd(t[m], *prod) : std::nullopt;
      if (!sum) return std::nullopt;
      t[m] = *sum;
    }
  }
  return DimExpr::FromTerms(std::move(t));
}

DimExpr DimExpr::Opaque(DimAtomKind kind, const DimExpr& a, const DimExpr& b) {
  static constexpr const char* kNames[] = {"", "floor", "mod", "min", "max"};
  auto atom = std::make_shared<Atom>();
  atom->kind = kind;
  auto operand = [](const DimExpr& e) {
    return e.key_.find(' ') == std::string::npos ? e.key_ : "(" + e.key_ + ")";
  };
  atom->key = kind == DimAtomKind::kFloorDiv
                  ? "floor(" + operand(a) + " / " + operand(b) + ")"
                  : std::string(kNames[static_cast<int>(kind)]) + "(" + a.ToString() + ", " + b.ToString() + ")";
  atom->args = {a, b};
  return FromAtom(std::move(atom));
}

std::optional<DimExpr> DimExpr::DivideExactly(const DimExpr& a, const DimExpr& b) {
  if (b.terms_.size() != 1) return std::nullopt;
  const auto& [mb, cb] = *b.terms_.begin();
  Terms t;
  for (const auto& [m, c] : a.terms_) {
    if (c % cb != 0) return std::nullopt;
    // m without one occurrence of each atom of mb (both sorted by key).
    Monomial rest;
    size_t j = 0;
    for (const auto& atom : m) {
      if (j < mb.size() && atom->key == mb[j]->key) ++j;
      else rest.push_back(atom);
    }
    if (j != mb.size()) return std::nullopt;
    t[rest] = c / cb;
  }
  return FromTerms(std::move(t));
}

std::optional<DimExpr> FloorDiv(const DimExpr& a, const DimExpr& b) {
  auto bc = b.constant();
  if (bc && *bc == 0) return std::nullopt;
  if (auto ac = a.constant(); ac && bc) return DimExpr(FloorDivInt(*ac, *bc));
  // A divisor of one term that divides every term of the dividend: 16*batch / 4*batch = 4.
  if (auto q = DimExpr::DivideExactly(a, b)) return q;
  return DimExpr::Opaque(DimAtomKind::kFloorDiv, a, b);
}

std::optional<DimExpr> Mod(const DimExpr& a, const DimExpr& b) {
  auto bc = b.constant();
  if (bc && *bc == 0) return std::nullopt;
  if (auto ac = a.constant(); ac && bc) return DimExpr(*ac - *bc * FloorDivInt(*ac, *bc));
  if (DimExpr::DivideExactly(a, b)) return DimExpr(0);
  return DimExpr::Opaque(DimAtomKind::kMod, a, b);
}

DimExpr DimExpr::MinMax(const DimExpr& a, const DimExpr& b, bool is_min) {
  auto ac = a.constant(), bc = b.constant();
  if (ac && bc) return DimExpr(is_min ? std::min(*ac, *bc) : std::max(*ac, *bc));
  if (a == b) return a;
  // The difference, when constant, decides too: min(batch + 1, batch) = batch.
  if (auto d = Sub(a, b); d && d->constant()) return (*d->constant() <= 0) == is_min ? a : b;
  return Opaque(is_min ? DimAtomKind::kMin : DimAtomKind::kMax, std::min(a, b), std::max(a, b));
}

DimExpr Min(const DimExpr& a, const DimExpr& b) { return DimExpr::MinMax(a, b, true); }
DimExpr Max(const DimExpr& a, const DimExpr& b) { return DimExpr::MinMax(a, b, false); }

}  // namespace kiln
