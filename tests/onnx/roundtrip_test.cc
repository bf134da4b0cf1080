// Import then export with no passes is lossless on every model of Debian's libonnx-testdata (1,072 cases): the
// same nodes in the same order (sorted when the input was not), attributes, initializers bit for bit, opsets,
// value infos, metadata and doc strings; and an output passes ONNX's checker whenever its input did. Loading goes
// through the weight split (weight_split.h) and the file written by WriteModel parses to the same model.
#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>
#include <onnx/checker.h>
#include <onnx/onnx_pb.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <unordered_set>

#include "ir/model.h"
#include "onnx/onnx_export.h"
#include "onnx/onnx_import.h"
#include "support/error.h"
#include "support/testdata.h"

namespace kiln {
namespace {

using google::protobuf::util::MessageDifferencer;

onnx::ModelProto ReadProto(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  onnx::ModelProto p;
  EXPECT_TRUE(p.ParseFromIstream(&in)) << path;
  return p;
}

bool Checks(const onnx::ModelProto& p) {
  try {
    onnx::checker::check_model(p);
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

// True when every node reads only values defined before it (in its graph or an enclosing one).
bool IsSorted(const onnx::GraphProto& g, std::unordered_set<std::string> defined) {
  for (const auto& i : g.input()) defined.insert(i.name());
  for (const auto& i : g.initializer()) defined.insert(i.name());
  for (const auto& n : g.node()) {
    for (const auto& in : n.input())
      if (!in.empty() && !defined.count(in)) return false;
    for (const auto& a : n.attribute()) {
      if (a.has_g() && !IsSorted(a.g(), defined)) return false;
      for (const auto& sg : a.graphs())
        if (!IsSorted(sg, defined)) return false;
    }
    for (const auto& o : n.output()) defined.insert(o);
  }
  return true;
}

class RoundTrip : public ::testing::TestWithParam<std::string> {};

TEST_P(RoundTrip, EveryModelIsLossless) {
  auto cases = kiln::testing::TestdataCases(GetParam());
  ASSERT_FALSE(cases.empty()) << "no cases under " << kiln::testing::kTestdataRoot << "/" << GetParam()
                              << " (apt-get install libonnx-testdata)";
  int checked = 0;
  for (const auto& dir : cases) {
    const std::string path = (dir / "model.onnx").string();
    SCOPED_TRACE(path);
    onnx::ModelProto original = ReadProto(path);
    std::unique_ptr<Model> model;
    try {
      model = LoadModel(path);
    } catch (const Error& e) {
      ADD_FAILURE() << "import failed: " << e.what();
      continue;
    }
    onnx::ModelProto out = ExportModelProto(*model);
    MessageDifferencer diff;
    diff.set_message_field_comparison(MessageDifferencer::EQUIVALENT);
    const bool sorted = IsSorted(original.graph(), {});
    if (!sorted) diff.TreatAsSet(onnx::GraphProto::descriptor()->FindFieldByName("node"));
    std::string report;
    diff.ReportDifferencesToString(&report);
    EXPECT_TRUE(diff.Compare(original, out)) << report.substr(0, 2000);
    if (!sorted) {
      EXPECT_TRUE(IsSorted(out.graph(), {})) << "output not topologically sorted";
    }
    // The streamed file writer (weights written straight from their buffers) gives the same model.
    const std::string written = (std::filesystem::temp_directory_path() / ("kiln_rt_" + std::to_string(::getpid()) + ".onnx")).string();
    WriteModel(*model, written);
    MessageDifferencer same;
    std::string written_report;
    same.ReportDifferencesToString(&written_report);
    EXPECT_TRUE(same.Compare(out, ReadProto(written))) << "WriteModel differs: " << written_report.substr(0, 2000);
    std::filesystem::remove(written);
    if (Checks(original)) {
      EXPECT_TRUE(Checks(out)) << "the input passed onnx::checker but the output does not";
      ++checked;
    }
  }
  RecordProperty("cases", static_cast<int>(cases.size()));
  RecordProperty("checked", checked);
}

INSTANTIATE_TEST_SUITE_P(Testdata, RoundTrip, ::testing::ValuesIn(kiln::testing::TestdataFolders()),
                         [](const auto& info) {
                           std::string n = info.param;
                           for (char& c : n)
                             if (c == '-') c = '_';
                           return n;
                         });

TEST(RoundTripCount, AllCasesPresent) {
  size_t total = 0;
  for (const auto& f : kiln::testing::TestdataFolders()) total += kiln::testing::TestdataCases(f).size();
  EXPECT_EQ(total, 1072u);
}

}  // namespace
}  // namespace kiln
