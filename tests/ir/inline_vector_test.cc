// InlineVector (host/ir/inline_vector.h): the IR's short lists keep their elements in place up to N and on the heap
// past it, through growth, insertion, erasure (order kept, as std::vector's), and resize, checked against
// std::vector; and the lists a node and a value keep stay right as they move between the two.
#include "ir/inline_vector.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "ir/graph.h"
#include "ir/model.h"

namespace kiln {
namespace {

template <typename T, uint32_t N>
std::vector<T> Contents(const InlineVector<T, N>& v) {
  return std::vector<T>(v.begin(), v.end());
}

TEST(InlineVector, MatchesAVectorThroughGrowthInsertionErasureAndResize) {
  InlineVector<int, 2> v;
  std::vector<int> want;
  std::mt19937 rng(11);
  for (int step = 0; step < 5000; ++step) {
    const unsigned op = rng() % 10;
    if (op < 5) {
      v.push_back(step);
      want.push_back(step);
    } else if (op < 8 && !want.empty()) {
      const size_t i = rng() % want.size();
      v.erase(v.begin() + i);
      want.erase(want.begin() + static_cast<std::ptrdiff_t>(i));
    } else if (op == 8) {
      const size_t n = rng() % 6;
      v.resize(n, -1);
      want.resize(n, -1);
    } else {
      const size_t at = rng() % (want.size() + 1);
      v.insert(at, step);
      want.insert(want.begin() + static_cast<std::ptrdiff_t>(at), step);
    }
    ASSERT_EQ(Contents(v), want) << "step " << step;
    ASSERT_EQ(v.size(), want.size());
    ASSERT_EQ(v.empty(), want.empty());
  }
  std::span<const int> s = v;
  EXPECT_EQ(std::vector<int>(s.begin(), s.end()), want);
}

TEST(InlineVector, KeepsItsElementsWhenItMovesOntoTheHeap) {
  InlineVector<int, 1> v;
  v.push_back(7);
  const int* in_place = v.begin();
  v.push_back(8);  // past N: onto the heap
  EXPECT_NE(v.begin(), in_place);
  EXPECT_EQ(Contents(v), (std::vector<int>{7, 8}));
  v.resize(40, 3);
  EXPECT_EQ(v.size(), 40u);
  EXPECT_EQ(v[0], 7);
  EXPECT_EQ(v[1], 8);
  EXPECT_EQ(v[39], 3);
}

TEST(InlineVector, ANodesInputsAndAValuesReadersPastTheirInPlaceElements) {
  Model m;
  Graph& g = m.graph();
  Value* x = g.AddValue("x");
  Node* concat = g.AddNode("Concat", {x, x, x, x}, 1);  // an output and four inputs: past the three in place
  Node* relu = g.AddNode("Relu", {x}, 1);
  ASSERT_EQ(concat->num_inputs(), 4u);
  for (size_t i = 0; i < 4; ++i) EXPECT_EQ(concat->input(i), x);
  ASSERT_EQ(x->uses().size(), 5u);  // past the one reader in place
  concat->SetInput(1, nullptr);
  const std::vector<Use> want = {{concat, 0}, {concat, 2}, {concat, 3}, {relu, 0}};  // order kept
  EXPECT_EQ(std::vector<Use>(x->uses().begin(), x->uses().end()), want);
  concat->ResizeInputs(1);
  EXPECT_EQ(concat->num_inputs(), 1u);
  EXPECT_EQ(std::vector<Use>(x->uses().begin(), x->uses().end()), (std::vector<Use>{{concat, 0}, {relu, 0}}));
}

// A node keeps its outputs and then its inputs in one list: growing or shrinking the inputs, in place or past it,
// leaves the outputs as they were.
TEST(InlineVector, ANodesOutputsStayApartFromItsInputsAsTheInputsChange) {
  Model m;
  Graph& g = m.graph();
  Value* x = g.AddValue("x");
  Value* y = g.AddValue("y");
  Node* split = g.AddNode("Split", {x}, 2);
  const std::vector<Value*> outs(split->outputs().begin(), split->outputs().end());
  ASSERT_EQ(outs.size(), 2u);
  auto expect = [&](std::vector<Value*> inputs) {
    EXPECT_EQ(std::vector<Value*>(split->outputs().begin(), split->outputs().end()), outs);
    EXPECT_EQ(std::vector<Value*>(split->inputs().begin(), split->inputs().end()), inputs);
    EXPECT_EQ(split->num_inputs(), inputs.size());
    for (size_t i = 0; i < outs.size(); ++i) {
      EXPECT_EQ(split->output(i), outs[i]);
      EXPECT_EQ(outs[i]->producer_output(), i);
    }
    EXPECT_EQ(split->output(2), nullptr);
    EXPECT_EQ(split->input(inputs.size()), nullptr);
  };
  expect({x});
  split->SetInput(1, y);  // four in all: onto the heap
  expect({x, y});
  split->SetInput(4, x);
  expect({x, y, nullptr, nullptr, x});
  split->ResizeInputs(1);
  expect({x});
  EXPECT_EQ(x->uses().size(), 1u);
  EXPECT_TRUE(y->uses().empty());
  split->ResizeInputs(0);
  expect({});
}

}  // namespace
}  // namespace kiln
