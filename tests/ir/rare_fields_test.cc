// The out-of-line fields of the IR's records (RareNames in ir/type.h, RareFields in ir/annotations.h): copies share
// them until one is written, equality compares their contents, and an empty name frees them.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include "ir/annotations.h"
#include "ir/journal.h"
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

}  // namespace
}  // namespace kiln
