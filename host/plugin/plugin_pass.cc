// Plugin pass adapters and the pass-context slots: see plugin_pass.h.
//
// Each callback runs as its own transaction nested in the driver's: the model's journal is set aside and a fresh
// one records the callback's changes. On success that journal is handed to the driver's transaction (so the
// driver can still undo the call) and, for node passes, kept for the rest of the walk (so a later failure can
// undo the whole pass). On failure it is rolled back at once.
#include "plugin/plugin_pass.h"

#include <functional>
#include <tuple>
#include <utility>

#include "driver/pass.h"
#include "driver/pass_context.h"
#include "ir/model.h"
#include "options/option_resolver.h"
#include "support/error.h"

namespace kiln::plugin {
namespace {

thread_local const ResolvedOptions* t_options = nullptr;
// Counts changing calls of every plugin pass on this thread: a pass undoing its earlier calls checks that no
// other plugin pass changed the graph in between.
thread_local uint64_t t_plugin_changes = 0;

// The plugin callback running on this thread, for pass_checkpoint: a graph pass's context (null for a node pass),
// and the journal RunCallback set aside for the call (the driver's transaction, holding the pass's calls on other
// graphs of this run). Null outside callbacks.
struct CallState {
  PassContext* graph_pass = nullptr;
  Journal* set_aside = nullptr;
};
thread_local CallState* t_call = nullptr;

// Undoes `j` with it installed as the model's journal, so the undo steps record nowhere. Not for use while the
// driver itself is rolling back (its journal is then being iterated).
void RollbackInModel(Model& m, Journal& j) {
  Journal& model_journal = m.journal();
  Journal outer = std::move(model_journal);
  model_journal = std::move(j);
  model_journal.Rollback();
  j = std::move(model_journal);
  model_journal = std::move(outer);
}

struct CallResult {
  std::string error;                 // empty on success
  bool config_error = false;         // the plugin failed with KILN_STATUS_CONFIG_ERROR
  std::shared_ptr<Journal> journal;  // the call's changes (rolled back already when it failed)
};

// Sets Model::preserved_analyses for the life of the scope.
class PreservedAnalysesScope {
 public:
  PreservedAnalysesScope(Model& m, uint32_t bits) : m_(m), outer_(m.preserved_analyses) { m.preserved_analyses = bits; }
  ~PreservedAnalysesScope() { m_.preserved_analyses = outer_; }
  PreservedAnalysesScope(const PreservedAnalysesScope&) = delete;
  PreservedAnalysesScope& operator=(const PreservedAnalysesScope&) = delete;

 private:
  Model& m_;
  uint32_t outer_;
};

// Runs one plugin callback in its own journal and frame; `graph_pass` is a graph pass's context (null for a node
// pass's callback), which may keep its changes part-way (pass_checkpoint).
CallResult RunCallback(Model& m, const PluginPassDef& def, const std::function<KilnStatus*()>& call,
                       PassContext* graph_pass = nullptr) {
  Journal& model_journal = m.journal();
  Journal outer = std::move(model_journal);
  model_journal = Journal();
  model_journal.Begin();
  CallResult r;
  CallState state{graph_pass, &outer};
  struct Current {  // t_call is `state` for the call, however it ends
    CallState* outer;
    ~Current() { t_call = outer; }
  } current{std::exchange(t_call, &state)};
  try {
    // The pass's preserved analyses hold for its own changes only: the outer value is back before a roll-back.
    PreservedAnalysesScope preserved(m, def.preserved_analyses);
    CallFrame frame(def.services);
    KilnStatus* status = StatusOf("the plugin's callback", call);
    if (status) {
      r.config_error = status->code == KILN_STATUS_CONFIG_ERROR;
      r.error = TakeStatusText(status);
    } else {
      frame.Finish();
    }
  } catch (const std::exception& e) {
    r.error = std::string("host error after the callback returned: ") + e.what();
  }
  r.journal = std::make_shared<Journal>(std::move(model_journal));
  model_journal = std::move(outer);
  if (!r.error.empty()) {
    RollbackInModel(m, *r.journal);
  } else if (r.journal->size() > 0 && model_journal.active()) {
    // The driver may still undo this call (a graph pass failing on a later graph): then its journal is inactive
    // while it runs this, so the undo steps record nowhere.
    model_journal.Record([j = r.journal] { j->Rollback(); });
  }
  return r;
}

std::string Who(const PluginPassDef& def) { return "plugin " + def.plugin + " (" + def.file + ")"; }

using Stamp = std::tuple<size_t, size_t, size_t, size_t>;
Stamp StampOf(Model& m) {
  return {m.graph().num_nodes(), m.dead_nodes().size(), m.dead_values().size(), m.opset_imports.size()};
}

class PluginNodePass final : public NodePass {
 public:
  PluginNodePass(std::shared_ptr<const PluginPassDef> def, PassArgs args) : def_(std::move(def)), args_(std::move(args)) {}

