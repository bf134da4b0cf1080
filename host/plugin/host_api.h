// The host side of the plugin ABI (sdk/include/kiln/kiln_plugin.h): the KilnHostApi table every plugin gets,
// and what its slots share. The opaque handles are the IR objects themselves (a KilnNode* is a kiln::Node*, a
// KilnAttribute* a const kiln::Attribute*); the host's own objects (statuses, contexts, the registrar) complete
// the ABI's opaque structs below. Nothing outside host/plugin/ sees a raw plugin pointer.
//
// Every call into a plugin runs inside a CallFrame: the frame owns what the host hands the plugin during that
// call (tensor views, dims, string arrays), which the ABI keeps valid until the callback returns, and the work
// a pass callback leaves for its end (string constants to write, constants left without uses to remove).
// Frames nest (a pass computing a node through a plugin kernel); host slots use the innermost.
#pragma once

#include <kiln/kiln_plugin.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ir/tensor.h"

struct KilnStatus {
  KilnStatusCode code;
  std::string message;
};

namespace kiln {

class Function;
class Graph;
class KernelRegistry;
class Model;
class Node;
class Value;
struct Attribute;

namespace plugin {

// The table: built once, valid for the life of the process.
const KilnHostApi& HostApi();
// "1.1" for a packed ABI version.
std::string AbiVersionText(uint32_t version);

// ---- handles: the IR objects themselves
inline KilnGraph* ToKiln(Graph* g) { return reinterpret_cast<KilnGraph*>(g); }
inline KilnNode* ToKiln(Node* n) { return reinterpret_cast<KilnNode*>(n); }
inline KilnValue* ToKiln(Value* v) { return reinterpret_cast<KilnValue*>(v); }
inline const KilnAttribute* ToKiln(const Attribute* a) { return reinterpret_cast<const KilnAttribute*>(a); }
inline Graph* FromKiln(KilnGraph* g) { return reinterpret_cast<Graph*>(g); }
inline Node* FromKiln(KilnNode* n) { return reinterpret_cast<Node*>(n); }
inline Value* FromKiln(KilnValue* v) { return reinterpret_cast<Value*>(v); }
inline const Attribute* FromKiln(const KilnAttribute* a) { return reinterpret_cast<const Attribute*>(a); }
inline KilnModel* ToKiln(Model* m) { return reinterpret_cast<KilnModel*>(m); }
inline Model* FromKiln(KilnModel* m) { return reinterpret_cast<Model*>(m); }
inline KilnFunction* ToKiln(Function* f) { return reinterpret_cast<KilnFunction*>(f); }
inline Function* FromKiln(KilnFunction* f) { return reinterpret_cast<Function*>(f); }

// ---- statuses
KilnStatus* MakeStatus(KilnStatusCode code, std::string message);
// "INVALID_ARGUMENT", ...
const char* StatusCodeName(KilnStatusCode code);
// A status a plugin handed back, as "message [CODE]"; frees it.
std::string TakeStatusText(KilnStatus* status);
// A failure with a precise status code, thrown inside slot bodies and caught by Guarded.
class SlotError : public std::runtime_error {
 public:
  SlotError(KilnStatusCode code, const std::string& message) : std::runtime_error(message), code_(code) {}
  KilnStatusCode code() const { return code_; }

