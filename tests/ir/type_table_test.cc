// TypeTable: a model keeps each distinct value type once; values point at it, and what they point at is the
// type they were given, before and after a change and its rollback.
#include <gtest/gtest.h>

#include <memory>

#include "ir/model.h"
#include "ir/type_table.h"

namespace kiln::testing {
namespace {

Type Tensor2(DataType t, Dim a, Dim b) {
  Shape s;
  s.dims = {std::move(a), std::move(b)};
  return Type::Tensor(t, std::move(s));
}

TEST(TypeTable, EqualTypesAreKeptOnce) {
  TypeTable table;
  const Type* a = table.Intern(Tensor2(DataType::kFloat, Dim::Symbol("batch"), Dim::Known(16)));
  const Type* b = table.Intern(Tensor2(DataType::kFloat, Dim::Symbol("batch"), Dim::Known(16)));
  EXPECT_EQ(a, b);
  EXPECT_EQ(table.size(), 1u);
  EXPECT_EQ(a->ToString(), "float[batch,16]");
  // Any difference Type::operator== sees makes another entry.
  EXPECT_NE(a, table.Intern(Tensor2(DataType::kFloat, Dim::Symbol("seq"), Dim::Known(16))));
  EXPECT_NE(a, table.Intern(Tensor2(DataType::kFloat16, Dim::Symbol("batch"), Dim::Known(16))));
  EXPECT_NE(a, table.Intern(Tensor2(DataType::kFloat, Dim::Symbol("batch"), Dim::Known(17))));
  EXPECT_NE(a, table.Intern(Type::Tensor(DataType::kFloat)));  // unknown rank
  Type denoted = Tensor2(DataType::kFloat, Dim::Symbol("batch"), Dim::Known(16));
  denoted.set_denotation("IMAGE");
  EXPECT_NE(a, table.Intern(denoted));
  Type seq;
  seq.kind = Type::Kind::kSequence;
  seq.inner = std::make_shared<const Type>(*a);
  const Type* s = table.Intern(seq);
  EXPECT_EQ(s, table.Intern(seq));
  EXPECT_EQ(*s->inner, *a);
  EXPECT_EQ(table.size(), 7u);
  // Nothing known: the shared empty type, not an entry.
  EXPECT_EQ(table.Intern(Type()), TypeTable::None());
  EXPECT_EQ(table.size(), 7u);
}

TEST(TypeTable, ValuesShareTheirModelsTypesAndKeepThemAcrossRollback) {
  Model m;
  Graph& g = m.graph();
  Value* x = g.AddInput("x", Tensor2(DataType::kFloat, Dim::Symbol("batch"), Dim::Known(16)));
  Node* relu = g.AddNode("Relu", {x}, 1, "relu");
  Value* y = relu->output(0);
  EXPECT_EQ(&y->type(), TypeTable::None());
  y->SetType(x->type());
  EXPECT_EQ(&y->type(), &x->type());

  const Type& before = y->type();
  Node* neg = g.AddNode("Neg", {y}, 1, "neg");
  neg->ClearShapeDirty();
  m.journal().Begin();
  y->SetType(Tensor2(DataType::kFloat, Dim::Known(4), Dim::Known(16)));
  EXPECT_EQ(y->type().ToString(), "float[4,16]");
  EXPECT_EQ(before.ToString(), "float[batch,16]");  // a reference taken before stays what it was
  EXPECT_TRUE(neg->shape_dirty());  // its reader infers again
  m.journal().Rollback();
  EXPECT_EQ(&y->type(), &before);
  EXPECT_EQ(m.types().size(), 2u);  // the rolled-back type stays in the table: nothing points at freed memory
}

}  // namespace
}  // namespace kiln::testing
