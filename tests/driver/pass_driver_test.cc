// The node-pass driver: Kahn order, re-pass and immediate re-pass, deleted nodes, the after-walk hook,
// subgraphs walked by the driver, roll-back of a failing call, and rewrite cycles detected and named.
#include "driver/pass_driver.h"

#include <gtest/gtest.h>

#include "driver/test_passes.h"
#include "ir/model.h"
#include "support/error.h"
#include "support/golden.h"

namespace kiln {
namespace {

using testing::Canonical;
using testing::LambdaPass;
using testing::ParseModel;
using testing::PrintGraph;

constexpr const char* kHeader = R"(<ir_version: 8, opset_import: ["" : 17]>)";

std::string M(const std::string& body) { return std::string(kHeader) + "\n" + body; }

// A node pass that records the op type of each node it is called on, in call order, and changes nothing.
struct OpTypeRecorder {
  std::vector<std::string> order;
  LambdaPass pass{"Record", [this](Node& n, PassContext&) {
                    order.push_back(n.op_type());
                    return false;
                  }};
};

TEST(PassDriver, RemovesIdentityChainGolden) {
  auto m = ParseModel(M(R"(g (float[2] x) => (float[2] y) {
    a = Identity(x)
    b = Relu(a)
    c = Identity(b)
    y = Abs(c)
  })"));
  ASSERT_TRUE(m);
  LambdaPass p("RemoveIdentity", testing::RemoveIdentity);
  PassDriver d(*m, {.verify_each = true});
  EXPECT_TRUE(d.RunNodePasses({&p}));
  EXPECT_EQ(PrintGraph(*m), Canonical(M(R"(g (float[2] x) => (float[2] y) {
    b = Relu(x)
    y = Abs(b)
  })")));
  EXPECT_EQ(d.stats()[0].changes, 2u);
}

TEST(PassDriver, NoChangeWhereNothingApplies) {
  const std::string text = M(R"(g (float[2] x) => (float[2] y) {
    b = Relu(x)
    y = Abs(b)
  })");
  auto m = ParseModel(text);
  ASSERT_TRUE(m);
  LambdaPass p("RemoveIdentity", testing::RemoveIdentity);
  PassDriver d(*m, {.verify_each = true});
  EXPECT_FALSE(d.RunNodePasses({&p}));
  EXPECT_EQ(PrintGraph(*m), Canonical(text));
  EXPECT_EQ(d.stats()[0].runs, 2u);
}

TEST(PassDriver, VisitsInKahnOrderEvenWhenStoredOutOfOrder) {
  auto m = ParseModel(M(R"(g (float[2] x) => (float[2] y) {
    y = Abs(c)
    c = Neg(b)
    b = Relu(x)
  })"));
  ASSERT_TRUE(m);
  OpTypeRecorder rec;
  PassDriver d(*m, {});
  d.RunNodePasses({&rec.pass});
  EXPECT_EQ(rec.order, (std::vector<std::string>{"Relu", "Neg", "Abs"}));
}

TEST(PassDriver, ImmediateRepassRunsNextAndRepassRunsLater) {
  auto m = ParseModel(M(R"(g (float[2] x) => (float[2] y, float[2] z) {
    a = Relu(x)
    b = Neg(x)
    y = Abs(a)
    z = Abs(b)
  })"));
  ASSERT_TRUE(m);
  std::vector<std::string> order;
  int asked = 0;
  LambdaPass p("Record", [&](Node& n, PassContext& ctx) {
    order.push_back(n.name().empty() ? n.op_type() : n.op_type());
    if (n.op_type() == "Neg" && asked++ == 0) {
      // Re-visit the first Relu right away, and Neg itself after what is queued.
      for (const auto& other : n.graph()->nodes())
        if (other->op_type() == "Relu") ctx.RequestImmediateRepass(other.get());
      ctx.RequestRepass(&n);
    }
    return false;
  });
  PassDriver d(*m, {});
  d.RunNodePasses({&p});
  EXPECT_EQ(order, (std::vector<std::string>{"Relu", "Neg", "Relu", "Abs", "Abs", "Neg"}));
}

TEST(PassDriver, AfterWalkHookHandsBackNodes) {
  auto m = ParseModel(M(R"(g (float[2] x) => (float[2] y) {
    a = Relu(x)
    y = Identity(a)
  })"));
  ASSERT_TRUE(m);
  int finish_calls = 0, identity_visits = 0;
  LambdaPass p(
      "Deferred",
      [&](Node& n, PassContext& ctx) {
        if (n.op_type() != "Identity") return false;
        // Only removes it on the second visit: the first is left for after the walk.
        if (++identity_visits < 2) return false;
        return testing::RemoveIdentity(n, ctx);
      },
      [&](Graph& g, PassContext& ctx) {
        ++finish_calls;
        for (const auto& n : g.nodes())
          if (n->op_type() == "Identity") ctx.RequestRepass(n.get());
        return false;
      });
  PassDriver d(*m, {});
  d.RunNodePasses({&p});
  EXPECT_EQ(identity_visits, 2);
  EXPECT_EQ(finish_calls, 2);  // once handing back the Identity, once finding nothing left
  EXPECT_EQ(m->graph().num_nodes(), 1u);
}

TEST(PassDriver, WalksSubgraphsBeforeTheirNode) {
  auto m = ParseModel(M(R"(g (bool c, float[2] x) => (float[2] y) {
    y = If(c) <then_branch = t () => (float[2] ty) { ti = Identity(x)
      ty = Relu(ti) }, else_branch = e () => (float[2] ey) { ey = Neg(x) }>
  })"));
  ASSERT_TRUE(m);
  OpTypeRecorder rec;
  LambdaPass rm("RemoveIdentity", testing::RemoveIdentity);
  PassDriver d(*m, {.verify_each = true});
  d.RunNodePasses({&rec.pass, &rm});
  EXPECT_EQ(rec.order, (std::vector<std::string>{"Identity", "Relu", "Neg", "If"}));
  const Graph* then_branch = m->graph().nodes().front()->subgraphs()[0];
  EXPECT_EQ(then_branch->num_nodes(), 1u);
  EXPECT_EQ(then_branch->nodes().front()->input(0)->name(), "x");  // now reads the outer value directly
}

// A walk leaves no mark behind: the next walk of the same graph visits every node again, the subgraphs' nodes
// included (the outermost walk clears all marks, the walks of subgraphs inside it their own).
TEST(PassDriver, EachWalkVisitsEveryNodeAgain) {
  auto m = ParseModel(M(R"(g (bool c, float[2] x) => (float[2] y) {
    a = Relu(x)
    y = If(c) <then_branch = t () => (float[2] ty) { ty = Relu(a) }, else_branch = e () => (float[2] ey) { ey = Neg(a) }>
  })"));
  ASSERT_TRUE(m);
  OpTypeRecorder rec;
  PassDriver d(*m, {});
  const std::vector<std::string> once = {"Relu", "Relu", "Neg", "If"};
  for (int walk = 0; walk < 3; ++walk) {
    rec.order.clear();
    d.RunNodePasses({&rec.pass});
    EXPECT_EQ(rec.order, once) << "walk " << walk;
  }
}

TEST(PassDriver, FailingCallIsRolledBackBitIdentical) {
  const std::string text = M(R"(g (float[2] x) => (float[2] y) {
    a = Identity(x)
    y = Relu(a)
  })");
  auto m = ParseModel(text);
  ASSERT_TRUE(m);
  const std::string before = PrintGraph(*m);
  LambdaPass bad("Breaks", [](Node& n, PassContext&) -> bool {
    if (n.op_type() != "Relu") return false;
    Graph& g = *n.graph();
    n.SetOpType("Sigmoid", "");
    n.SetAttribute(Attribute::Int("junk", 3));
    Node* extra = g.AddNode("Neg", {n.input(0)}, 1);
    n.SetInput(0, extra->output(0));
    throw std::runtime_error("half-way failure");
  });
  PassDriver d(*m, {.verify_each = true});
  EXPECT_FALSE(d.RunNodePasses({&bad}));
  EXPECT_EQ(PrintGraph(*m), before);
  EXPECT_EQ(d.stats()[0].failures, 1u);

