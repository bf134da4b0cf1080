// The adapter that puts a plugin's kernel into the KernelRegistry: see plugin_kernel.h.
#include "plugin/plugin_kernel.h"

#include "ir/node.h"
#include "support/error.h"

namespace kiln::plugin {
namespace {

std::shared_ptr<const Tensor> FinishedStrings(const StringTensorFill& fill) {
  return std::make_shared<const Tensor>(Tensor::FromStrings(fill.dims, fill.strings));
}

// Turns what the kernel filled into the call's outputs: STRING tensors and sequences are assembled here.
void FinishOutputs(KilnKernelContext& ctx) {
  for (size_t i = 0; i < ctx.outputs.size(); ++i) {
    auto& o = ctx.outputs[i];
    if (o.kind == KilnKernelContext::Output::Kind::kTensor && o.strings) {
      ctx.call->SetOutput(i, RtValue::Of(FinishedStrings(*o.strings)));
    } else if (o.kind == KilnKernelContext::Output::Kind::kSequence) {
      std::vector<std::shared_ptr<const Tensor>> items = o.items;
      for (size_t k = 0; k < items.size(); ++k) {
        if (!o.item_set[k])
          throw std::runtime_error("element " + std::to_string(k) + " of sequence output " + std::to_string(i) +
                                   " was never allocated");
        if (o.item_strings[k]) items[k] = FinishedStrings(*o.item_strings[k]);
      }
      ctx.call->SetOutput(i, RtValue::Sequence(static_cast<DataType>(o.elem_type), std::move(items)));
    }
  }
}

std::string NodeLabel(const Node& n) {
  return "node '" + n.name() + "' (" + (n.domain().empty() ? "" : n.domain() + ".") + n.op_type() + ")";
}

}  // namespace

KernelFn MakePluginKernelFn(std::shared_ptr<PluginKernelBinding> binding) {
  return [binding](KernelCall& call) -> KernelResult {
    std::unique_lock<std::mutex> lock(binding->mu, std::defer_lock);
    if (!binding->thread_safe) lock.lock();
    KilnKernelContext ctx;
    ctx.call = &call;
    ctx.outputs.resize(call.num_outputs());
    ctx.any_alignment = binding->any_alignment;
    CallFrame frame(binding->services);
    KilnStatus* status = StatusOf("the kernel", [&] { return binding->compute(binding->user_data, &ctx); });
    if (status != nullptr) {
      if (status->code == KILN_STATUS_UNSUPPORTED) {
        delete status;
        return KernelResult::kUnsupported;
      }
      throw PluginError("plugin " + binding->plugin + " (" + binding->file + "): kernel " + binding->name +
                        " failed on " + NodeLabel(call.node()) + ": " + TakeStatusText(status));
    }
    try {
      FinishOutputs(ctx);
    } catch (const std::exception& e) {
      throw PluginError("plugin " + binding->plugin + " (" + binding->file + "): kernel " + binding->name + " on " +
                        NodeLabel(call.node()) + ": " + e.what());
    }
    return KernelResult::kDone;
  };
}

}  // namespace kiln::plugin
