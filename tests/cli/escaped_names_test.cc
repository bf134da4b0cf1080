// Names from a model reach a person escaped (host/support/display_text.h): a mutated model whose names hold
// invalid UTF-8 and control bytes gives messages, logs and JSON that are valid UTF-8 with no control characters.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "cli/run_kiln.h"
#include "support/display_text.h"

namespace kiln {
namespace {

using testing::RunKiln;
namespace fs = std::filesystem;

// A name as a fuzzer leaves it: an invalid byte, a C0 control, an ANSI escape sequence and a newline.
const std::string kBadName = "node\xff\x01\x1b[31mred\nline";
const std::string kBadNameShown = "node\\xff\\x01\\x1b[31mred\\nline";

// The output has only printable ASCII besides the newline that ends each line (the names are ASCII apart from
// the bytes that must be escaped, so anything else is an escape that did not happen).
::testing::AssertionResult PrintableAscii(const std::string& text) {
  for (size_t i = 0; i < text.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    if (c == '\n') continue;
    if (c < 0x20 || c >= 0x7F)
      return ::testing::AssertionFailure() << "byte 0x" << std::hex << int(c) << " at " << std::dec << i << " in: "
                                           << text;
  }
  return ::testing::AssertionSuccess();
}

onnx::ModelProto Model(const std::string& node_name, const std::string& op_type, const std::string& input,
                       const std::string& domain = "") {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(17);
  if (!domain.empty()) {
    auto* o = m.add_opset_import();
    o->set_domain(domain);
    o->set_version(1);
  }
  auto* g = m.mutable_graph();
  g->set_name("g");
  for (auto [name, list] : {std::pair{"x", g->mutable_input()}, std::pair{"y", g->mutable_output()}}) {
    auto* v = list->Add();
    v->set_name(name);
    v->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
    v->mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_value(4);
  }
  auto* n = g->add_node();
  n->set_name(node_name);
  n->set_op_type(op_type);
  n->set_domain(domain);
  n->add_input(input);
  n->add_output("y");
  return m;
}

class EscapedNames : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = testing::TempDir(::testing::UnitTest::GetInstance()->current_test_info()->name()); }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path Write(const onnx::ModelProto& m) {
    fs::path p = dir_ / "model.onnx";
    testing::WriteBytes(p, m.SerializeAsString());
    return p;
  }
  fs::path dir_;
};

TEST(EscapeForDisplay, EscapesInvalidUtf8AndControlsAndKeepsTheRest) {
  EXPECT_EQ(EscapeForDisplay(kBadName), kBadNameShown);
  EXPECT_EQ(EscapeForDisplay("caf\xc3\xa9 \xe2\x86\x92 ok\t"), "caf\xc3\xa9 \xe2\x86\x92 ok\\t");  // UTF-8 stays
  EXPECT_EQ(EscapeForDisplay("\xc3"), "\\xc3");                    // truncated sequence
  EXPECT_EQ(EscapeForDisplay("\xc0\xaf"), "\\xc0\\xaf");           // overlong '/'
  EXPECT_EQ(EscapeForDisplay("\xed\xa0\x80"), "\\xed\\xa0\\x80");  // a surrogate
  EXPECT_EQ(EscapeForDisplay("a\x7f" "b"), "a\\x7fb");
  EXPECT_EQ(EscapeForDisplay("\xc2\x85"), "\\u{0085}");            // C1 control NEL
  EXPECT_EQ(EscapeForDisplay("\xe2\x80\xae" "evil"), "\\u{202e}evil");  // right-to-left override
  EXPECT_EQ(EscapeForDisplay("two\nlines", true), "two\nlines");
  // Idempotent: escaping what was escaped changes nothing.
  EXPECT_EQ(EscapeForDisplay(EscapeForDisplay(kBadName)), kBadNameShown);
  EXPECT_TRUE(IsDisplaySafe(kBadNameShown));
  EXPECT_FALSE(IsDisplaySafe(kBadName));
  nlohmann::json j = {{kBadName, {kBadName, 3}}};
  EXPECT_EQ(EscapeJsonForDisplay(j).dump(), "{\"" + std::string("node\\\\xff\\\\x01\\\\x1b[31mred\\\\nline") +
                                                "\":[\"node\\\\xff\\\\x01\\\\x1b[31mred\\\\nline\",3]}");
}

TEST_F(EscapedNames, ErrorMessageNamingAMutatedNode) {
  // The node reads a value nothing defines, whose name is as bad as the node's: an invalid model (exit 2).
  fs::path model = Write(Model(kBadName, "Relu", "ghost\xfe\x02"));
  fs::path out = dir_ / "out.onnx";
  auto r = RunKiln("compile " + model.string() + " -o " + out.string());
  EXPECT_EQ(r.rc, 2) << r.output;
  EXPECT_TRUE(PrintableAscii(r.output));
  EXPECT_NE(r.output.find("ghost\\xfe\\x02"), std::string::npos) << r.output;
  EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << "one line: " << r.output;
  EXPECT_FALSE(fs::exists(out));
}

TEST_F(EscapedNames, InfoJsonAndTextWithAMutatedOpTypeAndDomain) {
  fs::path model = Write(Model(kBadName, "Op\xff\x07", "x", "dom\xc3"));
  auto json = RunKiln("info --json " + model.string());
  ASSERT_EQ(json.rc, 0) << json.output;
  EXPECT_TRUE(PrintableAscii(json.output));
  nlohmann::json parsed = nlohmann::json::parse(json.output);  // throws on invalid UTF-8
  EXPECT_NE(parsed.dump().find("Op\\\\xff\\\\x07"), std::string::npos) << json.output;
  auto text = RunKiln("info " + model.string());
  ASSERT_EQ(text.rc, 0) << text.output;
  EXPECT_TRUE(PrintableAscii(text.output));
  EXPECT_NE(text.output.find("Op\\xff\\x07"), std::string::npos) << text.output;
}

TEST_F(EscapedNames, WarningsAndReportOfACompile) {
  // With folding off, the Shape node that is left is named in a warning (through the log); the report is JSON.
  onnx::ModelProto m = Model(kBadName, "Shape", "x");
  m.mutable_graph()->mutable_output(0)->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::INT64);
  m.mutable_graph()->mutable_output(0)->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(0)
      ->set_dim_value(1);
  fs::path model = Write(m);
  fs::path out = dir_ / "out.onnx", report = dir_ / "report.json";
  auto r = RunKiln("compile " + model.string() + " -o " + out.string() + " -O1 --oo.constantFolding=false --report " +
                   report.string());
  ASSERT_EQ(r.rc, 0) << r.output;
  EXPECT_TRUE(PrintableAscii(r.output));
  EXPECT_NE(r.output.find(kBadNameShown), std::string::npos) << r.output;
  std::ifstream in(report);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_TRUE(PrintableAscii(text));
  nlohmann::json parsed;
  EXPECT_NO_THROW(parsed = nlohmann::json::parse(text));  // throws on invalid UTF-8
  EXPECT_TRUE(parsed.contains("stages"));
}

}  // namespace
}  // namespace kiln
