#include "support/golden.h"

#include <onnx/defs/parser.h>
#include <onnx/defs/printer.h>
#include <onnx/onnx_pb.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "onnx/onnx_export.h"
#include "onnx/onnx_import.h"
#include "support/error.h"

namespace kiln::testing {

std::unique_ptr<Model> ParseModel(const std::string& text) {
  onnx::ModelProto proto;
  auto status = onnx::OnnxParser::Parse(proto, text.c_str());
  if (!status.IsOK()) {
    ADD_FAILURE() << "ONNX text does not parse: " << status.ErrorMessage() << "\n" << text;
    return nullptr;
  }
  try {
    return ImportModel(std::move(proto), "<text>", "");
  } catch (const Error& e) {
    ADD_FAILURE() << "import failed: " << e.what();
    return nullptr;
  }
}

std::string PrintGraph(const Model& model) {
  onnx::ModelProto p = ExportModelProto(model);
  std::ostringstream os;
  os << p.graph();
  return os.str();
}

std::string Canonical(const std::string& text) {
  auto m = ParseModel(text);
  return m ? PrintGraph(*m) : std::string("<unparsable>");
}

::testing::AssertionResult MatchesGoldenFile(const Model& model, const std::string& path) {
  std::string actual = PrintGraph(model);
  const char* update = std::getenv("KILN_UPDATE_GOLDENS");
  std::ifstream in(path);
  std::stringstream buf;
  buf << in.rdbuf();
  if (update && std::string(update) == "1") {
    // A whole model in text form: the header the parser needs, then the graph.
    std::ofstream out(path);
    out << "<ir_version: " << model.ir_version << ", opset_import: [";
    for (size_t i = 0; i < model.opset_imports.size(); ++i)
      out << (i ? ", " : "") << "\"" << model.opset_imports[i].domain << "\" : " << model.opset_imports[i].version;
    out << "]>\n" << actual;
    return ::testing::AssertionSuccess();
  }
  if (!in) return ::testing::AssertionFailure() << "no golden file " << path << " (KILN_UPDATE_GOLDENS=1 writes it)";
  std::string expected = Canonical(buf.str());
  if (expected == actual) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "graph differs from " << path << "\n--- expected\n" << expected << "\n--- actual\n"
                                       << actual;
}

}  // namespace kiln::testing
