// ABI 1.9's prepare hook through the C++ wrapper (prepare_cli_test):
//   PrepareProbePass   Prepare counts its calls and starts a thread that, after a short sleep, writes the file
//                      named by KILN_PREPARE_MARKER (when set); Run waits for that thread and reports the count
//                      (counter prepare_calls) and whether the thread had finished (prepared_before_run). The
//                      pass's destructor joins a thread Run never waited for (a compile that failed first).
//   FailingPreparePass Prepare throws; Run still runs (counter ran).
#include <kiln/kiln_plugin.hpp>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <string_view>
#include <thread>

namespace {

namespace sdk = kiln::sdk;

class PrepareProbePass final : public sdk::GraphPass {
 public:
  static constexpr std::string_view kName = "PrepareProbePass";
  static constexpr std::string_view kDescription = "counts its prepare calls and waits for their work in Run";

  ~PrepareProbePass() override {
    if (work_.joinable()) work_.join();
  }

  void Prepare() override {
    ++prepare_calls_;
    if (work_.joinable()) return;
    work_ = std::thread([this] {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      if (const char* marker = std::getenv("KILN_PREPARE_MARKER")) std::ofstream(marker) << "prepared\n";
      done_ = true;
    });
  }

  void Run(sdk::PassContext& ctx, sdk::Graph graph) override {
    if (graph.ParentNode()) return;
    if (work_.joinable()) work_.join();
    ctx.AddCounter("prepare_calls", prepare_calls_);
    ctx.AddCounter("prepared_before_run", done_ ? 1 : 0);
  }

 private:
  int64_t prepare_calls_ = 0;
  bool done_ = false;
  std::thread work_;
};

class FailingPreparePass final : public sdk::GraphPass {
 public:
  static constexpr std::string_view kName = "FailingPreparePass";
  static constexpr std::string_view kDescription = "fails to prepare and runs all the same";

  void Prepare() override { throw sdk::Error("the probe's cache is unreadable", KILN_STATUS_INVALID_ARGUMENT); }
  void Run(sdk::PassContext& ctx, sdk::Graph graph) override {
    if (!graph.ParentNode()) ctx.AddCounter("ran", 1);
  }
};

}  // namespace

KILN_PLUGIN("test_prepare", "1.0.0", "ABI 1.9 prepare hook probes") {
  reg.AddGraphPass<PrepareProbePass>();
  reg.AddGraphPass<FailingPreparePass>();
}
