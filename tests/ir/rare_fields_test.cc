// The out-of-line fields of the IR's records (RareNames in ir/type.h, RareFields in ir/annotations.h, Attribute's
// Boxed ones, a Tensor's): copies share (or, boxed and in a Tensor, copy) them until one is written, equality compares
// their contents, and an empty name frees them. Nodes share interned op types and domains, a tensor's dims sit in
// place up to one, and the records keep the sizes that a 100k-node graph's memory target was met with.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <sstream>

#include "ir/annotations.h"
#include "ir/attribute.h"
#include "ir/boxed.h"
#include "ir/graph.h"
#include "ir/journal.h"
#include "ir/model.h"
#include "ir/node.h"
#include "ir/tensor.h"
#include "ir/type.h"
#include "onnx/proto_convert.h"
#include "support/error.h"

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

// A node's attributes, annotations and doc string share one block made on first use: each reads back on its own
// whatever the others do, and a rollback takes back attributes and annotations alike.
TEST(NodeExtras, AttributesAnnotationsAndDocStringLiveTogether) {
  Model m;
  Graph& g = m.graph();
  Node* n = g.AddNode("Relu", {g.AddInput("x", Type())}, 1);
  EXPECT_TRUE(n->attributes().empty());
  EXPECT_TRUE(n->annotations().empty());
  n->SetAnnotation("gone", std::nullopt);  // removing what is not there
  EXPECT_TRUE(n->annotations().empty());
  n->set_doc_string("doc");
  m.journal().Begin();
  n->SetAnnotation("k", std::string("v"));
  Attribute alpha;
  alpha.name = "alpha";
  alpha.kind = AttrKind::kFloat;
  alpha.f = 0.5f;
  n->SetAttribute(std::move(alpha));
  EXPECT_EQ(n->GetFloat("alpha", 0), 0.5f);
  EXPECT_EQ(n->annotations().at("k"), "v");
  EXPECT_TRUE(n->RemoveAttribute("alpha"));
  EXPECT_EQ(n->FindAttribute("alpha"), nullptr);
  EXPECT_EQ(n->annotations().at("k"), "v");
  m.journal().Rollback();
  EXPECT_TRUE(n->attributes().empty());
  EXPECT_TRUE(n->annotations().empty());
  EXPECT_EQ(n->doc_string(), "doc");
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

// Tensor's strings, doc string, external-data record and segment: absent until set, copied with the tensor, and a
// copy written to keeps its own (the original unchanged).
TEST(TensorRareParts, ACopyWrittenToKeepsItsOwn) {
  Tensor a = Tensor::FromVector(DataType::kFloat, {2}, std::vector<float>{1, 2});
  EXPECT_EQ(a.doc_string(), "");
  EXPECT_FALSE(a.external());
  EXPECT_FALSE(a.segment());
  a.set_doc_string("weights");
  a.set_segment(std::make_pair(int64_t{0}, int64_t{2}));
  Tensor b = a;
  b.set_doc_string("other");
  b.set_external(ExternalDataInfo{"w.bin", {{"location", "w.bin"}}});
  EXPECT_EQ(a.doc_string(), "weights");
  EXPECT_FALSE(a.external());
  EXPECT_EQ(b.doc_string(), "other");
  ASSERT_TRUE(b.external());
  EXPECT_EQ(b.external()->location, "w.bin");
  ASSERT_TRUE(b.segment());
  EXPECT_EQ(b.segment()->second, 2);
  Tensor s = Tensor::FromStrings({2}, {"x", "yz"});
  Tensor t = s;
  t.set_doc_string("d");
  EXPECT_EQ(t.strings(), (std::vector<std::string>{"x", "yz"}));
  EXPECT_EQ(s.doc_string(), "");
  EXPECT_EQ(s.byte_size(), 3u);
  EXPECT_TRUE(s.SameValue(t));
}

// Dims: none or one dim in place, more on the heap; each reads back through copies, moves and assignments between
// the two forms, and compares with Dims and vectors as its dims do.
TEST(TensorDims, EveryRankReadsBackThroughCopiesAndMoves) {
  const std::vector<std::vector<int64_t>> ranks = {{}, {7}, {2, 3}, {1, 2, 3, 4, 5}};
  for (const auto& v : ranks) {
    const Dims d(v);
    EXPECT_EQ(d.size(), v.size());
    EXPECT_TRUE(d == v);
    EXPECT_EQ(d.vec(), v);
    Dims copy = d;
    Dims moved = std::move(copy);
    EXPECT_TRUE(moved == d);
    EXPECT_TRUE(copy.empty());  // NOLINT: a moved-from Dims is empty
    for (const auto& w : ranks) {
      Dims other(w);
      other = d;
      EXPECT_TRUE(other == v);
      other = Dims(w);
      EXPECT_TRUE(other == w);
      EXPECT_EQ(other == d, w == v);
    }
    const Tensor t(DataType::kFloat, v, nullptr);
    EXPECT_TRUE(Tensor(t).dims() == v);
  }
  std::ostringstream os;
  os << Dims({2, 3});
  EXPECT_EQ(os.str(), "[2,3]");
}

// A tensor's name is a rare part: an attribute's tensor may keep one, an initializer's tensor keeps none (its
// value holds the name), and clearing the last rare part frees them.
TEST(TensorRareParts, ANameIsKeptOutOfLineAndAnInitializerKeepsNone) {
  Tensor t = Tensor::FromVector(DataType::kFloat, {1}, std::vector<float>{1});
  t.set_name("bias");
  Tensor copy = t;
  EXPECT_EQ(copy.name(), "bias");
  t.set_name("");
  EXPECT_EQ(t.name(), "");
  EXPECT_EQ(copy.name(), "bias");  // copies share until one is written
  t.set_doc_string("kept");
  t.set_name("again");
  t.set_name("");
  EXPECT_EQ(t.doc_string(), "kept");  // clearing the name keeps the other rare parts
  Model m;
  Value* v = m.graph().AddInitializerNamed(copy.name(), copy);
  EXPECT_EQ(v->name(), "bias");
  EXPECT_EQ(v->initializer()->name(), "");
  EXPECT_EQ(m.graph().FindValue("bias"), v);
  Value* fresh = m.graph().AddInitializer(copy);  // "bias" is taken: a fresh name from it
  EXPECT_NE(fresh->name(), "bias");
  EXPECT_EQ(fresh->name().rfind("bias", 0), 0u);
  EXPECT_EQ(fresh->initializer()->name(), "");
}

// A value keeps its graph in the word that holds its producer when it has none: the graph reads the same whether
// the value is an input, an output of a node, moved to another producer, made an initializer, or put back by a
// rollback.
TEST(ValueGraph, IsTheSameWithOrWithoutAProducerAndAfterARollback) {
  Model m;
  Graph& g = m.graph();
  Value* x = g.AddInput("x", Type());
  Node* a = g.AddNode("Relu", {x}, 1);
  Node* b = g.AddNode("Neg", {x}, 1);
  Value* out = a->output(0);
  EXPECT_EQ(x->graph(), &g);
  EXPECT_EQ(x->producer(), nullptr);
  EXPECT_EQ(out->graph(), &g);
  EXPECT_EQ(out->producer(), a);
  m.journal().Begin();
  g.TransferOutput(b, 0, out);
  EXPECT_EQ(out->producer(), b);
  EXPECT_EQ(out->graph(), &g);
  auto two = std::make_shared<const Tensor>(Tensor::FromVector(DataType::kFloat, {1}, std::vector<float>{2}));
  g.ConvertToInitializer(out, two);
  EXPECT_EQ(out->producer(), nullptr);
  EXPECT_EQ(out->graph(), &g);
  m.journal().Rollback();
  EXPECT_EQ(out->producer(), a);
  EXPECT_EQ(out->producer_output(), 0u);
  EXPECT_EQ(out->graph(), &g);
  EXPECT_EQ(a->output(0), out);
}

// A value keeps its initializer's tensor in a box of its own while it has no other rare field, and in its extras
// once it has one: the tensor reads the same through annotations, a listing as a graph input and output, a new
// tensor, and the rollbacks that take each back.
TEST(ValueInitializer, ReadsTheSameWhetherBoxedOrInTheExtras) {
  Model m;
  Graph& g = m.graph();
  auto one = std::make_shared<const Tensor>(Tensor::FromVector(DataType::kFloat, {1}, std::vector<float>{1}));
  auto two = std::make_shared<const Tensor>(Tensor::FromVector(DataType::kFloat, {1}, std::vector<float>{2}));
  Value* w = g.AddInitializerNamed("w", *one);
  Value* plain = g.AddInput("plain", Type());
  EXPECT_TRUE(w->is_initializer());
  EXPECT_FALSE(w->is_graph_input());
  EXPECT_FALSE(plain->is_initializer());
  EXPECT_EQ(plain->initializer(), nullptr);
  EXPECT_TRUE(plain->is_graph_input());
  EXPECT_EQ(w->initializer()->values<float>()[0], 1.0f);
  m.journal().Begin();
  w->SetAnnotation("k", std::string("v"));  // the extras are made: the tensor moves into them
  EXPECT_EQ(w->initializer()->values<float>()[0], 1.0f);
  g.SetInitializer(w, two);
  EXPECT_EQ(w->initializer()->values<float>()[0], 2.0f);
  g.AppendOutput(w);
  EXPECT_TRUE(w->is_graph_output());
  EXPECT_FALSE(w->is_graph_input());
  m.journal().Rollback();
  EXPECT_EQ(w->initializer()->values<float>()[0], 1.0f);
  EXPECT_TRUE(w->annotations().empty());
  EXPECT_FALSE(w->is_graph_output());
  EXPECT_TRUE(w->is_initializer());
  // A value that is an initializer and has extras from the start, and one that becomes an initializer later.
  Value* x = g.AddValue("x");
  x->set_doc_string("doc");
  g.SetInitializer(x, two);
  EXPECT_EQ(x->initializer()->values<float>()[0], 2.0f);
  EXPECT_EQ(x->doc_string(), "doc");
  EXPECT_EQ(g.initializers().size(), 2u);
}

// A value is counted among its graph's inputs and outputs in 16 bits: the 65,536th listing is a model error, not
// a wrapped count.
TEST(ValueGraph, ListingAValueAsAnOutputPastTheCountIsAModelError) {
  Model m;
  Graph& g = m.graph();
  Value* x = g.AddInput("x", Type());
  for (int i = 0; i < 65535; ++i) g.AppendOutput(x);
  EXPECT_TRUE(x->is_graph_output());
  try {
    g.AppendOutput(x);
    ADD_FAILURE() << "no error for the 65,536th listing";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kInvalidModel) << e.what();
    EXPECT_NE(std::string(e.what()).find("'x'"), std::string::npos) << e.what();
  }
  EXPECT_EQ(g.outputs().size(), 65535u);
  for (int i = 0; i < 65535; ++i) g.RemoveOutput(g.outputs().size() - 1);
  EXPECT_FALSE(x->is_graph_output());
}