  auto m2 = ParseModel(text);
  PassDriver strict(*m2, {.strict = true});
  try {
    strict.RunNodePasses({&bad});
    ADD_FAILURE() << "expected an error under strict";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("pass Breaks failed on node"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("half-way failure"), std::string::npos);
  }
  EXPECT_EQ(PrintGraph(*m2), before);
}

TEST(PassDriver, RepassCycleIsDetectedAndNamed) {
  auto m = ParseModel(M(R"(g (float[2] x) => (float[2] y) {
    y = Relu(x)
  })"));
  ASSERT_TRUE(m);
  LambdaPass a("ReluToSigmoid", testing::Flip("Relu", "Sigmoid"));
  LambdaPass b("SigmoidToRelu", testing::Flip("Sigmoid", "Relu"));
  LambdaPass bystander("AbsToNeg", testing::Flip("Abs", "Neg"));  // in the walk, never asks for a re-pass
  PassDriver d(*m, {});
  try {
    d.RunNodePasses({&a, &bystander, &b});
    ADD_FAILURE() << "expected a rewrite cycle";
  } catch (const Error& e) {
    std::string msg = e.what();
    EXPECT_EQ(e.code(), ExitCode::kInternal);
    EXPECT_NE(msg.find("rewrite cycle"), std::string::npos) << msg;
    EXPECT_NE(msg.find("re-pass requested by ReluToSigmoid, SigmoidToRelu"), std::string::npos) << msg;
    EXPECT_EQ(msg.find("AbsToNeg"), std::string::npos) << msg;
  }
}

TEST(PassDriver, GraphStateCycleIsDetectedAndNamed) {
  auto m = ParseModel(M(R"(g (float[2] x) => (float[2] y) {
    a = Relu(x)
    y = Abs(a)
  })"));
  ASSERT_TRUE(m);
  LambdaPass a("ReluToTanh", testing::Replace("Relu", "Tanh"));
  LambdaPass b("TanhToRelu", testing::Replace("Tanh", "Relu"));
  PassDriver d(*m, {});
  try {
    d.RunNodePasses({&a, &b});
    ADD_FAILURE() << "expected a rewrite cycle";
  } catch (const Error& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("came back to an earlier state"), std::string::npos) << msg;
    EXPECT_NE(msg.find("ReluToTanh"), std::string::npos) << msg;
    EXPECT_NE(msg.find("TanhToRelu"), std::string::npos) << msg;
  }
}

TEST(PassDriver, VerifyEachCatchesABrokenGraph) {
  auto m = ParseModel(M(R"(g (float[2] x) => (float[2] y) {
    a = Relu(x)
    y = Abs(a)
  })"));
  ASSERT_TRUE(m);
  LambdaPass bad("DropsInput", [](Node& n, PassContext&) {
    if (n.op_type() != "Abs") return false;
    n.SetInput(0, nullptr);  // Abs needs its input: the schema check must notice
    return true;
  });
  PassDriver d(*m, {.verify_each = true});
  try {
    d.RunNodePasses({&bad});
    ADD_FAILURE() << "expected a verification failure";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kInternal);
    EXPECT_NE(std::string(e.what()).find("DropsInput"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace kiln
