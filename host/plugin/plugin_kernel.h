// Plugin kernels in the host's KernelRegistry (level one of GE's two-level fallback): the KernelFn adapter that
// runs a plugin's compute callback over a KernelCall, and the kernel context that callback sees. Inputs cross as
// views of the host's tensors (never copied); outputs are allocated by the host at the kernel's request
// (KernelCall::AllocateOutput). A status with KILN_STATUS_UNSUPPORTED lets the next level try; any other status
// fails the computation with a PluginError naming the plugin, the kernel and the node.
#pragma once

#include <kiln/kiln_plugin.h>

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "kernels/kernel_registry.h"
#include "plugin/host_api.h"

namespace kiln::plugin {

struct PluginKernelBinding {
  std::string plugin;  // the plugin's name, for messages
  std::string file;
  std::string name;    // the kernel's report name (domain.op_type when the plugin gave none)
  KilnKernelComputeFn compute = nullptr;
  void* user_data = nullptr;
  bool thread_safe = false;  // KILN_KERNEL_THREAD_SAFE: otherwise calls are serialised
  bool any_alignment = false;  // KILN_KERNEL_ANY_ALIGNMENT (1.8): inputs are viewed where they are stored
  std::mutex mu;
  const HostServices* services = nullptr;  // for node_compute from inside a kernel
};

KernelFn MakePluginKernelFn(std::shared_ptr<PluginKernelBinding> binding);

}  // namespace kiln::plugin

// What a kernel's callbacks receive: the call, and what the kernel has allocated so far.
struct KilnKernelContext {
  struct Output {
    enum class Kind { kUnset, kTensor, kSequence, kNone } kind = Kind::kUnset;
    kiln::plugin::StringTensorFill* strings = nullptr;  // a STRING tensor output being filled
    // A sequence output: its element type and elements (strings being filled where the type is STRING).
    int32_t elem_type = 0;
    std::vector<std::shared_ptr<const kiln::Tensor>> items;
    std::vector<kiln::plugin::StringTensorFill*> item_strings;
    std::vector<bool> item_set;
  };
  kiln::KernelCall* call = nullptr;
  std::vector<Output> outputs;
  bool any_alignment = false;  // the kernel's KILN_KERNEL_ANY_ALIGNMENT: kernel_input shows stored bytes
};
