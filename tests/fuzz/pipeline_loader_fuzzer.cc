// Fuzz harness: pipeline YAML -> kiln::LoadPipelineText (yaml-cpp, `extends` of the shipped levels, stages and
// their edits, options, aliases), then what `kiln compile --print-pipeline` does with it: resolve the options,
// plan the pipeline and print the plan. The pass catalog and the option registry are a Compiler's with every
// plugin of the build loaded, so pass and option names of plugins are known. A bad file must be a kiln::Error
// (a ConfigError with file:line:column); anything else escaping, a crash or a sanitizer report is a bug.
#include <cstddef>
#include <cstdint>
#include <exception>
#include <string_view>

#include "compile/compiler.h"
#include "fuzz_support.h"
#include "options/option_resolver.h"
#include "pipeline/pipeline_loader.h"
#include "pipeline/pipeline_plan.h"
#include "pipeline/pipeline_printer.h"
#include "pipeline/shipped_pipelines.h"
#include "support/error.h"
#include "support/logging.h"

namespace {

kiln::Compiler& SharedCompiler() {
  static kiln::Compiler* compiler = [] {
    kiln::SetLogLevel("off");
    auto* c = new kiln::Compiler();
    c->LoadSearchPathPlugins();
    return c;
  }();
  return *compiler;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > kiln::fuzz::kMaxInputBytes) return -1;
  kiln::Compiler& compiler = SharedCompiler();
  std::string_view yaml(reinterpret_cast<const char*>(data), size);
  try {
    kiln::PipelineLoadOptions load;
    load.unknown_option_message = [&](std::string_view name) { return compiler.UnknownOptionMessage(name); };
    kiln::Pipeline pipeline = kiln::LoadPipelineText(yaml, "fuzz.yaml", kiln::ShippedPipelineDir(),
                                                     compiler.options(), compiler.passes(), load);
    kiln::OptionLayers layers{nullptr, nullptr, &pipeline.options};
    kiln::ResolvedOptions options = kiln::ResolveOptions(compiler.options(), pipeline.level, layers);
    kiln::PipelinePlan plan = kiln::PlanPipeline(pipeline, options, compiler.passes());
    (void)kiln::PrintPipeline(pipeline, plan, options);
  } catch (const kiln::Error&) {
  } catch (const std::exception& e) {
    kiln::fuzz::Fail("a pipeline threw a non-kiln exception", e.what());
  }
  return 0;
}
