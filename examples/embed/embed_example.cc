// Embeds Kiln: one session, one model built twice with different graph options, the way GE's users call
// aclgrphBuildInitialize, aclgrphBuildModel (per graph) and aclgrphBuildFinalize.
//
//   embed_example MODEL.onnx [OUT_DIR]
//
// Graph A is compiled at O0 (no passes), graph B at the session's level (O1) with dead-code elimination turned off
// for it alone: graph options take precedence over session options. Both summaries are printed; with OUT_DIR the
// two optimised models are written there as a.onnx and b.onnx.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>

#include "kiln/kiln.h"

namespace {

int Fail(const kiln::Status& s) {
  std::cerr << "embed_example: " << s.ToString() << "\n";
  return s.exit_code();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: embed_example MODEL.onnx [OUT_DIR]\n";
    return 1;
  }
  const std::string model = argv[1];

  // Session (global) options; plugins come from the level's pipeline and the search path, so none are named here.
  std::unique_ptr<kiln::Session> session;
  kiln::Status s = kiln::Session::Create({{"oo.level", "O1"}}, /*plugins=*/{}, &session);
  if (!s.ok()) return Fail(s);

  struct Graph {
    const char* label;
    kiln::GraphOptions options;
    kiln::BuildResult result;
  } graphs[] = {
      {"A (oo.level=O0)", {{"oo.level", "O0"}}, {}},
      {"B (oo.level=O1 from the session, oo.deadCodeElimination=false)", {{"oo.deadCodeElimination", "false"}}, {}},
  };
  for (Graph& g : graphs) {
    s = session->BuildModel(model, g.options, &g.result);
    if (!s.ok()) return Fail(s);
    std::cout << "graph " << g.label << ": " << g.result.nodes_before << " -> " << g.result.nodes_after
              << " nodes, " << g.result.model_bytes.size() << " bytes\n"
              << g.result.summary;
  }
  if (argc > 2) {
    std::filesystem::create_directories(argv[2]);
    std::ofstream(std::filesystem::path(argv[2]) / "a.onnx", std::ios::binary) << graphs[0].result.model_bytes;
    std::ofstream(std::filesystem::path(argv[2]) / "b.onnx", std::ios::binary) << graphs[1].result.model_bytes;
    std::ofstream(std::filesystem::path(argv[2]) / "b.report.json") << graphs[1].result.report_json << "\n";
  }
  s = session->Finalize();
  if (!s.ok()) return Fail(s);
  return 0;
}