// A 100k-node graph holds about 130k nodes and 230k values at its compile's peak: every 8 bytes added to a record
// is 1-2 MB there (bench/compile/run.sh; target 1.5 x file + 200 MB). Grow these only on purpose.
TEST(RecordSizes, StayWithinWhatTheMemoryTargetWasMetWith) {
  EXPECT_LE(sizeof(Node), 96u);  // an allocator size class: 104 bytes would take 112
  EXPECT_LE(sizeof(Value), 64u);  // likewise: 72 would take 80
  EXPECT_EQ(sizeof(Name), 16u);
  EXPECT_LE(sizeof(Type), 80u);  // kept once per distinct type (TypeTable)
  EXPECT_LE(sizeof(Dim), 32u);
  EXPECT_LE(sizeof(Tensor), 48u);  // every initializer holds one (a 1M-node chain: 667k); 64 with shared_ptr's block
  EXPECT_EQ(sizeof(Dims), 16u);     // a 1-D tensor's dims in place
  EXPECT_LE(sizeof(Attribute), 368u);  // a node holds its attributes by value (a Conv: five)
}

// Attribute's rarely set fields (t, sparse_tensor, tp) are boxed: read like std::optional, copied deeply, moved
// by pointer.
TEST(Boxed, ReadsLikeAnOptionalAndCopiesDeeply) {
  Attribute a = Attribute::TensorValue("value", Tensor::FromStrings({1}, {"x"}));
  ASSERT_TRUE(a.t);
  EXPECT_EQ(a.t->strings(), std::vector<std::string>{"x"});
  EXPECT_FALSE(a.sparse_tensor);
  EXPECT_FALSE(a.tp.has_value());
  Boxed<Tensor> copy = a.t;
  *copy = Tensor::FromStrings({1}, {"y"});
  EXPECT_EQ(a.t->strings(), std::vector<std::string>{"x"});  // the copy has its own tensor
  const Tensor* held = &*a.t;
  Attribute moved = std::move(a);
  EXPECT_EQ(&*moved.t, held);  // moving hands over the box
  moved.tp = Type::Tensor(DataType::kFloat);
  EXPECT_TRUE(moved.tp);
  moved.tp.reset();
  EXPECT_FALSE(moved.tp);
}

}  // namespace
}  // namespace kiln
