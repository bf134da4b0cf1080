// The out-of-line fields of the IR's records (RareNames in ir/type.h, RareFields in ir/annotations.h): copies share
// them until one is written, equality compares their contents, and an empty name frees them. Nodes share interned
// op types and domains, and the records keep the sizes that a 100k-node graph's memory target was met with.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include "ir/annotations.h"
#include "ir/journal.h"
#include "ir/model.h"
#include "ir/type.h"
#include "onnx/proto_convert.h"

namespace kiln {
namespace {

TEST(RareNames, CopiesShareUntilOneIsWritten) {
  Dim a = Dim::Symbol("batch");
  a.set_denotation("DATA_BATCH");
  Dim b = a;
  b.set_symbol("seq");
  EXPECT_EQ(a.symbol(), "batch");
  EXPECT_EQ(b.symbol(), "seq");
  EXPECT_EQ(b.denotation(), "DATA_BATCH");
  EXPECT_FALSE(a == b);
  b.set_symbol("batch");
  EXPECT_TRUE(a == b);  // same contents in different storage
}

TEST(RareNames, EmptyNamesCompareEqualToNone) {
  Dim a = Dim::Symbol("n");
  a.set_symbol("");
  EXPECT_TRUE(a == Dim{});
  EXPECT_FALSE(a.is_symbol());
  Type t = Type::Tensor(DataType::kFloat);
  Type u = t;
  u.set_denotation("IMAGE");
  EXPECT_FALSE(t == u);
  EXPECT_EQ(t.denotation(), "");
  u.set_denotation("");
  EXPECT_TRUE(t == u);
}

TEST(RareNames, TypesRoundTripTheirNames) {
  onnx::TypeProto p;
  p.set_denotation("TENSOR");
  auto* tt = p.mutable_tensor_type();
  tt->set_elem_type(onnx::TensorProto::FLOAT);
  auto* d0 = tt->mutable_shape()->add_dim();
  d0->set_dim_param("batch");
  d0->set_denotation("DATA_BATCH");
  tt->mutable_shape()->add_dim()->set_dim_value(3);
  tt->mutable_shape()->add_dim()->set_dim_param("batch");
  Type t = TypeFromProto(p);
  ASSERT_TRUE(t.shape);
  EXPECT_EQ(t.denotation(), "TENSOR");
  EXPECT_EQ(t.shape->dims[0].symbol(), "batch");
  EXPECT_EQ(t.shape->dims[0].denotation(), "DATA_BATCH");
  EXPECT_EQ(t.shape->dims[2].symbol(), "batch");
  EXPECT_EQ(t.shape->dims[2].denotation(), "");  // the shared symbol did not bring dim 0's denotation along
  onnx::TypeProto back;
  TypeToProto(t, &back);
  EXPECT_EQ(back.SerializeAsString(), p.SerializeAsString());

  onnx::TypeProto o;
  o.mutable_opaque_type()->set_domain("com.example");
  o.mutable_opaque_type()->set_name("Blob");
  Type opaque = TypeFromProto(o);
  EXPECT_EQ(opaque.ToString(), "opaque(com.example.Blob)");
  onnx::TypeProto o_back;
  TypeToProto(opaque, &o_back);
  EXPECT_EQ(o_back.SerializeAsString(), o.SerializeAsString());
}

TEST(RareFields, AnnotationsAreJournaledAndAbsentUntilSet) {
  RareFields f;
  EXPECT_TRUE(f.annotations().empty());
  EXPECT_EQ(f.doc_string(), "");
  Journal j;
  j.Begin();
  f.SetAnnotation(j, "k", std::string("v"));
  f.set_doc_string("doc");
  EXPECT_EQ(f.annotations().at("k"), "v");
  j.Rollback();
  EXPECT_TRUE(f.annotations().empty());
  EXPECT_EQ(f.doc_string(), "doc");  // doc strings are not journaled
}

TEST(InternedNames, NodesShareTheirOpTypeAndDomainAndRenamesAreJournaled) {
  Model m;
  Graph& g = m.graph();
  Value* x = g.AddInput("x", Type());
  Node* a = g.AddNode("Relu", {x}, 1);
  Node* b = g.AddNode("Relu", {a->output(0)}, 1);
  EXPECT_EQ(&a->op_type(), &b->op_type());
  EXPECT_EQ(&a->domain(), &b->domain());
  EXPECT_EQ(a->domain(), "");
  m.journal().Begin();
  b->SetOpType("FusedThing", "com.example");
  EXPECT_EQ(b->op_type(), "FusedThing");
  EXPECT_EQ(b->domain(), "com.example");
  EXPECT_EQ(a->op_type(), "Relu");
  m.journal().Rollback();
  EXPECT_EQ(b->op_type(), "Relu");
  EXPECT_EQ(b->domain(), "");
}

// A 100k-node graph holds about 130k nodes and 230k values at its compile's peak: every 8 bytes added to a record
// is 1-2 MB there (bench/compile/run.sh; target 1.5 x file + 200 MB). Grow these only on purpose.
TEST(RecordSizes, StayWithinWhatTheMemoryTargetWasMetWith) {
  EXPECT_LE(sizeof(Node), 168u);
  EXPECT_LE(sizeof(Value), 208u);
  EXPECT_LE(sizeof(Type), 80u);
  EXPECT_LE(sizeof(Dim), 32u);
}

}  // namespace
}  // namespace kiln