  const std::string& name() const override { return def_->name; }
  const OpTypeSet* op_types() const override { return def_->op_types ? &*def_->op_types : nullptr; }

  bool Run(Node& node, PassContext& ctx) override {
    if (failed_) return false;
    return Call(ctx, [&](KilnPassContext* c) { return def_->run_on_node(def_->user_data, c, ToKiln(&node)); });
  }

  bool OnFinishGraph(Graph& graph, PassContext& ctx) override {
    if (failed_ || !def_->on_finish_graph) return false;
    return Call(ctx, [&](KilnPassContext* c) { return def_->on_finish_graph(def_->user_data, c, ToKiln(&graph)); });
  }

 private:
  template <class F>
  bool Call(PassContext& ctx, F&& f) {
    Model& m = ctx.model();
    Stamp at_start = StampOf(m);
    KilnPassContext c{&ctx, def_.get(), &args_};
    CallResult r = RunCallback(m, *def_, [&] { return f(&c); });
    if (r.error.empty()) {
      if (r.journal->size() == 0) return false;
      // The call before is settled now (the driver undoes a call only before the next one): its steps join the
      // earlier calls'.
      if (last_) earlier_.Absorb(std::move(*last_));
      last_ = std::move(r.journal);
      if (++changes_ == 1) first_change_ = t_plugin_changes + 1;
      ++t_plugin_changes;
      last_stamp_ = StampOf(m);
      return true;
    }
    failed_ = true;
    std::string what = Who(*def_) + ": " + r.error;
    if (r.config_error) throw ConfigError(what);  // the driver stops the compile (exit 3)
    if (changes_ == 0) throw PluginError(what + " (the pass sits out the rest of this walk)");
    bool only_mine = t_plugin_changes - first_change_ + 1 == changes_ && at_start == last_stamp_;
    if (!only_mine)
      throw PluginError(what + " (its " + std::to_string(changes_) + " earlier change" +
                        (changes_ == 1 ? " in this walk is" : "s in this walk are") +
                        " kept: other passes changed the graph after them; the pass sits out the rest of this walk)");
    RollbackInModel(m, *last_);
    RollbackInModel(m, earlier_);
    ctx.AddCounter("changes_undone", static_cast<int64_t>(changes_));  // the report's change count includes them
    last_.reset();
    changes_ = 0;
    throw PluginError(what + " (its earlier changes in this walk were undone too; the pass sits out the rest of "
                             "this walk)");
  }

  std::shared_ptr<const PluginPassDef> def_;
  PassArgs args_;
  bool failed_ = false;
  // This walk's changing calls: the last one's journal (the driver may still undo that call alone), and the steps
  // of those before it in one journal.
  std::shared_ptr<Journal> last_;
  Journal earlier_;
  uint64_t changes_ = 0;
  uint64_t first_change_ = 0;
  Stamp last_stamp_{};
};

class PluginGraphPass final : public GraphPass {
 public:
  PluginGraphPass(std::shared_ptr<const PluginPassDef> def, PassArgs args) : def_(std::move(def)), args_(std::move(args)) {}

  const std::string& name() const override { return def_->name; }

  bool Run(Graph& graph, PassContext& ctx) override {
    KilnPassContext c{&ctx, def_.get(), &args_};
    const uint64_t checkpoints = ctx.checkpoints;
    CallResult r = RunCallback(
        ctx.model(), *def_, [&] { return def_->run_on_graph(def_->user_data, &c, ToKiln(&graph)); }, &ctx);
    if (!r.error.empty()) {
      if (r.config_error) throw ConfigError(Who(*def_) + ": " + r.error);
      throw PluginError(Who(*def_) + ": " + r.error);
    }
    return r.journal->size() > 0 || ctx.checkpoints > checkpoints;
  }

