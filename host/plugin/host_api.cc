// The KilnHostApi table, its status and logging slots, and the call frames that own what slots hand a plugin
// during one call. The slot groups live beside this file: host_api_graph.cc (reading graphs, nodes, values),
// host_api_attributes.cc, host_api_mutation.cc, host_api_kernel.cc (node_compute and the kernel context),
// host_api_schema.cc (custom-op schemas and the shape context), host_api_registration.cc, and plugin_pass.cc (the
// pass context).
#include "plugin/host_api.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstddef>
#include <functional>
#include <limits>
#include <map>
#include <mutex>
#include <new>
#include <string_view>
#include <unordered_map>

#include "ir/graph.h"
#include "ir/model.h"
#include "ir/topo_order.h"
#include "support/error.h"
#include "support/logging.h"

namespace kiln::plugin {
namespace {

// ---- status slots (status_create is frozen across majors)
KilnStatus* StatusCreate(KilnStatusCode code, const char* message) {
  try {
    return new KilnStatus{code, message ? message : ""};
  } catch (...) {
    return nullptr;  // out of memory: nothing sensible is left to do
  }
}
KilnStatusCode StatusCode(const KilnStatus* s) { return s ? s->code : KILN_STATUS_OK; }
const char* StatusMessage(const KilnStatus* s) { return s ? s->message.c_str() : ""; }
void StatusRelease(KilnStatus* s) { delete s; }

// ---- logging
spdlog::level::level_enum LevelOf(KilnLogLevel level) {
  switch (level) {
    case KILN_LOG_TRACE: return spdlog::level::trace;
    case KILN_LOG_DEBUG: return spdlog::level::debug;
    case KILN_LOG_INFO: return spdlog::level::info;
    case KILN_LOG_WARN: return spdlog::level::warn;
    default: return spdlog::level::err;
  }
}
void Log(KilnLogLevel level, const char* logger, const char* message) {
  try {
    Logger(logger && *logger ? logger : "plugin")->log(LevelOf(level), "{}", message ? message : "");
  } catch (...) {  // a failure to log is not the plugin's problem
  }
}
int LogEnabled(KilnLogLevel level) {
  return GuardedValue(0, [&] { return Logger("plugin")->should_log(LevelOf(level)) ? 1 : 0; });
}

KilnHostApi BuildTable() {
  KilnHostApi api{};
  api.struct_size = sizeof(KilnHostApi);
  api.abi_version = KILN_ABI_VERSION;
  api.host_version = KILN_HOST_VERSION;
  api.status_create = StatusCreate;
  api.status_code = StatusCode;
  api.status_message = StatusMessage;
  api.status_release = StatusRelease;
  api.log = Log;
  api.log_enabled = LogEnabled;
  FillRegistrationSlots(api);
  FillGraphSlots(api);
  FillAttributeSlots(api);
  FillMutationSlots(api);
  FillKernelSlots(api);
  FillPassSlots(api);
  FillSchemaSlots(api);
  FillModelSlots(api);
  FillFunctionSlots(api);
  FillBuildingSlots(api);
  FillAnnotationSlots(api);
  FillAnalysisSlots(api);
  FillTargetSlots(api);
  FillShapeSlots(api);
  return api;
}

thread_local CallFrame* t_top = nullptr;

}  // namespace

const KilnHostApi& HostApi() {
  static const KilnHostApi api = BuildTable();
  return api;
}

std::string AbiVersionText(uint32_t version) {
  return std::to_string(KILN_ABI_VERSION_GET_MAJOR(version)) + "." + std::to_string(KILN_ABI_VERSION_GET_MINOR(version));
}

KilnStatus* MakeStatus(KilnStatusCode code, std::string message) {
  return new KilnStatus{code, std::move(message)};
}

const char* StatusCodeName(KilnStatusCode code) {
  switch (code) {
    case KILN_STATUS_OK: return "OK";
    case KILN_STATUS_FAILED: return "FAILED";
    case KILN_STATUS_INVALID_ARGUMENT: return "INVALID_ARGUMENT";
    case KILN_STATUS_NOT_FOUND: return "NOT_FOUND";
    case KILN_STATUS_UNSUPPORTED: return "UNSUPPORTED";
    case KILN_STATUS_FAILED_PRECONDITION: return "FAILED_PRECONDITION";
    case KILN_STATUS_OUT_OF_RANGE: return "OUT_OF_RANGE";
    case KILN_STATUS_ABI_MISMATCH: return "ABI_MISMATCH";
    case KILN_STATUS_OUT_OF_MEMORY: return "OUT_OF_MEMORY";
    case KILN_STATUS_INTERNAL: return "INTERNAL";
    case KILN_STATUS_CONFIG_ERROR: return "CONFIG_ERROR";
    default: return "UNKNOWN";
  }
}

std::string TakeStatusText(KilnStatus* status) {
  if (status == nullptr) return "";
  std::string text = (status->message.empty() ? std::string("(no message)") : status->message) + " [" +
                     StatusCodeName(status->code) + "]";
  delete status;
  return text;
}

KilnStatus* StatusFromCurrentException() noexcept {
  try {
    try {
      throw;
    } catch (const SlotError& e) {
      return MakeStatus(e.code(), e.what());
    } catch (const std::invalid_argument& e) {
      return MakeStatus(KILN_STATUS_INVALID_ARGUMENT, e.what());
    } catch (const std::out_of_range& e) {
      return MakeStatus(KILN_STATUS_OUT_OF_RANGE, e.what());
    } catch (const std::bad_alloc&) {
      return MakeStatus(KILN_STATUS_OUT_OF_MEMORY, "out of memory");
    } catch (const std::length_error& e) {  // a size over the host's limits (compile/resource_limits.h)
      return MakeStatus(KILN_STATUS_OUT_OF_MEMORY, e.what());
    } catch (const Error& e) {
      return MakeStatus(KILN_STATUS_FAILED, e.what());
    } catch (const std::exception& e) {
      return MakeStatus(KILN_STATUS_INTERNAL, std::string("host error: ") + e.what());
    } catch (...) {
      return MakeStatus(KILN_STATUS_INTERNAL, "host error of unknown type");
    }
  } catch (...) {
    return nullptr;  // out of memory while reporting: the best left is "no status"
  }
}

// ---- frames

namespace {

// What the host lent: views registered one by one (LendView: kernel results) and the address ranges of the frames'
// pieces of lent views (CallFrame::LendSlot), each slot a view beside the tensor it shows.
struct LentViews {
  std::mutex mu;
  std::unordered_map<const KilnTensorView*, std::shared_ptr<const Tensor>> views;
  std::map<uintptr_t, uintptr_t> pieces;  // begin -> end
};

LentViews& Lent() {
  static LentViews* lent = new LentViews;  // never destroyed: frames may end during static destruction
  return *lent;
}

}  // namespace

CallFrame::CallFrame(const HostServices* services) : services_(services), outer_(t_top) { t_top = this; }

CallFrame::~CallFrame() {
  if (!lent_.empty()) {
    LentViews& lent = Lent();
    std::lock_guard<std::mutex> lock(lent.mu);
    for (const LentPiece& piece : lent_) lent.pieces.erase(reinterpret_cast<uintptr_t>(piece.slots.get()));
  }
  t_top = outer_;
}

CallFrame& CallFrame::Current() {
  if (t_top != nullptr) return *t_top;
  // A plugin calling the host outside any callback (from its own thread, say): nothing it gets is freed.
  thread_local CallFrame fallback(nullptr);
  return fallback;
}

const KilnTensorView* CallFrame::View(const std::shared_ptr<const Tensor>& t, Bytes which) {
  // One view per tensor and frame: a graph pass's callback lasts the whole walk and may ask for the same constant
  // at every match attempt (166,668 views of 66,667 weights in PatternFusionPass on a 100k-node graph). The first
  // view holds the tensor until the frame ends, so its address names it for as long as the entry is here.
  auto [it, inserted] = views_of_[static_cast<int>(which)].try_emplace(t.get(), nullptr);
  if (!inserted) return it->second;
  try {
    if (t->type() == DataType::kString) {
      const KilnTensorView* v = View(*t, which);
      keep_.push_back(std::const_pointer_cast<Tensor>(t));  // held only to keep it alive
      return it->second = v;
    }
    KilnTensorView& v = LendSlot(t);  // the slot holds the tensor
    FillView(*t, which, v);
    return it->second = &v;
  } catch (...) {
    views_of_[static_cast<int>(which)].erase(it);  // no view: the next ask tries again
    throw;
  }
}

KilnTensorView& CallFrame::LendSlot(std::shared_ptr<const Tensor> t) {
  if (lent_.empty() || lent_.back().used == lent_.back().size) {
    // Pieces of 16 slots, then twice the last, up to 4,096 (288 KB): a frame lends a few views or very many.
    const size_t size = lent_.empty() ? 16 : std::min<size_t>(lent_.back().size * 2, 4096);
    // Kept before it is registered: a piece registered is always one the frame unregisters when it ends.
    lent_.push_back({std::make_unique<LentSlot[]>(size), size, 0});
    const auto begin = reinterpret_cast<uintptr_t>(lent_.back().slots.get());
    LentViews& lent = Lent();
    std::lock_guard<std::mutex> lock(lent.mu);
    lent.pieces.emplace(begin, begin + size * sizeof(LentSlot));
  }
  // No lock: the registry's map is not touched, and LentTensorOf reads only the slot its view names, which no one
  // holds before this returns (a slot is written once, while its piece is registered).
  LentPiece& piece = lent_.back();
  LentSlot& slot = piece.slots[piece.used++];
  slot.tensor = std::move(t);
  return slot.view;
}

const KilnTensorView* CallFrame::View(const Tensor& t, Bytes which) {
  KilnTensorView& v = Make<KilnTensorView>();
  FillView(t, which, v);
  return &v;
}

void CallFrame::FillView(const Tensor& t, Bytes which, KilnTensorView& v) {
  v.struct_size = sizeof(KilnTensorView);
  v.elem_type = static_cast<int32_t>(t.type());
  v.rank = static_cast<uint32_t>(t.dims().size());
  v.dims = t.dims().empty() ? nullptr : t.dims().data();
  if (t.type() == DataType::kString) {
    auto& strings = Make<std::vector<KilnString>>();
    for (const std::string& s : t.strings()) strings.push_back({s.data(), s.size()});
    v.data = strings.empty() ? nullptr : strings.data();
    v.byte_size = strings.size() * sizeof(KilnString);
  } else {
    auto bytes = which == Bytes::kStored ? t.raw_bytes() : t.bytes();
    v.data = bytes.empty() ? nullptr : const_cast<std::byte*>(bytes.data());
    v.byte_size = bytes.size();
  }
}

const int64_t* CallFrame::Dims(std::span<const int64_t> dims) {
  if (dims.empty()) return nullptr;
  const size_t h = std::hash<std::string_view>()(
      std::string_view(reinterpret_cast<const char*>(dims.data()), dims.size_bytes()));
  auto [first, last] = dims_.equal_range(h);
  for (auto it = first; it != last; ++it)
    if (std::ranges::equal(it->second, dims)) return it->second.data();
  return dims_.emplace(h, std::vector<int64_t>(dims.begin(), dims.end()))->second.data();  // nodes never move
}

StringTensorFill& CallFrame::NewStringFill(std::vector<int64_t> dims, size_t count) {
  StringTensorFill& f = Make<StringTensorFill>();
  f.dims = std::move(dims);
  f.strings.resize(count);
  f.views.resize(count, KilnString{"", 0});
  f.view.struct_size = sizeof(KilnTensorView);
  f.view.elem_type = KILN_ELEM_STRING;
  f.view.rank = static_cast<uint32_t>(f.dims.size());
  f.view.dims = f.dims.empty() ? nullptr : f.dims.data();
  f.view.data = f.views.empty() ? nullptr : f.views.data();
  f.view.byte_size = count * sizeof(KilnString);
  fills_[&f.view] = &f;
  return f;
}

StringTensorFill* CallFrame::FindStringFill(const KilnTensorView* view) {
  for (CallFrame* f = t_top; f != nullptr; f = f->outer_) {
    auto it = f->fills_.find(view);
    if (it != f->fills_.end()) return it->second;
  }
  return nullptr;
}

void CallFrame::Finish() {
  for (auto& [v, fill] : string_constants_) {
    if (v->is_deleted()) continue;
    Tensor t = Tensor::FromStrings(fill->dims, fill->strings);
    t.set_name(v->name());
    v->graph()->SetInitializer(v, std::make_shared<const Tensor>(std::move(t)));
  }
  string_constants_.clear();
  for (Value* v : released_) {
    if (v->is_deleted() || v->has_uses() || v->is_graph_input()) continue;
    if (v->is_initializer()) {
      v->graph()->RemoveValue(v);
    } else if (Node* p = v->producer(); p && !p->is_deleted() && p->op_type() == "Constant" && p->domain().empty()) {
      bool unused = true;
      for (Value* o : p->outputs()) unused = unused && (o == nullptr || !o->has_uses());
      if (unused) p->graph()->RemoveNode(p);
    }
  }
  released_.clear();
  for (Graph* g : acyclic_checks_) {
    if (IsAcyclic(*g)) continue;
    TopoResult topo = TopologicalOrder(*g);
    if (!topo.cycle_nodes.empty())
      throw InternalError("outlining with KILN_OUTLINE_ASSUME_CONVEX made graph '" + g->name() +
                          "' cyclic through node '" + topo.cycle_nodes.front()->name() + "' (" +
                          topo.cycle_nodes.front()->op_type() + "): the groups were not convex together");
  }
  acyclic_checks_.clear();
}

// ---- validation helpers

bool ValidElemType(int32_t elem_type) {
  return elem_type != KILN_ELEM_UNDEFINED && DataTypeFromOnnx(elem_type).has_value();
}

std::vector<int64_t> CheckedDims(size_t rank, const int64_t* dims) {
  if (rank > 64) throw std::invalid_argument("rank " + std::to_string(rank) + " is over the host's limit of 64");
  if (rank > 0 && dims == nullptr) throw std::invalid_argument("dims is NULL for rank " + std::to_string(rank));
  std::vector<int64_t> out(dims, dims + rank);
  int64_t count = 1;
  for (size_t i = 0; i < rank; ++i) {
    if (out[i] < 0) throw std::invalid_argument("dimension " + std::to_string(i) + " is negative");
    if (__builtin_mul_overflow(count, out[i], &count) || count > (int64_t{1} << 40))
      throw SlotError(KILN_STATUS_OUT_OF_MEMORY, "a tensor of that shape is over the host's size limit");
  }
  return out;
}

namespace {

// The lent tensor `view` shows, when the host lent it and it still shows exactly that tensor's bytes.
std::shared_ptr<const Tensor> LentTensorOf(const KilnTensorView& view) {
  std::shared_ptr<const Tensor> t;
  {
    LentViews& lent = Lent();
    std::lock_guard<std::mutex> lock(lent.mu);
    if (auto it = lent.views.find(&view); it != lent.views.end()) {
      t = it->second;
    } else {
      // A slot of a frame's piece: its view is the slot's first member, so the address is a slot's own.
      using Slot = CallFrame::LentSlot;
      static_assert(offsetof(Slot, view) == 0);
      const auto at = reinterpret_cast<uintptr_t>(&view);
      auto piece = lent.pieces.upper_bound(at);
      if (piece == lent.pieces.begin()) return nullptr;
      --piece;
      if (at >= piece->second || (at - piece->first) % sizeof(Slot) != 0) return nullptr;
      t = reinterpret_cast<const Slot*>(at)->tensor;
    }
    if (!t) return nullptr;
  }
  // A stored view (value_constant_bytes) shows raw_bytes(), an aligned one bytes(): raw_bytes() first, which never
  // makes a misaligned weight's aligned copy.
  auto bytes = t->raw_bytes();
  if (!bytes.empty() && view.data != bytes.data()) bytes = t->bytes();
  bool same = view.elem_type == static_cast<int32_t>(t->type()) && view.rank == t->dims().size() &&
              view.byte_size == bytes.size() && (bytes.empty() || view.data == bytes.data()) &&
              (view.rank == 0 || (view.dims != nullptr && std::equal(t->dims().begin(), t->dims().end(), view.dims)));
  return same ? t : nullptr;
}

}  // namespace

void LendView(const KilnTensorView* view, std::shared_ptr<const Tensor> t) {
  LentViews& lent = Lent();
  std::lock_guard<std::mutex> lock(lent.mu);
  lent.views[view] = std::move(t);
}

void EndLend(const KilnTensorView* view) {
  LentViews& lent = Lent();
  std::lock_guard<std::mutex> lock(lent.mu);
  lent.views.erase(view);
}

Tensor TensorFromView(const KilnTensorView& view) {
  if (view.struct_size < KILN_TENSOR_VIEW_SIZE_1_0)
    throw SlotError(KILN_STATUS_ABI_MISMATCH, "KilnTensorView.struct_size " + std::to_string(view.struct_size) +
                                                  " is smaller than ABI 1.0's " +
                                                  std::to_string(KILN_TENSOR_VIEW_SIZE_1_0));
  if (!ValidElemType(view.elem_type))
    throw std::invalid_argument("element type " + std::to_string(view.elem_type) + " is not one Kiln knows");
  std::vector<int64_t> dims = CheckedDims(view.rank, view.dims);
  int64_t count = 1;
  for (int64_t d : dims) count *= d;
  DataType type = static_cast<DataType>(view.elem_type);
  size_t elem = type == DataType::kString ? sizeof(KilnString) : ElementSize(type);
  if (view.byte_size != static_cast<uint64_t>(count) * elem)
    throw std::invalid_argument("byte_size " + std::to_string(view.byte_size) + " does not match " +
                                std::to_string(count) + " elements of " + std::to_string(elem) + " bytes");
  if (view.byte_size > 0 && view.data == nullptr) throw std::invalid_argument("data is NULL");
  if (type == DataType::kString) {
    std::vector<std::string> strings;
    strings.reserve(static_cast<size_t>(count));
    const auto* s = static_cast<const KilnString*>(view.data);
    for (int64_t i = 0; i < count; ++i) {
      if (s[i].size > 0 && s[i].data == nullptr) throw std::invalid_argument("a string element's data is NULL");
      strings.emplace_back(s[i].data ? s[i].data : "", static_cast<size_t>(s[i].size));
    }
    return Tensor::FromStrings(std::move(dims), std::move(strings));
  }
  if (std::shared_ptr<const Tensor> lent = LentTensorOf(view)) return Tensor(type, std::move(dims), lent->buffer());
  auto bytes = std::span<const std::byte>(static_cast<const std::byte*>(view.data), view.byte_size);
  return Tensor(type, std::move(dims), Buffer::Copy(bytes));
}

}  // namespace kiln::plugin
