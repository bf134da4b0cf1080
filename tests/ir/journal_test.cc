// The journal: one transaction of every kind of IR mutation, rolled back, gives back the model exactly (its
// serialized export, functions included), and committed changes stay.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <array>
#include <memory>
#include <vector>

#include "driver/graph_fingerprint.h"
#include "ir/model.h"
#include "ir/outline.h"
#include "ir_test_models.h"
#include "onnx/onnx_export.h"

namespace kiln::testing {
namespace {

std::string Bytes(const Model& m) { return ExportModelProto(m).SerializeAsString(); }

Node* NodeNamed(Graph& g, const std::string& op) {
  for (const auto& n : g.nodes())
    if (n->op_type() == op) return n.get();
  return nullptr;
}

TEST(Journal, RollbackUndoesEveryKindOfMutation) {
  auto m = ParseModelWithFunctions(kScaleModel, {ScaleFunction()});
  ASSERT_TRUE(m);
  const std::string before = Bytes(*m);
  const uint64_t fingerprint = ModelFingerprint(*m);
  Graph& g = m->graph();
  m->journal().Begin();

  Value* x = g.FindValue("x");
  Node* neg = g.AddNode("Neg", {x}, 1, "neg");
  NodeNamed(g, "Add")->SetInput(1, neg->output(0));
  g.RenameValue(g.FindValue("a"), "a_renamed");
  NodeNamed(g, "Max")->SetAttribute(Attribute::Int("unused", 1));
  NodeNamed(g, "Max")->SetAnnotation("kiln.engine", "vector");
  x->SetAnnotation("kiln.memory", "hbm");
  // The graph output keeps its name when another node's output replaces it.
  Node* id = g.AddNode("Identity", {g.FindValue("b")}, 1, "id");
  g.ReplaceValue(g.FindValue("z"), id->output(0));
  EXPECT_EQ(g.outputs()[0]->name(), "z");
  // Functions: add one with a body, rename the existing one, change its attributes and imports, then remove it.
  Function* f = m->AddFunction("test", "Twice");
  Value* in = f->body().AddInput("t", Type());
  Node* add = f->body().AddNode("Add", {in, in}, 1);
  f->body().AppendOutput(add->output(0));
  Function* scale = m->FindFunction("test", "Scale");
  m->RenameFunction(scale, "Scale2");
  scale->SetAttributeNames({"alpha", "beta"});
  scale->EnsureOpset("extra", 3);
  m->EnsureOpset("extra", 3);
  m->RemoveFunction(scale);
  // Outline and inline are made of the mutations above, and undo the same way.
  OutlineResult r = Outline(g, {id}, {});
  ASSERT_TRUE(r.refusal.empty()) << r.refusal;
  Inline(*r.call);
  EXPECT_NE(Bytes(*m), before);

  m->journal().Rollback();
  EXPECT_EQ(Bytes(*m), before);
  EXPECT_EQ(ModelFingerprint(*m), fingerprint);
  ASSERT_NE(m->FindFunction("test", "Scale"), nullptr);
  EXPECT_EQ(m->FindFunction("test", "Twice"), nullptr);
  EXPECT_EQ(m->num_functions(), 1u);
  EXPECT_TRUE(g.FindValue("x")->annotations().empty());
  m->CollectGarbage();
  EXPECT_EQ(Bytes(*m), before);
}

// RecordPointer's runs and the steps recorded between them undo newest first, as steps each of their own would:
// a step between two runs that restores the same pointer runs between them, and a run of another pointer type is
// a run of its own.
TEST(Journal, PointerRunsAndOtherStepsUndoInTheOrderTheyWereMade) {
  Journal j;
  const int a = 1, b = 2, c = 3;
  const char x = 'x', y = 'y';
  const int* p = &a;
  const int* q = &a;
  const char* r = &x;
  j.Begin();
  j.RecordPointer(p), p = &b;  // run 1
  j.RecordPointer(q), q = &b;
  j.Record([&p, old = p] { p = old; }), p = &c;  // back to &b
  j.RecordPointer(p), p = &a;  // run 2
  j.RecordPointer(p), p = &c;
  j.RecordPointer(r), r = &y;  // run 3: another pointer type
  j.RecordPointer(p), p = &b;  // run 4
  EXPECT_EQ(j.size(), 5u);
  j.Rollback();
  EXPECT_EQ(p, &a);
  EXPECT_EQ(q, &a);
  EXPECT_EQ(r, &x);
  // Outside a transaction nothing is recorded; a new transaction starts new runs.
  j.RecordPointer(p), p = &c;
  EXPECT_EQ(j.size(), 0u);
  j.Begin();
  j.RecordPointer(p), p = &b;
  j.Commit();
  j.Begin();
  j.RecordPointer(p), p = &a;
  EXPECT_EQ(j.size(), 1u);
  j.Rollback();
  EXPECT_EQ(p, &b);
}

// An undo step keeps a callable of up to 24 bytes in place and a larger one on the heap; either one moves, runs
// once called, and lets go of what it captured when destroyed.
TEST(UndoStep, KeepsSmallAndLargeCallablesMovesThemAndFreesWhatTheyHold) {
  auto held = std::make_shared<int>(0);
  std::array<int64_t, 8> big{};
  big[7] = 5;
  {
    std::vector<UndoStep> steps;
    steps.emplace_back([held, add = int64_t{1}] { *held += static_cast<int>(add); });  // 24 bytes: in place
    steps.emplace_back([held, big] { *held += static_cast<int>(big[7]); });           // 80 bytes: on the heap
    for (int i = 0; i < 20; ++i) steps.emplace_back([] {});  // the vector moves the first two as it grows
    EXPECT_EQ(held.use_count(), 3);
    UndoStep moved = std::move(steps[1]);
    moved();
    steps[0]();
    EXPECT_EQ(*held, 6);
    EXPECT_EQ(held.use_count(), 3);
  }
  EXPECT_EQ(held.use_count(), 1);
}

// Steps across many chunks (the first holds 4, each next twice the last, up to 4096) undo newest first; a journal
// absorbing a later one undoes both, the later one's steps first, and the absorbed one is left empty.
TEST(Journal, ManyStepsAndAbsorbedJournalsUndoNewestFirst) {
  std::vector<int> undone;
  Journal earlier, later;
  earlier.Begin();
  for (int i = 0; i < 20000; ++i) earlier.Record([&undone, i] { undone.push_back(i); });
  later.Begin();
  for (int i = 20000; i < 20003; ++i) later.Record([&undone, i] { undone.push_back(i); });
  int slot_value = 1, other = 2;
  int* slot = &slot_value;
  later.RecordPointer(slot), slot = &other;
  earlier.Absorb(std::move(later));
  EXPECT_EQ(later.size(), 0u);
  EXPECT_EQ(earlier.size(), 20004u);
  later.Rollback();  // nothing left in it
  EXPECT_TRUE(undone.empty());
  EXPECT_EQ(slot, &other);
  earlier.Rollback();
  EXPECT_EQ(slot, &slot_value);
  ASSERT_EQ(undone.size(), 20003u);
  for (size_t i = 0; i < undone.size(); ++i) ASSERT_EQ(undone[i], 20002 - static_cast<int>(i)) << i;
  EXPECT_EQ(earlier.size(), 0u);
}

// A run records a slot that held null in one word and any other in two: a run mixing both, with one slot recorded
// again after it changed, undoes to each slot's first value.
TEST(Journal, PointerRunsUndoNullAndNonNullSlotsAlike) {
  Journal j;
  const int a = 1, b = 2, c = 3;
  const int* slots[5] = {nullptr, &a, nullptr, &b, nullptr};
  j.Begin();
  for (const int*& slot : slots) j.RecordPointer(slot), slot = &c;
  j.RecordPointer(slots[0]), slots[0] = &b;  // recorded again: its old value is now &c
  j.RecordPointer(slots[1]), slots[1] = nullptr;
  j.RecordPointer(slots[1]), slots[1] = &a;  // recorded while null
  EXPECT_EQ(j.size(), 1u);
  j.Rollback();
  EXPECT_EQ(slots[0], nullptr);
  EXPECT_EQ(slots[1], &a);
  EXPECT_EQ(slots[2], nullptr);
  EXPECT_EQ(slots[3], &b);
  EXPECT_EQ(slots[4], nullptr);
}

TEST(Journal, CommitKeepsTheChanges) {
  auto m = ParseModelWithFunctions(kScaleModel, {ScaleFunction()});
  ASSERT_TRUE(m);
  m->journal().Begin();
  Function* f = m->AddFunction("test", "Kept");
  f->body().AppendOutput(f->body().AddInput("t", Type()));
  m->journal().Commit();
  m->journal().Begin();
  m->journal().Rollback();  // an empty transaction undoes nothing
  EXPECT_NE(m->FindFunction("test", "Kept"), nullptr);
  EXPECT_EQ(m->num_functions(), 2u);
}

TEST(Journal, NamesFreedByARemovalCanBeTakenAgainAndComeBackOnUndo) {
  auto m = ParseModelWithFunctions(kScaleModel, {ScaleFunction()});
  ASSERT_TRUE(m);
  Graph& g = m->graph();
  EXPECT_TRUE(m->IsNameUsed("a"));
  m->journal().Begin();
  g.RenameValue(g.FindValue("a"), "a2");
  EXPECT_FALSE(m->IsNameUsed("a"));
  EXPECT_EQ(g.FreshName("a"), "a");
  m->journal().Rollback();
  EXPECT_TRUE(m->IsNameUsed("a"));
  EXPECT_FALSE(m->IsNameUsed("a2"));
}

// The scale model with its graph and its inputs x and y at hand.
class JournalOnScaleModel : public ::testing::Test {
 protected:
  void SetUp() override {
    m = ParseModelWithFunctions(kScaleModel, {ScaleFunction()});
    ASSERT_TRUE(m);
    x = m->graph().FindValue("x");
    y = m->graph().FindValue("y");
  }
  std::unique_ptr<Model> m;
  Value* x = nullptr;
  Value* y = nullptr;
};

// A type set in a transaction comes back on undo: the empty type of a value that had none (its undo step holds
// no copy), and a type with a symbolic shape, denotation and all, set twice.
TEST_F(JournalOnScaleModel, TypesSetInATransactionComeBackOnUndo) {
  Graph& g = m->graph();
  Node* extra = g.AddNode("Add", {x, y}, 1, "extra");
  Value* out = extra->output(0);
  ASSERT_EQ(out->type(), Type());
  const Type before_x = x->type();
  Shape batch;
  batch.dims = {Dim::Symbol("n"), Dim::Known(2)};
  Type symbolic = Type::Tensor(DataType::kFloat, batch);
  symbolic.set_denotation("TENSOR");
  m->journal().Begin();
  out->SetType(Type::Tensor(DataType::kFloat, Shape{{Dim::Known(2)}}));
  out->SetType(symbolic);
  x->SetType(symbolic);
  x->SetType(Type::Tensor(DataType::kDouble));
  EXPECT_EQ(out->type(), symbolic);
  m->journal().Rollback();
  EXPECT_EQ(out->type(), Type());
  EXPECT_EQ(x->type(), before_x);
  EXPECT_EQ(x->type().shape->dims.size(), 1u);
}

TEST_F(JournalOnScaleModel, ARemovedNodeLetsGoOfItsInputsAndTakesThemBackOnUndo) {
  Graph& g = m->graph();
  // An Add of x and y that nothing reads, removed in a transaction.
  Node* extra = g.AddNode("Add", {x, y}, 1, "extra");
  const size_t x_uses = x->uses().size(), y_uses = y->uses().size();
  const std::string before = Bytes(*m);
  m->journal().Begin();
  g.RemoveNode(extra);
  EXPECT_EQ(x->uses().size(), x_uses - 1);
  EXPECT_EQ(y->uses().size(), y_uses - 1);
  EXPECT_EQ(extra->input(0), nullptr);
  EXPECT_EQ(extra->input(1), nullptr);
  m->journal().Rollback();
  ASSERT_FALSE(extra->is_deleted());
  EXPECT_EQ(extra->input(0), x);
  EXPECT_EQ(extra->input(1), y);
  ASSERT_EQ(x->uses().size(), x_uses);
  ASSERT_EQ(y->uses().size(), y_uses);
  EXPECT_EQ(x->uses().back().node, extra);
  EXPECT_EQ(x->uses().back().slot, 0u);
  EXPECT_EQ(y->uses().back().slot, 1u);
  EXPECT_EQ(Bytes(*m), before);
  // Removed outside a transaction, it goes for good and its values forget it.
  g.RemoveNode(extra);
  m->CollectGarbage();
  EXPECT_EQ(x->uses().size(), x_uses - 1);
}

// Nodes of one input (present or absent) or none take a step of their own kind (the input in the step), those of
// more the general step, and a new initializer one step for its list entry, tensor and type: undone, the graph is
// as it was, uses and slots included.
TEST_F(JournalOnScaleModel, RemovedNodesOfFewInputsAndNewInitializersComeBackOnUndo) {
  Graph& g = m->graph();
  Node* neg = g.AddNode("Neg", {x}, 1, "neg");
  Node* absent = g.AddNode("Neg", {nullptr}, 1, "absent");
  Node* none = g.AddNode("Constant", {}, 1, "none");
  none->SetAttribute(Attribute::Float("value_float", 1.0f));
  Node* pair = g.AddNode("Clip", {y, nullptr}, 1, "pair");
  Node* three = g.AddNode("Clip", {x, nullptr, y}, 1, "three");
  const size_t x_uses = x->uses().size(), y_uses = y->uses().size(), initializers = g.initializers().size();
  const std::string before = Bytes(*m);
  m->journal().Begin();
  for (Node* n : {neg, absent, none, pair, three}) g.RemoveNode(n);
  Value* c = g.AddInitializer(Tensor::FromVector<float>(DataType::kFloat, {2}, {1.0f, 2.0f}));
  EXPECT_TRUE(c->is_initializer());
  EXPECT_EQ(g.initializers().size(), initializers + 1);
  EXPECT_EQ(x->uses().size(), x_uses - 2);
  EXPECT_EQ(y->uses().size(), y_uses - 2);
  m->journal().Rollback();
  EXPECT_TRUE(c->is_deleted());
  EXPECT_EQ(g.initializers().size(), initializers);
  for (Node* n : {neg, absent, none, pair, three}) ASSERT_FALSE(n->is_deleted()) << n->name();
  EXPECT_EQ(neg->input(0), x);
  EXPECT_EQ(absent->num_inputs(), 1u);
  EXPECT_EQ(absent->input(0), nullptr);
  EXPECT_EQ(none->num_inputs(), 0u);
  ASSERT_EQ(pair->num_inputs(), 2u);
  EXPECT_EQ(pair->input(0), y);
  EXPECT_EQ(pair->input(1), nullptr);
  ASSERT_EQ(three->num_inputs(), 3u);
  EXPECT_EQ(three->input(2), y);
  ASSERT_EQ(x->uses().size(), x_uses);
  ASSERT_EQ(y->uses().size(), y_uses);
  EXPECT_EQ(Bytes(*m), before);
}

TEST_F(JournalOnScaleModel, AnAddedNodeLetsGoOfItsInputsOnUndo) {
  Graph& g = m->graph();
  const size_t x_uses = x->uses().size(), y_uses = y->uses().size();
  const std::string before = Bytes(*m);
  m->journal().Begin();
  Node* mul = g.AddNode("Mul", {x, x}, 1, "mul");
  EXPECT_EQ(x->uses().size(), x_uses + 2);
  mul->SetInput(1, y);  // a later change to its inputs is undone first
  EXPECT_EQ(y->uses().size(), y_uses + 1);
  m->journal().Rollback();
  EXPECT_TRUE(mul->is_deleted());
  EXPECT_EQ(x->uses().size(), x_uses);
  EXPECT_EQ(y->uses().size(), y_uses);
  for (const Use& u : x->uses()) EXPECT_NE(u.node, mul);
  EXPECT_EQ(Bytes(*m), before);
}

TEST_F(JournalOnScaleModel, ARemovedValueKeepsItsValueInfoEntryUntilGarbageIsCollected) {
  Graph& g = m->graph();
  Node* neg = g.AddNode("Neg", {x}, 1, "neg");  // read by nothing
  Value* out = neg->output(0);
  g.AppendValueInfo(out);
  const std::string before = Bytes(*m);
  m->journal().Begin();
  g.RemoveNode(neg);
  ASSERT_EQ(g.value_infos().back(), out);  // still listed, and skipped as deleted
  EXPECT_TRUE(out->is_deleted());
  EXPECT_EQ(Bytes(*m).find("neg"), std::string::npos);
  m->journal().Rollback();
  EXPECT_EQ(Bytes(*m), before);  // back in its place
  m->journal().Begin();
  g.RemoveNode(neg);
  m->journal().Commit();
  m->CollectGarbage();
  for (const Value* v : g.value_infos()) EXPECT_FALSE(v->is_deleted());
  EXPECT_EQ(std::count(g.value_infos().begin(), g.value_infos().end(), out), 0);
}

// Removing an initializer leaves its entry until the list is next read; a rollback across that read gets the
// list back in its order, and garbage collection drops what is left.
TEST(Journal, RemovedInitializersLeaveTheListInOrderAndComeBackInPlace) {
  auto m = ParseModelWithFunctions(kScaleModel, {});
  ASSERT_TRUE(m);
  Graph& g = m->graph();
  std::vector<Value*> added;
  for (int i = 0; i < 4; ++i)
    added.push_back(g.AddInitializer(Tensor::FromVector(DataType::kFloat, {1}, std::vector<float>{float(i)})));
  const std::vector<Value*> all = g.initializers();
  const std::string before = Bytes(*m);
  auto without = [&](std::initializer_list<Value*> gone) {
    std::vector<Value*> left;
    for (Value* v : all)
      if (std::find(gone.begin(), gone.end(), v) == gone.end()) left.push_back(v);
    return left;
  };

  m->journal().Begin();
  g.RemoveValue(added[1]);
  EXPECT_EQ(g.initializers(), without({added[1]}));  // the read drops the entry
  g.RemoveValue(added[0]);
  g.RemoveValue(added[3]);
  EXPECT_EQ(g.initializers(), without({added[0], added[1], added[3]}));
  Value* late = g.AddInitializer(Tensor::FromVector(DataType::kFloat, {1}, std::vector<float>{9.f}));
  EXPECT_EQ(g.initializers().back(), late);
  m->journal().Rollback();
  EXPECT_EQ(g.initializers(), all);
  EXPECT_EQ(Bytes(*m), before);

  // Removed and never read again before the collection: the entries go before the values are freed.
  m->journal().Begin();
  g.RemoveValue(added[2]);
  g.RemoveValue(added[0]);
  m->journal().Commit();
  m->CollectGarbage();
  EXPECT_EQ(g.initializers(), without({added[0], added[2]}));
}

// A graph keeps its values in creation order with a hole where one was removed, closed up by the garbage
// collection: values() skips the holes and keeps the order, a rollback puts each removed value back (last), and
// the values removed before a commit are freed by the garbage collection.
TEST(Journal, RemovedValuesLeaveTheOrderOfTheRestAndComeBack) {
  auto m = ParseModelWithFunctions(kScaleModel, {});
  ASSERT_TRUE(m);
  Graph& g = m->graph();
  const std::vector<Value*> original = g.values();
  std::vector<Value*> added;
  for (int i = 0; i < 5000; ++i) added.push_back(g.AddValue("v" + std::to_string(i)));
  std::vector<Value*> all = original;
  all.insert(all.end(), added.begin(), added.end());
  ASSERT_EQ(g.values(), all);

  m->journal().Begin();
  std::vector<Value*> left = original, removed;
  for (size_t i = 0; i < added.size(); ++i) {
    if (i % 4 == 3) {
      left.push_back(added[i]);
    } else {
      g.RemoveValue(added[i]);  // 3,750 of 5,000
      removed.push_back(added[i]);
    }
  }
  EXPECT_EQ(g.values(), left);
  EXPECT_EQ(m->dead_values().size(), removed.size());
  for (Value* v : removed) EXPECT_EQ(g.FindValue(v->name()), nullptr);
  m->journal().Rollback();
  std::vector<Value*> restored = left;  // each put back last, the last removed first
  restored.insert(restored.end(), removed.rbegin(), removed.rend());
  EXPECT_EQ(g.values(), restored);
  EXPECT_TRUE(m->dead_values().empty());
  for (Value* v : removed) EXPECT_EQ(g.FindValue(v->name()), v);

  m->journal().Begin();
  for (size_t i = 0; i < 3000; ++i) g.RemoveValue(added[i]);
  m->journal().Commit();
  m->CollectGarbage();
  EXPECT_TRUE(m->dead_values().empty());
  EXPECT_EQ(g.values().size(), original.size() + 2000);
  Value* late = g.AddValue("late");  // after the holes closed up: last, and found by name
  EXPECT_EQ(g.values().back(), late);
  g.RemoveValue(late);
  EXPECT_EQ(g.values().size(), original.size() + 2000);
}

}  // namespace
}  // namespace kiln::testing