 private:
  std::shared_ptr<const PluginPassDef> def_;
  PassArgs args_;
};

// ---- pass-context slots
void RequestRepass(KilnPassContext* c, KilnNode* n) {
  if (c && n && !FromKiln(n)->is_deleted()) c->ctx->RequestRepass(FromKiln(n));
}
void RequestImmediateRepass(KilnPassContext* c, KilnNode* n) {
  if (c && n && !FromKiln(n)->is_deleted()) c->ctx->RequestImmediateRepass(FromKiln(n));
}
void AddCounter(KilnPassContext* c, const char* name, int64_t delta) {
  if (!c || !name) return;
  try {
    c->ctx->AddCounter(name, delta);
  } catch (...) {
  }
}

// Whether a checkpoint would free enough to pay for itself. It costs a walk of the whole graph (the acyclicity check
// of KILN_OUTLINE_ASSUME_CONVEX groups, the removed values' list entries, the cached analyses that the pass's next
// question makes again), so it waits until the removed nodes and values outnumber an eighth of the graph's nodes
// (and reach 4,096): what is held for undoing stays under an eighth of the graph's own size, and a pass that
// rewrites the whole graph pays some twenty walks. Fusing the generated 1M-node chain: 22 checkpoints instead of 3
// (the whole graph's count), PatternFusionPass's raise of the peak 254 -> 208 MB, the pass 7.3 -> 7.6 s (two runs
// each, alternating); the 100k-node chain's peak 152.5 -> 148.4 MB.
bool WorthACheckpoint(Model& m) {
  const size_t removed = m.dead_nodes().size() + m.dead_values().size();
  return removed >= 4096 && removed >= m.graph().num_nodes() / 8;
}

// ABI 1.13: keeps a graph pass's changes so far (see kiln_plugin_host_api.h).
KilnStatus* Checkpoint(KilnPassContext* c, int32_t* out_kept) {
  return Guarded([&] {
    if (out_kept) *out_kept = 0;
    if (!c) throw std::invalid_argument("ctx is NULL");
    const CallState* call = t_call;
    if (!call || call->graph_pass != c->ctx || !c->ctx->checkpoints_allowed) return;  // a node pass, not this call, or --verify-each
    Model& m = c->ctx->model();
    CallFrame& frame = CallFrame::Current();
    if (!WorthACheckpoint(m) || frame.FillingStrings()) return;
    try {
      frame.Finish();  // what the call's end would do: unused constants go, ASSUME_CONVEX graphs are checked
    } catch (const Error& e) {
      throw SlotError(KILN_STATUS_FAILED_PRECONDITION, e.what());
    }
    // Nothing recorded so far can be undone from here on: the call's journal and the driver's start afresh, and
    // the removed nodes and values go (CollectGarbage frees nothing while a journal is active).
    if (call->set_aside->active()) {
      call->set_aside->Commit();
      call->set_aside->Begin();
    }
    m.journal().Commit();
    m.CollectGarbage(/*within_pass=*/true);
    m.journal().Begin();
    ++c->ctx->checkpoints;
    if (out_kept) *out_kept = 1;
  });
}

// The value of one of the pass's own options: the pipeline's argument, or the default at the compile's level.
std::optional<OptionValue> OwnOption(const KilnPassContext& c, std::string_view name) {
  for (const OptionDef& def : c.def->options) {
    if (def.name != name) continue;
    auto given = c.args->find(name);
    OptLevel level = t_options ? t_options->level() : OptLevel::kO2;
    // An argument equal to the base default is taken as "not given": the level's own default applies then.
    if (given == c.args->end() || given->second == def.base_default) {
      if (auto v = def.DefaultAt(level)) return v;
      if (auto v = def.DefaultAt(OptLevel::kO3)) return v;  // below its level: its lowest default
    }
    OptionValue v;
    std::string problem = def.ParseValue(given == c.args->end() ? def.base_default : given->second, v);
    if (!problem.empty()) throw std::invalid_argument(problem);
    return v;
  }
  return std::nullopt;
}

OptionValue OptionValueFor(KilnPassContext* c, const char* name) {
  if (!c || !name) throw std::invalid_argument("ctx or name is NULL");
  if (auto own = OwnOption(*c, name)) return *own;
  if (t_options)
    if (const ResolvedOption* r = t_options->Find(name)) return r->value;
  throw SlotError(KILN_STATUS_NOT_FOUND, "no option '" + std::string(name) + "' for pass " + c->def->name);
}

[[noreturn]] void WrongType(const char* name, const char* wanted) {
  throw std::invalid_argument("option '" + std::string(name) + "' is not " + wanted);
}

KilnStatus* OptionBool(KilnPassContext* c, const char* name, int* out) {
  return Guarded([&] {
    OptionValue v = OptionValueFor(c, name);
    if (!std::holds_alternative<bool>(v)) WrongType(name, "a bool");
    if (out) *out = std::get<bool>(v) ? 1 : 0;
  });
}
KilnStatus* OptionInt(KilnPassContext* c, const char* name, int64_t* out) {
  return Guarded([&] {
    OptionValue v = OptionValueFor(c, name);
    if (!std::holds_alternative<int64_t>(v)) WrongType(name, "an integer");
    if (out) *out = std::get<int64_t>(v);
  });
}
KilnStatus* OptionFloat(KilnPassContext* c, const char* name, double* out) {
  return Guarded([&] {
    OptionValue v = OptionValueFor(c, name);
    if (!std::holds_alternative<double>(v)) WrongType(name, "a number");
    if (out) *out = std::get<double>(v);
  });
}
KilnStatus* OptionString(KilnPassContext* c, const char* name, const char** out) {
  return Guarded([&] {
    OptionValue v = OptionValueFor(c, name);
    if (std::holds_alternative<bool>(v) || std::holds_alternative<int64_t>(v) || std::holds_alternative<double>(v))
      WrongType(name, "a string");
    if (out) *out = CallFrame::Current().Str(FormatOptionValue(v));
  });
}

// The pipeline's arguments for the pass's own options must parse as their types (ConfigError otherwise).
void CheckArgs(const PluginPassDef& def, const PassArgs& args) {
  for (const OptionDef& o : def.options) {
    auto it = args.find(o.name);
    if (it == args.end()) continue;
    OptionValue v;
    std::string problem = o.ParseValue(it->second, v);
    if (!problem.empty()) throw ConfigError("pass " + def.name + " (plugin " + def.plugin + "): " + problem);
  }
}

}  // namespace

void FillPassSlots(KilnHostApi& api) {
  api.pass_request_repass = RequestRepass;
  api.pass_request_immediate_repass = RequestImmediateRepass;
  api.pass_add_counter = AddCounter;
  api.pass_option_bool = OptionBool;
  api.pass_option_int = OptionInt;
  api.pass_option_float = OptionFloat;
  api.pass_option_string = OptionString;
  api.pass_checkpoint = Checkpoint;
}

PassInfo MakePluginPassInfo(std::shared_ptr<const PluginPassDef> def) {
  PassInfo info;
  info.name = def->name;
  info.kind = def->node_pass ? PassInfo::Kind::kNode : PassInfo::Kind::kGraph;
  info.switch_option = def->switch_option;
  info.owner = def->plugin;
  info.help = def->description.empty() ? "(no description)" : def->description;
  if (def->op_types) info.op_types = def->op_types->names();
  for (const OptionDef& o : def->options) {
    PassArgDef arg;
    arg.name = o.name;
    arg.default_value = o.base_default;
    if (o.type == OptionType::kBool) arg.allowed = {"true", "false"};
    if (o.type == OptionType::kEnum) arg.allowed = o.allowed;
    arg.help = o.help;
    info.args.push_back(std::move(arg));
  }
  if (def->prepare)
    info.prepare = [def] {
      CallFrame frame(def->services);
      KilnStatus* status = StatusOf("the plugin's prepare callback", [&] { return def->prepare(def->user_data); });
      if (status) throw PluginError(Who(*def) + ": pass " + def->name + ": " + TakeStatusText(status));
      frame.Finish();
    };
  if (def->node_pass)
    info.make_node = [def](const PassArgs& args) {
      CheckArgs(*def, args);
      return std::make_unique<PluginNodePass>(def, args);
    };
  else
    info.make_graph = [def](const PassArgs& args) {
      CheckArgs(*def, args);
      return std::make_unique<PluginGraphPass>(def, args);
    };
  return info;
}

PluginCompileScope::PluginCompileScope(const ResolvedOptions& options) : outer_(t_options) { t_options = &options; }
PluginCompileScope::~PluginCompileScope() { t_options = outer_; }

}  // namespace kiln::plugin