 private:
  KilnStatusCode code_;
};
// The status for the exception being handled (call inside a catch block).
KilnStatus* StatusFromCurrentException() noexcept;
// Runs a slot body, turning any exception into a status: the host never throws into a plugin.
template <class F>
KilnStatus* Guarded(F&& f) noexcept {
  try {
    f();
    return nullptr;
  } catch (...) {
    return StatusFromCurrentException();
  }
}
// For slots without a status: the body's result, or `fallback` when it throws.
template <class R, class F>
R GuardedValue(R fallback, F&& f) noexcept {
  try {
    return f();
  } catch (...) {
    return fallback;
  }
}

// What slots need beyond the graph: the kernels node_compute runs through.
class PluginSet;
struct HostServices {
  const KernelRegistry* kernels = nullptr;          // plugin kernels first, then the built-ins
  const KernelRegistry* builtin_kernels = nullptr;  // the built-ins alone (KILN_COMPUTE_BUILTIN_ONLY)
  const PluginSet* plugins = nullptr;               // what is loaded (fusion_rule_pack_*)
};

// A STRING tensor a plugin is filling (graph_create_constant, kernel outputs): tensor_set_string writes here.
struct StringTensorFill {
  std::vector<int64_t> dims;
  std::vector<std::string> strings;
  std::vector<KilnString> views;  // what the plugin sees through the tensor view
  KilnTensorView view{};
};

// Views of host tensors lent to plugins (constants' data, compute results). A view the host lent and a plugin
// hands back (a compute input, a new constant, a tensor attribute) shares its tensor's bytes instead of copying
// them: folding a Transpose of a 64 MB weight used to copy the weight in and the result out.
void LendView(const KilnTensorView* view, std::shared_ptr<const Tensor> t);
void EndLend(const KilnTensorView* view);

// A plugin callback's status (null: success). An exception escaping it, which the ABI forbids, becomes an INTERNAL
// status: "an exception escaped WHAT (it must return a status)".
template <class F>
KilnStatus* StatusOf(const char* what, F&& callback) {
  try {
    return callback();
  } catch (...) {
    return MakeStatus(KILN_STATUS_INTERNAL, std::string("an exception escaped ") + what + " (it must return a status)");
  }
}

class CallFrame {
 public:
  explicit CallFrame(const HostServices* services);
  ~CallFrame();
  CallFrame(const CallFrame&) = delete;
  CallFrame& operator=(const CallFrame&) = delete;

  // The innermost frame of this thread; a process-wide fallback when a plugin calls outside any callback.
  static CallFrame& Current();
  const HostServices* services() const { return services_; }

  // Storage that lives until the frame ends.
  template <class T, class... Args>
  T& Make(Args&&... args) {
    auto p = std::make_shared<T>(std::forward<Args>(args)...);
    T& ref = *p;
    keep_.push_back(std::move(p));
    return ref;
  }
  const char* Str(std::string s) { return Make<std::string>(std::move(s)).c_str(); }
  // `dims` kept until the frame ends, one array per distinct content (null for none): a pass that asks for the
  // dims of every value (CSE, fusion, memory planning) would otherwise hold an array per call, 230 MB of the
  // CommonSubexpressionEliminationPass's peak on a 1M-node chain.
  const int64_t* Dims(std::span<const int64_t> dims);
  // A read-only view of a host tensor (strings become a KilnString array owned by the frame). kAligned views show
  // Tensor::bytes() (a misaligned weight's aligned copy, made on first use); kStored views show Tensor::raw_bytes()
  // (where the bytes are kept, never copied: value_constant_bytes).
  enum class Bytes { kAligned, kStored };
  // A lent view beside the tensor it holds (see lent_); public for the lending registry's lookup.
  struct LentSlot {
    KilnTensorView view;
    std::shared_ptr<const Tensor> tensor;
  };
  const KilnTensorView* View(const std::shared_ptr<const Tensor>& t, Bytes which = Bytes::kAligned);
  const KilnTensorView* View(const Tensor& t, Bytes which = Bytes::kAligned);  // t must outlive the frame

  // A STRING tensor being filled: registered so tensor_set_string (in any frame) finds it.
  StringTensorFill& NewStringFill(std::vector<int64_t> dims, size_t count);
  static StringTensorFill* FindStringFill(const KilnTensorView* view);
  // A string constant to write when the pass callback succeeds.
  void DeferStringConstant(Value* v, StringTensorFill* fill) { string_constants_.push_back({v, fill}); }
  // Whether string constants wait to be written (their fills may still be under way).
  bool FillingStrings() const { return !string_constants_.empty(); }
  // Values a deleted node read: constants among them left without uses go when the callback succeeds.
  void NoteReleased(Value* v) { released_.push_back(v); }
  // A graph outlined with KILN_OUTLINE_ASSUME_CONVEX: checked for cycles when the callback returns.
  void CheckAcyclicAtEnd(Graph* g) {
    if (std::find(acyclic_checks_.begin(), acyclic_checks_.end(), g) == acyclic_checks_.end()) acyclic_checks_.push_back(g);
  }
  // The pass callback succeeded: write deferred string constants, remove constants left without uses, check the
  // graphs named by CheckAcyclicAtEnd (throws InternalError naming a node on a cycle, failing the callback).
  void Finish();

