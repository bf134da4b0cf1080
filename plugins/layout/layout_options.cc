// The layout plugin's options, registered with it (TargetFormatPass reads them by full name).
#include <kiln/kiln_plugin_parts.hpp>

namespace {

using kiln::sdk::OptionSpec;

}  // namespace

KILN_PLUGIN_PART(LayoutOptions) {
  reg.AddOption(OptionSpec::Bool("oo.targetFormats", true,
                                 "Target data formats (TargetFormatPass, O3's AfterAutofuse stage, only with "
                                 "--target): ops the target prefers in a blocked format (NC1HWC0) run in it, with "
                                 "conversions as model-local functions where the format changes.")
                    .MinLevel(3));
}
