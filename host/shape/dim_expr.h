// Symbolic dimensions: integer expressions over named symbols (`batch`, `seq`), kept in a canonical form so that
// two expressions that are equal as polynomials compare equal (`2*batch` from Concat of [batch] and [batch] equals
// `batch*2` from a Mul of a shape value), and printed as the dim_param text ONNX files carry.
//
// The form: a sum of integer multiples of monomials plus a constant; a monomial is a product of atoms; an atom
// is a symbol or one of floor(a / b), mod(a, b), min(a, b), max(a, b) that could not be simplified. Operations
// simplify what is exact (a division whose every coefficient divides evenly, min of two constants, ...) and
// return nullopt when the result is not an integer expression (division by zero, overflow).
//
// Text form (ToString, Parse): `2*batch + 1`, `batch*seq`, `batch - 1`, `floor(seq / 2)`, `mod(seq, 8)`,
// `min(a, b)`. A symbol whose name is not an identifier is written in brackets (`[seq len]`). A dim_param read from
// a file is an expression only if it contains a space, `*` or `(` and parses; any other text (`batch`,
// `unk__3`, `seq-len`) is one symbol of exactly that name, so that names from a model never change meaning.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kiln {

// What an atom of a DimExpr monomial is.
enum class DimAtomKind { kSymbol, kFloorDiv, kMod, kMin, kMax };

class DimExpr {
 public:
  struct Atom;
  using AtomRef = std::shared_ptr<const Atom>;
  // A product of atoms, sorted by their keys; empty for the constant term.
  using Monomial = std::vector<AtomRef>;

  DimExpr() : DimExpr(0) {}
  explicit DimExpr(int64_t constant);
  static DimExpr Symbol(std::string name);
  // The expression a dim_param text stands for (see the header comment).
  static DimExpr FromDimParam(std::string_view text);
  // Parses the text form; nullopt when it is not well formed.
  static std::optional<DimExpr> Parse(std::string_view text);

  std::optional<int64_t> constant() const;
  // The symbol's name when the expression is exactly one symbol.
  std::optional<std::string> symbol() const;
  std::string ToString() const;
  // A key that orders expressions canonically (equal keys: equal expressions).
  const std::string& key() const { return key_; }
  bool operator==(const DimExpr& o) const { return key_ == o.key_; }
  bool operator<(const DimExpr& o) const { return key_ < o.key_; }

  friend std::optional<DimExpr> Add(const DimExpr& a, const DimExpr& b);
  friend std::optional<DimExpr> Sub(const DimExpr& a, const DimExpr& b);
  friend std::optional<DimExpr> Mul(const DimExpr& a, const DimExpr& b);
  // floor(a / b); nullopt when b is 0.
  friend std::optional<DimExpr> FloorDiv(const DimExpr& a, const DimExpr& b);
  // a - b * floor(a / b); nullopt when b is 0.
  friend std::optional<DimExpr> Mod(const DimExpr& a, const DimExpr& b);
  friend DimExpr Min(const DimExpr& a, const DimExpr& b);
  friend DimExpr Max(const DimExpr& a, const DimExpr& b);

 private:
  struct MonomialLess {
    bool operator()(const Monomial& a, const Monomial& b) const;
  };
  using Terms = std::map<Monomial, int64_t, MonomialLess>;

  static std::optional<DimExpr> FromTerms(Terms terms);
  static DimExpr FromAtom(AtomRef atom);
  static DimExpr Opaque(DimAtomKind kind, const DimExpr& a, const DimExpr& b);
  static DimExpr MinMax(const DimExpr& a, const DimExpr& b, bool is_min);
 public:
  // a / b when b is one term (a constant times a product of atoms) that divides every term of a; else nullopt.
  static std::optional<DimExpr> DivideExactly(const DimExpr& a, const DimExpr& b);
 private:
  void Finish();  // computes key_ from terms_

  Terms terms_;  // coefficient of each monomial, none zero; the constant under the empty monomial
  std::string key_;
};

// An atom of a monomial: a symbol, or an operation that did not simplify.
struct DimExpr::Atom {
  DimAtomKind kind;
  std::string name;          // kSymbol
  std::vector<DimExpr> args;  // the operands of the others
  std::string key;           // canonical text, the order of atoms
};

}  // namespace kiln

namespace kiln {
std::optional<DimExpr> Add(const DimExpr& a, const DimExpr& b);
std::optional<DimExpr> Sub(const DimExpr& a, const DimExpr& b);
std::optional<DimExpr> Mul(const DimExpr& a, const DimExpr& b);
std::optional<DimExpr> FloorDiv(const DimExpr& a, const DimExpr& b);
std::optional<DimExpr> Mod(const DimExpr& a, const DimExpr& b);
DimExpr Min(const DimExpr& a, const DimExpr& b);
DimExpr Max(const DimExpr& a, const DimExpr& b);
}  // namespace kiln
