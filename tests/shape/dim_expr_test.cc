// DimExpr: canonical forms compare equal, arithmetic simplifies what is exact, the text form parses back, and
// dim_param texts from files keep their meaning.
#include "shape/dim_expr.h"

#include <gtest/gtest.h>

namespace kiln {
namespace {

DimExpr S(const char* name) { return DimExpr::Symbol(name); }
DimExpr C(int64_t v) { return DimExpr(v); }

TEST(DimExpr, EqualPolynomialsAreEqual) {
  EXPECT_EQ(*Add(S("batch"), S("batch")), *Mul(C(2), S("batch")));
  EXPECT_EQ(*Mul(S("seq"), S("batch")), *Mul(S("batch"), S("seq")));
  EXPECT_EQ(*Mul(*Add(S("b"), C(1)), S("s")), *Add(*Mul(S("b"), S("s")), S("s")));
  EXPECT_EQ(Sub(S("batch"), S("batch"))->constant(), 0);
  EXPECT_NE(*Add(S("a"), C(1)), *Add(S("a"), C(2)));
}

TEST(DimExpr, TextFormIsCanonicalAndParsesBack) {
  EXPECT_EQ(Mul(C(2), S("batch"))->ToString(), "2*batch");
  EXPECT_EQ(Sub(S("batch"), C(1))->ToString(), "batch - 1");
  EXPECT_EQ(Sub(C(1), S("batch"))->ToString(), "-batch + 1");
  EXPECT_EQ(Mul(*Add(S("batch"), C(1)), S("seq"))->ToString(), "batch*seq + seq");
  for (const char* text : {"2*batch + 1", "batch*seq - 3", "floor(seq / 2)", "floor((seq + 1) / 2)", "mod(seq, 8)", "min(a, b)",
                           "max(2*b, a)", "[seq len]*batch"}) {
    auto e = DimExpr::Parse(text);
    ASSERT_TRUE(e) << text;
    EXPECT_EQ(e->ToString(), text);
    EXPECT_EQ(*DimExpr::Parse(e->ToString()), *e);
  }
  EXPECT_FALSE(DimExpr::Parse("2*"));
  EXPECT_FALSE(DimExpr::Parse("floor(a, b)"));
  EXPECT_FALSE(DimExpr::Parse("(a"));
}

TEST(DimExpr, DivisionModuloAndMinMaxSimplifyWhatIsExact) {
  EXPECT_EQ(*FloorDiv(*Mul(C(128), S("b")), C(64)), *Mul(C(2), S("b")));
  EXPECT_EQ(FloorDiv(C(-7), C(2))->constant(), -4);
  EXPECT_EQ(FloorDiv(S("s"), C(2))->ToString(), "floor(s / 2)");
  EXPECT_EQ(FloorDiv(S("s"), S("s"))->constant(), 1);
  EXPECT_EQ(FloorDiv(*Mul(C(16), S("b")), *Mul(C(4), S("b")))->constant(), 4);
  EXPECT_EQ(*FloorDiv(*Mul(*Mul(C(6), S("b")), S("s")), *Mul(C(3), S("s"))), *Mul(C(2), S("b")));
  EXPECT_EQ(FloorDiv(*Add(S("b"), C(1)), S("b"))->ToString(), "floor((b + 1) / b)");
  EXPECT_FALSE(FloorDiv(S("s"), C(0)));
  EXPECT_EQ(Mod(*Mul(C(8), S("s")), C(4))->constant(), 0);
  EXPECT_EQ(Mod(C(-7), C(3))->constant(), 2);
  EXPECT_EQ(Mod(S("s"), C(8))->ToString(), "mod(s, 8)");
  EXPECT_EQ(Min(C(3), C(5)).constant(), 3);
  EXPECT_EQ(Max(*Add(S("b"), C(1)), S("b")), *Add(S("b"), C(1)));
  EXPECT_EQ(Min(S("b"), S("a")), Min(S("a"), S("b")));
}

TEST(DimExpr, OverflowGivesNothing) {
  EXPECT_FALSE(Mul(C(INT64_MAX), C(2)));
  EXPECT_FALSE(Add(C(INT64_MAX), C(1)));
  EXPECT_FALSE(DimExpr::Parse("99999999999999999999"));
}

TEST(DimExpr, DimParamsFromFilesKeepTheirMeaning) {
  // Names without a space, '*' or '(' are one symbol, whatever they contain.
  for (const char* name : {"batch", "unk__3", "seq-len", "a+b", "N"}) {
    DimExpr e = DimExpr::FromDimParam(name);
    EXPECT_EQ(e.symbol(), name);
  }
  EXPECT_EQ(DimExpr::FromDimParam("2*batch"), *Mul(C(2), S("batch")));
  EXPECT_EQ(DimExpr::FromDimParam("seq len").symbol(), "seq len");  // a space, but not an expression
  EXPECT_EQ(DimExpr::FromDimParam("floor(seq / 2)"), *FloorDiv(S("seq"), C(2)));
}

}  // namespace
}  // namespace kiln