 private:
  const HostServices* services_;
  CallFrame* outer_;
  std::vector<std::shared_ptr<void>> keep_;
  std::map<const KilnTensorView*, StringTensorFill*> fills_;
  std::vector<std::pair<Value*, StringTensorFill*>> string_constants_;
  std::vector<Value*> released_;
  std::vector<Graph*> acyclic_checks_;
  // The views of non-string tensors that View lends, each beside the tensor it holds, in pieces that never move:
  // the lending registry (LentTensorOf) knows a piece's address range, not each view. A pass may view every weight
  // of a large graph (PatternFusionPass: 666,667 on the generated 1M-node chain), and a view of its own with a
  // registry entry and a place in keep_ took some 150 bytes each where a piece's slot takes 72.
  struct LentPiece {
    std::unique_ptr<LentSlot[]> slots;
    size_t size = 0, used = 0;
  };
  KilnTensorView& LendSlot(std::shared_ptr<const Tensor> t);
  void FillView(const Tensor& t, Bytes which, KilnTensorView& v);
  std::vector<LentPiece> lent_;  // unregistered, then freed, when the frame ends
  std::unordered_map<const Tensor*, const KilnTensorView*> views_of_[2];  // View's: one per tensor and Bytes
  std::unordered_multimap<size_t, std::vector<int64_t>> dims_;  // Dims's, by a hash of their content
};

// StatusOf a callback run in a frame of its plugin's services that ends when it returns.
template <class F>
KilnStatus* CallPlugin(const HostServices* services, const char* what, F&& callback) {
  CallFrame frame(services);
  return StatusOf(what, std::forward<F>(callback));
}

// ---- slot groups, each filling its part of the table (host_api_*.cc)
void FillGraphSlots(KilnHostApi& api);
void FillAttributeSlots(KilnHostApi& api);
void FillMutationSlots(KilnHostApi& api);
void FillKernelSlots(KilnHostApi& api);
void FillSchemaSlots(KilnHostApi& api);
void FillRegistrationSlots(KilnHostApi& api);
void FillPassSlots(KilnHostApi& api);
// ABI 1.2
void FillModelSlots(KilnHostApi& api);       // host_api_model.cc: the model, opsets, metadata, node ids
void FillFunctionSlots(KilnHostApi& api);    // host_api_functions.cc: functions, outline, inline
void FillBuildingSlots(KilnHostApi& api);    // host_api_building.cc: initializers, graph inputs/outputs, renames,
                                             // GRAPH/GRAPHS/TENSORS and reference attributes
void FillAnnotationSlots(KilnHostApi& api);  // host_api_annotations.cc
void FillAnalysisSlots(KilnHostApi& api);    // host_api_analysis.cc: topological order, dominators, reachability
// ABI 1.3
void FillTargetSlots(KilnHostApi& api);      // host_api_target.cc: the active target's engines and costs
// ABI 1.4
void FillShapeSlots(KilnHostApi& api);       // host_api_shape.cc: inferred contents of shape tensors

// Validation helpers shared by the slots.
// The tensor a plugin's view shows, checked (throws std::invalid_argument or SlotError naming the problem). When
// the view is one the host lent (LendView) and still shows that tensor, the result shares its bytes.
bool ValidElemType(int32_t elem_type);
// Checks rank/dims as a plugin passed them and returns them; throws std::invalid_argument naming the problem.
std::vector<int64_t> CheckedDims(size_t rank, const int64_t* dims);
// A copy of a plugin's tensor view as a host tensor (bytes copied; strings copied from KilnString).
Tensor TensorFromView(const KilnTensorView& view);

}  // namespace plugin
}  // namespace kiln
