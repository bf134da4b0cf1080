// kiln_plugin_handles.hpp - part of the C++20 wrapper over kiln_plugin.h (include kiln_plugin.hpp, not this):
// errors and the host table, then the handles a plugin's callbacks work with. Handles (Graph, Node, Value,
// Attribute, TensorView, the contexts) are non-owning and cheap to copy, valid as long as the C ABI says the
// underlying handle is; a default-constructed one is null and tests false. Status and ComputeResult own what the
// host allocated and release it. Host failures surface as kiln::sdk::Error.
#pragma once

#if __cplusplus < 202002L
#error "kiln_plugin.hpp needs C++20; plain C (or older C++) can use kiln_plugin.h"
#endif

#include <kiln/kiln_plugin.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <memory>
#include <new>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#define KILN_SDK_HIDDEN __attribute__((visibility("hidden")))

namespace kiln::sdk {

// ---------------------------------------------------------------------------------------------------------------
// Errors and the host table
// ---------------------------------------------------------------------------------------------------------------

// What a plugin throws to fail a call; code becomes the status code the host sees.
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message, KilnStatusCode code = KILN_STATUS_FAILED)
      : std::runtime_error(message), code_(code) {}
  KilnStatusCode code() const noexcept { return code_; }

 private:
  KilnStatusCode code_;
};

// A kernel's answer "this case is not mine": the host tries the next kernel level.
class Unsupported : public Error {
 public:
  explicit Unsupported(const std::string& reason) : Error(reason, KILN_STATUS_UNSUPPORTED) {}
};

namespace detail {
KILN_SDK_HIDDEN inline const KilnHostApi* g_host = nullptr;
KILN_SDK_HIDDEN inline const char* g_plugin_name = "plugin";
inline const char* OrEmpty(const char* s) { return s ? s : ""; }
}  // namespace detail

// The host's function table; valid once the host has called the entry.
inline const KilnHostApi& Host() {
  if (!detail::g_host) throw Error("the Kiln host has not called this plugin's entry", KILN_STATUS_INTERNAL);
  return *detail::g_host;
}

// The ABI version both sides speak: the smaller of the host's and this header's.
inline uint32_t NegotiatedAbiVersion() { return std::min<uint32_t>(Host().abi_version, KILN_ABI_VERSION); }

namespace detail {
// memcpy for bytes the host handed out (StoredTensor): through stored_bytes_read where the host has it (ABI 1.11),
// which reads the bytes of a mapped model file from the file rather than through the mapping.
inline void CopyStoredBytes(const void* at, size_t size, void* out) {
  const KilnHostApi* h = g_host;
  if (h && KILN_HOST_HAS(h, stored_bytes_read) && h->stored_bytes_read)
    h->stored_bytes_read(at, size, out);
  else if (size != 0)
    std::memcpy(out, at, size);
}
}  // namespace detail

// Fails with UNSUPPORTED when the running host's table lacks a slot added after 1.0.
#define KILN_SDK_REQUIRE_SLOT(slot)                                                                          \
  do {                                                                                                       \
    if (!KILN_HOST_HAS(&::kiln::sdk::Host(), slot))                                                          \
      throw ::kiln::sdk::Error("the Kiln host is too old for " #slot, KILN_STATUS_UNSUPPORTED);             \
  } while (0)

// Owns a host status; null is success.
class Status {
 public:
  Status() = default;
  explicit Status(KilnStatus* s) : s_(s) {}
  explicit operator bool() const { return s_ != nullptr; }  // true when it is an error
  KilnStatusCode code() const { return Host().status_code(s_.get()); }
  std::string message() const { return Host().status_message(s_.get()); }
  KilnStatus* release() { return s_.release(); }

 private:
  struct Release {
    void operator()(KilnStatus* s) const { Host().status_release(s); }
  };
  std::unique_ptr<KilnStatus, Release> s_;
};

// Throws the host's error (releasing its status) when s is not NULL.
inline void Check(KilnStatus* s) {
  if (!s) return;
  Status owned(s);
  throw Error(owned.message(), owned.code());
}

// Logs through the host; never throws. logger empty: the plugin's name.
inline void Log(KilnLogLevel level, std::string_view logger, std::string_view message) noexcept {
  if (!detail::g_host) return;
  try {
    std::string name = logger.empty() ? std::string(detail::g_plugin_name) : std::string(logger);
    detail::g_host->log(level, name.c_str(), std::string(message).c_str());
  } catch (...) {  // out of memory while logging: drop the message
  }
}
inline bool LogEnabled(KilnLogLevel level) noexcept { return detail::g_host && detail::g_host->log_enabled(level); }

namespace detail {
inline KilnStatus* MakeStatus(KilnStatusCode code, const char* message) noexcept {
  return g_host ? g_host->status_create(code, message) : nullptr;
}

// Runs f, turning every exception into a host status: the one place C++ errors stop.
template <class F>
KilnStatus* Guard(F&& f) noexcept {
  try {
    std::forward<F>(f)();
    return nullptr;
  } catch (const Error& e) {
    return MakeStatus(e.code() == KILN_STATUS_OK ? KILN_STATUS_FAILED : e.code(), e.what());
  } catch (const std::bad_alloc&) {
    return MakeStatus(KILN_STATUS_OUT_OF_MEMORY, "out of memory");
  } catch (const std::exception& e) {
    try {
      return MakeStatus(KILN_STATUS_INTERNAL, ("uncaught exception: " + std::string(e.what())).c_str());
    } catch (...) {
      return MakeStatus(KILN_STATUS_INTERNAL, e.what());
    }
  } catch (...) {
    return MakeStatus(KILN_STATUS_INTERNAL, "uncaught exception of unknown type");
  }
}

template <class T>
inline constexpr bool kAlwaysFalse = false;
}  // namespace detail

// ---------------------------------------------------------------------------------------------------------------
// Element types and tensor views
// ---------------------------------------------------------------------------------------------------------------

// Whether C++ type T can hold elements of elem_type (uint16_t also stands for FLOAT16 and BFLOAT16 bits,
// uint8_t for BOOL).
template <class T>
constexpr bool ElemTypeMatches(int32_t elem_type) {
  if constexpr (std::is_same_v<T, float>) return elem_type == KILN_ELEM_FLOAT;
  else if constexpr (std::is_same_v<T, double>) return elem_type == KILN_ELEM_DOUBLE;
  else if constexpr (std::is_same_v<T, bool>) return elem_type == KILN_ELEM_BOOL;
  else if constexpr (std::is_same_v<T, int8_t>) return elem_type == KILN_ELEM_INT8;
  else if constexpr (std::is_same_v<T, uint8_t>) return elem_type == KILN_ELEM_UINT8 || elem_type == KILN_ELEM_BOOL;
  else if constexpr (std::is_same_v<T, int16_t>) return elem_type == KILN_ELEM_INT16;
  else if constexpr (std::is_same_v<T, uint16_t>)
    return elem_type == KILN_ELEM_UINT16 || elem_type == KILN_ELEM_FLOAT16 || elem_type == KILN_ELEM_BFLOAT16;
  else if constexpr (std::is_same_v<T, int32_t>) return elem_type == KILN_ELEM_INT32;
  else if constexpr (std::is_same_v<T, uint32_t>) return elem_type == KILN_ELEM_UINT32;
  else if constexpr (std::is_same_v<T, int64_t>) return elem_type == KILN_ELEM_INT64;
  else if constexpr (std::is_same_v<T, uint64_t>) return elem_type == KILN_ELEM_UINT64;
  else if constexpr (std::is_same_v<T, KilnString>) return elem_type == KILN_ELEM_STRING;
  else static_assert(detail::kAlwaysFalse<T>, "no Kiln element type for this C++ type");
}

// The element type a C++ type stands for when creating tensors.
template <class T>
constexpr int32_t ElemTypeOf() {
  if constexpr (std::is_same_v<T, float>) return KILN_ELEM_FLOAT;
  else if constexpr (std::is_same_v<T, double>) return KILN_ELEM_DOUBLE;
  else if constexpr (std::is_same_v<T, bool>) return KILN_ELEM_BOOL;
  else if constexpr (std::is_same_v<T, int8_t>) return KILN_ELEM_INT8;
  else if constexpr (std::is_same_v<T, uint8_t>) return KILN_ELEM_UINT8;
  else if constexpr (std::is_same_v<T, int16_t>) return KILN_ELEM_INT16;
  else if constexpr (std::is_same_v<T, uint16_t>) return KILN_ELEM_UINT16;
  else if constexpr (std::is_same_v<T, int32_t>) return KILN_ELEM_INT32;
  else if constexpr (std::is_same_v<T, uint32_t>) return KILN_ELEM_UINT32;
  else if constexpr (std::is_same_v<T, int64_t>) return KILN_ELEM_INT64;
  else if constexpr (std::is_same_v<T, uint64_t>) return KILN_ELEM_UINT64;
  else static_assert(detail::kAlwaysFalse<T>, "no Kiln element type for this C++ type");
}
static_assert(sizeof(bool) == 1, "KILN_ELEM_BOOL is one byte per element");

// A read-only tensor view (constants, attributes, kernel inputs, compute results).
class TensorView {
 public:
  TensorView() = default;
  explicit TensorView(const KilnTensorView* v) : v_(v) {}
  explicit operator bool() const { return v_ != nullptr; }
  const KilnTensorView* raw() const { return v_; }

  int32_t ElemType() const { return v_->elem_type; }
  size_t Rank() const { return v_->rank; }
  std::span<const int64_t> Dims() const { return {v_->dims, v_->rank}; }
  uint64_t ByteSize() const { return v_->byte_size; }
  const void* Data() const { return v_->data; }
  int64_t ElementCount() const {
    int64_t n = 1;
    for (int64_t d : Dims()) n *= d;
    return n;
  }
  // The elements as T; throws when T does not match the element type.
  template <class T>
  std::span<const T> Values() const {
    CheckType<T>();
    return {static_cast<const T*>(v_->data), static_cast<size_t>(v_->byte_size / sizeof(T))};
  }
  // Element i of a string tensor; throws OUT_OF_RANGE past the strings it holds.
  std::string_view StringAt(size_t i) const {
    std::span<const KilnString> all = Values<KilnString>();
    if (i >= all.size())
      throw Error("string " + std::to_string(i) + " of a tensor holding " + std::to_string(all.size()),
                  KILN_STATUS_OUT_OF_RANGE);
    return {all[i].data, static_cast<size_t>(all[i].size)};
  }

 protected:
  template <class T>
  void CheckType() const {
    if (!ElemTypeMatches<T>(v_->elem_type))
      throw Error("tensor of element type " + std::to_string(v_->elem_type) + " read as another type",
                  KILN_STATUS_INVALID_ARGUMENT);
  }
  const KilnTensorView* v_ = nullptr;
};

// A constant's bytes where the host keeps them (Value::ConstantBytes, ABI 1.8), never copied. A weight borrowed from
// the model file sits wherever the file put it, so its elements are copied out (CopyTo, At) and never read through a
// typed pointer, which is why this type has no Values<T>().
class StoredTensor : private TensorView {
 public:
  StoredTensor() = default;
  explicit StoredTensor(const KilnTensorView* v) : TensorView(v) {}
  using TensorView::operator bool;
  using TensorView::raw;
  using TensorView::ElemType;
  using TensorView::Rank;
  using TensorView::Dims;
  using TensorView::ByteSize;
  using TensorView::ElementCount;
  std::span<const std::byte> Bytes() const {
    return {static_cast<const std::byte*>(v_->data), static_cast<size_t>(v_->byte_size)};
  }
  // Elements [first, first + out.size()) into out; throws when T does not match the element type, or past the end.
  template <class T>
  void CopyTo(size_t first, std::span<T> out) const {
    static_assert(std::is_trivially_copyable_v<T>);
    CheckType<T>();
    const size_t count = static_cast<size_t>(v_->byte_size / sizeof(T));
    if (first > count || out.size() > count - first)
      throw Error("elements " + std::to_string(first) + ".." + std::to_string(first + out.size()) +
                      " of a tensor of " + std::to_string(count),
                  KILN_STATUS_OUT_OF_RANGE);
    detail::CopyStoredBytes(static_cast<const std::byte*>(v_->data) + first * sizeof(T), out.size_bytes(), out.data());
  }
  // Bytes [offset, offset + out.size()) into out; throws OUT_OF_RANGE past the end. On a host of ABI 1.11 or later
  // the bytes of a weight the model file keeps are read from the file, which for bytes read once (a computed
  // constant's source) is several times faster than reading them through Bytes().
  void ReadBytes(size_t offset, std::span<std::byte> out) const {
    const size_t size = static_cast<size_t>(v_->byte_size);
    if (offset > size || out.size() > size - offset)
      throw Error("bytes " + std::to_string(offset) + ".." + std::to_string(offset + out.size()) +
                      " of a tensor of " + std::to_string(size),
                  KILN_STATUS_OUT_OF_RANGE);
    detail::CopyStoredBytes(static_cast<const std::byte*>(v_->data) + offset, out.size(), out.data());
  }
  template <class T>
  T At(size_t i) const {
    T x{};
    CopyTo(i, std::span<T>(&x, 1));
    return x;
  }
  // The view to hand back to the host as a Node::Compute input: the host finds its tensor by it, and gives each
  // kernel the bytes aligned unless the kernel takes any address (KILN_KERNEL_ANY_ALIGNMENT).
  TensorView ForCompute() const { return TensorView(v_); }
};

// A tensor the plugin fills: a kernel output or a new constant.
class MutableTensor : public TensorView {
 public:
  MutableTensor() = default;
  explicit MutableTensor(KilnTensorView* v) : TensorView(v), m_(v) {}
  KilnTensorView* raw() const { return m_; }
  void* MutableData() const { return m_->data; }
  template <class T>
  std::span<T> MutableValues() const {
    CheckType<T>();
    return {static_cast<T*>(m_->data), static_cast<size_t>(m_->byte_size / sizeof(T))};
  }
  void SetString(size_t i, std::string_view s) const { Check(Host().tensor_set_string(m_, i, s.data(), s.size())); }

 private:
  KilnTensorView* m_ = nullptr;
};

// A dimension: a known number, or unknown (-1) with an optional symbol ("batch").
struct Dim {
  int64_t value = -1;
  std::string symbol;
  bool IsKnown() const { return value >= 0; }
  friend bool operator==(const Dim&, const Dim&) = default;
};
using TensorShape = std::vector<Dim>;

namespace detail {
// Flattens a shape into the C ABI's dims + symbols arrays.
struct ShapeArrays {
  explicit ShapeArrays(const std::optional<TensorShape>& shape) {
    if (!shape) return;
    rank = static_cast<int64_t>(shape->size());
    for (const Dim& d : *shape) {
      dims.push_back(d.value);
      symbols.push_back(d.IsKnown() || d.symbol.empty() ? nullptr : d.symbol.c_str());
    }
  }
  int64_t rank = -1;
  std::vector<int64_t> dims;
  std::vector<const char*> symbols;
};

template <class DimSymbolFn>
std::optional<TensorShape> MakeShape(int64_t rank, const int64_t* dims, DimSymbolFn symbol_of) {
  if (rank < 0) return std::nullopt;
  TensorShape shape(static_cast<size_t>(rank));
  for (size_t i = 0; i < shape.size(); ++i) {
    shape[i].value = dims[i];
    if (dims[i] < 0) shape[i].symbol = OrEmpty(symbol_of(i));
  }
  return shape;
}
}  // namespace detail

// ---------------------------------------------------------------------------------------------------------------
// Graph handles
// ---------------------------------------------------------------------------------------------------------------

class Graph;
class Node;
class Value;
class Function;
class Model;

// A node's attribute, read-only.
class Attribute {
 public:
  Attribute() = default;
  explicit Attribute(const KilnAttribute* a) : a_(a) {}
  explicit operator bool() const { return a_ != nullptr; }
  const KilnAttribute* raw() const { return a_; }

  std::string_view Name() const { return Host().attr_name(a_); }
  int32_t Type() const { return Host().attr_type(a_); }
  int64_t Int() const { return Host().attr_int(a_); }
  float Float() const { return Host().attr_float(a_); }
  std::string_view String() const {
    size_t size = 0;
    const char* s = Host().attr_string(a_, &size);
    return {detail::OrEmpty(s), s ? size : 0};
  }
  std::span<const int64_t> Ints() const {
    const int64_t* p = nullptr;
    size_t n = Host().attr_ints(a_, &p);
    return {p, n};
  }
  std::span<const float> Floats() const {
    const float* p = nullptr;
    size_t n = Host().attr_floats(a_, &p);
    return {p, n};
  }
  std::vector<std::string_view> Strings() const {
    const KilnString* p = nullptr;
    size_t n = Host().attr_strings(a_, &p);
    std::vector<std::string_view> out;
    for (size_t i = 0; i < n; ++i) out.emplace_back(p[i].data, static_cast<size_t>(p[i].size));
    return out;
  }
  TensorView Tensor() const { return TensorView(Host().attr_tensor(a_)); }
  Graph Subgraph() const;  // a GRAPH attribute (ABI 1.1)
  std::vector<Graph> Graphs() const;        // a GRAPH or GRAPHS attribute's graphs (ABI 1.2)
  std::vector<TensorView> Tensors() const;  // a TENSOR or TENSORS attribute's tensors (ABI 1.2)
  // The caller's attribute a function-body attribute refers to; empty when it holds its own value (ABI 1.2).
  std::string_view RefName() const;

 private:
  const KilnAttribute* a_ = nullptr;
};

// Typed attribute getters shared by Node, KernelContext and ShapeContext (each provides Attr(name)). An absent
// attribute gives the fallback; one of another type is an INVALID_ARGUMENT error naming it.
template <class Derived>
class AttributeReader {
 public:
  bool HasAttr(std::string_view name) const { return static_cast<bool>(Get(name)); }
  int64_t GetInt(std::string_view name, int64_t fallback) const {
    Attribute a = Typed(name, KILN_ATTR_INT);
    return a ? a.Int() : fallback;
  }
  float GetFloat(std::string_view name, float fallback) const {
    Attribute a = Typed(name, KILN_ATTR_FLOAT);
    return a ? a.Float() : fallback;
  }
  std::string GetString(std::string_view name, std::string_view fallback) const {
    Attribute a = Typed(name, KILN_ATTR_STRING);
    return std::string(a ? a.String() : fallback);
  }
  std::vector<int64_t> GetInts(std::string_view name, std::vector<int64_t> fallback = {}) const {
    Attribute a = Typed(name, KILN_ATTR_INTS);
    return a ? std::vector<int64_t>(a.Ints().begin(), a.Ints().end()) : fallback;
  }
  std::vector<float> GetFloats(std::string_view name, std::vector<float> fallback = {}) const {
    Attribute a = Typed(name, KILN_ATTR_FLOATS);
    return a ? std::vector<float>(a.Floats().begin(), a.Floats().end()) : fallback;
  }

 private:
  Attribute Get(std::string_view name) const { return static_cast<const Derived&>(*this).Attr(name); }
  Attribute Typed(std::string_view name, int32_t type) const {
    Attribute a = Get(name);
    if (a && a.Type() != type)
      throw Error("attribute '" + std::string(name) + "' has type " + std::to_string(a.Type()) + ", expected " +
                      std::to_string(type),
                  KILN_STATUS_INVALID_ARGUMENT);
    return a;
  }
};

class ComputeResult;

// One use of a value: the consumer and its input slot (KILN_IMPLICIT_INPUT for a read inside a subgraph).
struct Use;

class Value {
 public:
  Value() = default;
  explicit Value(KilnValue* v) : v_(v) {}
  explicit operator bool() const { return v_ != nullptr; }
  KilnValue* raw() const { return v_; }
  friend bool operator==(const Value&, const Value&) = default;

  std::string_view Name() const { return detail::OrEmpty(Host().value_name(v_)); }
  int32_t Kind() const { return Host().value_type_kind(v_); }
  int32_t ElemType() const { return Host().value_elem_type(v_); }
  int64_t Rank() const { return Host().value_shape(v_, nullptr); }  // -1 when unknown
  // The dimensions as numbers, -1 where not known; empty when the rank is unknown.
  std::span<const int64_t> Dims() const {
    const int64_t* dims = nullptr;
    int64_t rank = Host().value_shape(v_, &dims);
    return rank < 0 ? std::span<const int64_t>() : std::span<const int64_t>(dims, static_cast<size_t>(rank));
  }
  std::optional<TensorShape> Shape() const {
    const int64_t* dims = nullptr;
    int64_t rank = Host().value_shape(v_, &dims);
    return detail::MakeShape(rank, dims, [&](size_t i) { return Host().value_dim_symbol(v_, i); });
  }
  // True when every dimension is a known number.
  bool HasStaticShape() const {
    const int64_t* dims = nullptr;
    int64_t rank = Host().value_shape(v_, &dims);
    if (rank < 0) return false;
    for (int64_t i = 0; i < rank; ++i)
      if (dims[i] < 0) return false;
    return true;
  }
  Node Producer(size_t* output_index = nullptr) const;
  std::vector<Use> Consumers() const;
  size_t ConsumerCount() const { return Host().value_consumer_count(v_); }
  bool IsGraphInput() const { return Host().value_is_graph_input(v_) != 0; }
  bool IsGraphOutput() const { return Host().value_is_graph_output(v_) != 0; }
  bool IsConstant() const { return Host().value_is_constant(v_) != 0; }
  // The constant's elements, aligned for their type: a misaligned weight of the model file is copied once, the
  // first time anything asks. Empty when not a constant.
  TensorView ConstantData() const { return TensorView(Host().value_constant_data(v_)); }
  // ABI 1.8: the constant's bytes where the host keeps them, never copied (StoredTensor); a pass that reads a large
  // weight once, to replace it, reads it here. On an older host, the bytes of ConstantData.
  StoredTensor ConstantBytes() const {
    const KilnHostApi& h = Host();
    if (KILN_HOST_HAS(&h, value_constant_bytes) && h.value_constant_bytes != nullptr)
      return StoredTensor(h.value_constant_bytes(v_));
    return StoredTensor(h.value_constant_data(v_));
  }
  // ABI 1.10: bytes [offset, offset + out.size()) of the constant (raw, little-endian), making only that range of a
  // computed constant (Graph::ComputedConstant): hash or sample a large constant through here. On an older host, a
  // copy out of ConstantBytes.
  void ReadConstantBytes(uint64_t offset, std::span<std::byte> out) const {
    const KilnHostApi& h = Host();
    if (KILN_HOST_HAS(&h, value_constant_read) && h.value_constant_read != nullptr) {
      Check(h.value_constant_read(v_, offset, out.size(), out.data()));
      return;
    }
    StoredTensor t = ConstantBytes();
    std::span<const std::byte> all = t ? t.Bytes() : std::span<const std::byte>();
    if (offset > all.size() || out.size() > all.size() - offset)
      throw Error("bytes " + std::to_string(offset) + ".." + std::to_string(offset + out.size()) +
                      " of a constant of " + std::to_string(all.size()),
                  KILN_STATUS_OUT_OF_RANGE);
    if (!out.empty()) std::memcpy(out.data(), all.data() + offset, out.size());
  }
  void SetTensorType(int32_t elem_type, const std::optional<TensorShape>& shape) const {
    detail::ShapeArrays a(shape);
    Check(Host().value_set_tensor_type(v_, elem_type, a.rank, a.dims.data(), a.symbols.data()));
  }
  void ReplaceAllUsesWith(Value replacement) const { Check(Host().value_replace_all_uses(v_, replacement.v_)); }
  Graph OwnerGraph() const;  // ABI 1.1

  // ---- ABI 1.2
  void SetName(std::string_view name) const;
  // Removes an initializer or graph input that nothing reads.
  void Remove() const;
  std::optional<std::string> Annotation(std::string_view key) const;
  void SetAnnotation(std::string_view key, const std::optional<std::string>& value) const;
  std::vector<std::pair<std::string, std::string>> Annotations() const;

  // ---- ABI 1.4
  // What shape inference computed of this integer tensor's contents (value_shape_data): nullopt when nothing is
  // known (or the host is older).
  struct ShapeDataElement {
    std::optional<int64_t> value;  // the number, when known
    std::string symbol;            // the symbolic expression, when symbolic; both empty when unknown
  };
  struct ShapeData {
    bool scalar = false;
    std::vector<ShapeDataElement> elements;
    bool FullyKnown() const {
      for (const auto& e : elements)
        if (!e.value) return false;
      return true;
    }
  };
  std::optional<ShapeData> InferredData() const;

 private:
  KilnValue* v_ = nullptr;
};

class Node : public AttributeReader<Node> {
 public:
  Node() = default;
  explicit Node(KilnNode* n) : n_(n) {}
  explicit operator bool() const { return n_ != nullptr; }
  KilnNode* raw() const { return n_; }
  friend bool operator==(const Node& a, const Node& b) { return a.n_ == b.n_; }

  std::string_view OpType() const { return detail::OrEmpty(Host().node_op_type(n_)); }
  std::string_view Domain() const { return detail::OrEmpty(Host().node_domain(n_)); }
  std::string_view Name() const { return detail::OrEmpty(Host().node_name(n_)); }
  // Whether the node is op_type in domain ("" and "ai.onnx" both name the default domain).
  bool Is(std::string_view op_type, std::string_view domain = "") const {
    std::string_view d = Domain();
    auto is_default = [](std::string_view x) { return x.empty() || x == "ai.onnx"; };
    return OpType() == op_type && (d == domain || (is_default(d) && is_default(domain)));
  }
  Graph OwnerGraph() const;

  size_t InputCount() const { return Host().node_input_count(n_); }
  Value Input(size_t i) const { return Value(Host().node_input(n_, i)); }  // null for an empty slot
  std::vector<Value> Inputs() const {
    std::vector<Value> out(InputCount());
    for (size_t i = 0; i < out.size(); ++i) out[i] = Input(i);
    return out;
  }
  size_t OutputCount() const { return Host().node_output_count(n_); }
  Value Output(size_t i) const { return Value(Host().node_output(n_, i)); }
  std::vector<Value> Outputs() const {
    std::vector<Value> out(OutputCount());
    for (size_t i = 0; i < out.size(); ++i) out[i] = Output(i);
    return out;
  }

  Attribute Attr(std::string_view name) const {
    return Attribute(Host().node_attribute(n_, std::string(name).c_str()));
  }
  std::vector<Attribute> Attrs() const {
    std::vector<Attribute> out(Host().node_attribute_count(n_));
    for (size_t i = 0; i < out.size(); ++i) out[i] = Attribute(Host().node_attribute_at(n_, i));
    return out;
  }
  void SetInt(std::string_view name, int64_t v) const {
    Check(Host().node_set_attr_int(n_, std::string(name).c_str(), v));
  }
  void SetFloat(std::string_view name, float v) const {
    Check(Host().node_set_attr_float(n_, std::string(name).c_str(), v));
  }
  void SetString(std::string_view name, std::string_view v) const {
    Check(Host().node_set_attr_string(n_, std::string(name).c_str(), v.data(), v.size()));
  }
  void SetInts(std::string_view name, std::span<const int64_t> v) const {
    Check(Host().node_set_attr_ints(n_, std::string(name).c_str(), v.data(), v.size()));
  }
  void SetFloats(std::string_view name, std::span<const float> v) const {
    Check(Host().node_set_attr_floats(n_, std::string(name).c_str(), v.data(), v.size()));
  }
  void SetStrings(std::string_view name, std::span<const std::string> v) const {
    std::vector<KilnString> s;
    for (const std::string& x : v) s.push_back({x.data(), x.size()});
    Check(Host().node_set_attr_strings(n_, std::string(name).c_str(), s.data(), s.size()));
  }
  void SetTensor(std::string_view name, TensorView t) const {
    Check(Host().node_set_attr_tensor(n_, std::string(name).c_str(), t.raw()));
  }
  void RemoveAttr(std::string_view name) const { Check(Host().node_remove_attr(n_, std::string(name).c_str())); }

  void SetInput(size_t i, Value v) const { Check(Host().node_set_input(n_, i, v.raw())); }
  void Delete() const { Check(Host().node_delete(n_)); }
  // GE's IsolateAndDeleteNode: uses of output i move to input io_map[i] (negative: output i must be unused).
  void IsolateAndDelete(std::span<const int64_t> io_map) const {
    Check(Host().node_isolate_and_delete(n_, io_map.data(), io_map.size()));
  }
  bool IsDeleted() const { return Host().node_is_deleted(n_) != 0; }
  void InferShapes() const;
  // Computes the outputs through the kernel levels; inputs empty: the node's constant inputs.
  ComputeResult Compute(std::span<const TensorView> inputs = {}, uint32_t flags = 0) const;

  size_t SubgraphCount() const;                   // ABI 1.1
  Graph Subgraph(size_t i) const;                 // ABI 1.1
  void InlineSubgraph(size_t i) const;            // ABI 1.1

  // ---- ABI 1.2
  uint64_t Id() const;
  void SetName(std::string_view name) const;
  std::optional<std::string> Annotation(std::string_view key) const;
  void SetAnnotation(std::string_view key, const std::optional<std::string>& value) const;
  std::vector<std::pair<std::string, std::string>> Annotations() const;
  // The function this node calls (null when it is not a call), and inlining it.
  Function CalledFunction() const;
  void InlineFunction() const;
  // Since 1.3: the work this call does, typed for this call (the host slot node_call_instance): a read-only graph
  // whose inputs and outputs stand for the call's by position. Throws when the node is no call.
  Graph CallInstance() const;
  // A GRAPH attribute: a copy of source, or an empty graph to build when source is null; returns the new graph.
  Graph SetGraphAttr(std::string_view name, Graph source) const;
  void SetGraphsAttr(std::string_view name, const std::vector<Graph>& sources) const;
  void SetTensorsAttr(std::string_view name, const std::vector<TensorView>& tensors) const;
  // In a function body: the attribute takes the call's attribute `ref` (of type attr_type, KILN_ATTR_*).
  void SetAttrRef(std::string_view name, int32_t attr_type, std::string_view ref) const;
  // Host analyses of the node's graph.
  int64_t TopoIndex() const;
  Node ImmediateDominator() const;      // null: only the graph's entry dominates it
  Node ImmediatePostDominator() const;  // null: only the graph's exit post-dominates it
  bool Dominates(Node other) const;
  bool PostDominates(Node other) const;
  bool Reaches(Node other) const;

 private:
  KilnNode* n_ = nullptr;
};

struct Use {
  Node node;
  size_t input_index;
};

// Host-owned outputs of Node::Compute, released on destruction.
class ComputeResult {
 public:
  explicit ComputeResult(KilnComputeResult* r) : r_(r) {}
  size_t OutputCount() const { return Host().compute_result_output_count(r_.get()); }
  TensorView Output(size_t i) const { return TensorView(Host().compute_result_output(r_.get(), i)); }

 private:
  struct Release {
    void operator()(KilnComputeResult* r) const { Host().compute_result_release(r); }
  };
  std::unique_ptr<KilnComputeResult, Release> r_;
};

// A new constant whose bytes the plugin fills.
struct NewConstant {
  Value value;
  MutableTensor data;
};

class Graph {
 public:
  Graph() = default;
  explicit Graph(KilnGraph* g) : g_(g) {}
  explicit operator bool() const { return g_ != nullptr; }
  KilnGraph* raw() const { return g_; }
  friend bool operator==(const Graph&, const Graph&) = default;

  std::string_view Name() const { return detail::OrEmpty(Host().graph_name(g_)); }
  size_t NodeCount() const { return Host().graph_node_count(g_); }
  // A snapshot of the nodes in topological order.
  std::vector<Node> Nodes() const {
    std::vector<KilnNode*> raw(Host().graph_nodes(g_, nullptr, 0));
    raw.resize(Host().graph_nodes(g_, raw.data(), raw.size()));
    return std::vector<Node>(raw.begin(), raw.end());
  }
  std::vector<Value> Inputs() const {
    std::vector<Value> out(Host().graph_input_count(g_));
    for (size_t i = 0; i < out.size(); ++i) out[i] = Value(Host().graph_input(g_, i));
    return out;
  }
  std::vector<Value> Outputs() const {
    std::vector<Value> out(Host().graph_output_count(g_));
    for (size_t i = 0; i < out.size(); ++i) out[i] = Value(Host().graph_output(g_, i));
    return out;
  }
  Value FindValue(std::string_view name) const {
    return Value(Host().graph_find_value(g_, std::string(name).c_str()));
  }
  int64_t OpsetVersion(std::string_view domain = "") const {
    return Host().graph_opset_version(g_, std::string(domain).c_str());
  }

  Node CreateNode(std::string_view op_type, const std::vector<Value>& inputs, size_t output_count,
                  std::string_view domain = "", std::string_view name = "") const {
    std::vector<KilnValue*> raw;
    for (const Value& v : inputs) raw.push_back(v.raw());
    KilnNode* node = nullptr;
    Check(Host().graph_create_node(g_, std::string(op_type).c_str(), std::string(domain).c_str(),
                                   std::string(name).c_str(), raw.data(), raw.size(), output_count, &node));
    return Node(node);
  }
  NewConstant AllocateConstant(int32_t elem_type, std::span<const int64_t> dims, std::string_view name = "") const {
    KilnValue* value = nullptr;
    KilnTensorView* data = nullptr;
    Check(Host().graph_create_constant(g_, std::string(name).c_str(), elem_type, dims.size(), dims.data(), &value,
                                       &data));
    return {Value(value), MutableTensor(data)};
  }
  template <class T>
  Value CreateConstant(std::span<const int64_t> dims, std::span<const T> values, std::string_view name = "") const {
    NewConstant c = AllocateConstant(ElemTypeOf<T>(), dims, name);
    std::span<T> out = c.data.MutableValues<T>();
    if (out.size() != values.size())
      throw Error("constant '" + std::string(name) + "' needs " + std::to_string(out.size()) + " values, got " +
                      std::to_string(values.size()),
                  KILN_STATUS_INVALID_ARGUMENT);
    std::copy(values.begin(), values.end(), out.begin());
    return c.value;
  }
  // ABI 1.10: a constant whose bytes `compute` makes when they are first needed, from the stored bytes of `sources`
  // (constants the host keeps unchanged while it may ask): compute(sources, offset, out) fills bytes
  // [offset, offset + out.size()) of the constant, `out` aligned for elem_type, offset and size multiples of its
  // size, for any range, in any order, from any thread, as often as the host asks; it must depend on nothing but
  // the sources and what it captured, and may throw sdk::Error. Writing the model streams the bytes to the file a
  // piece at a time, so a pass rewriting a large weight (FuseBatchNormIntoConvPass) never holds the new bytes
  // whole unless something reads them. The host destroys `compute` once it will not call it again. On an older
  // host the bytes are made at once into an ordinary constant.
  template <class F>
  Value ComputedConstant(int32_t elem_type, std::span<const int64_t> dims, std::span<const Value> sources, F compute,
                         std::string_view name = "") const {
    static_assert(std::is_invocable_v<F&, std::span<const StoredTensor>, uint64_t, std::span<std::byte>>,
                  "compute(std::span<const StoredTensor> sources, uint64_t offset, std::span<std::byte> out)");
    const KilnHostApi& h = Host();
    if (!KILN_HOST_HAS(&h, graph_create_computed_constant) || h.graph_create_computed_constant == nullptr) {
      std::vector<StoredTensor> stored;
      for (const Value& v : sources) stored.push_back(v.ConstantBytes());
      if (elem_type == KILN_ELEM_STRING)
        throw Error("a computed constant cannot hold strings", KILN_STATUS_INVALID_ARGUMENT);
      NewConstant c = AllocateConstant(elem_type, dims, name);
      std::span<std::byte> out(static_cast<std::byte*>(c.data.MutableData()), static_cast<size_t>(c.data.ByteSize()));
      compute(std::span<const StoredTensor>(stored), uint64_t{0}, out);
      return c.value;
    }
    std::vector<KilnValue*> raw;
    for (const Value& v : sources) raw.push_back(v.raw());
    auto* state = new F(std::move(compute));
    KilnComputeBytesFn fill = [](void* st, const KilnTensorView* const* views, size_t count, uint64_t offset,
                                 uint64_t size, void* out) -> KilnStatus* {
      return detail::Guard([&] {
        std::vector<StoredTensor> stored;
        stored.reserve(count);
        for (size_t i = 0; i < count; ++i) stored.emplace_back(views[i]);
        (*static_cast<F*>(st))(std::span<const StoredTensor>(stored), offset,
                               std::span<std::byte>(static_cast<std::byte*>(out), static_cast<size_t>(size)));
      });
    };
    KilnValue* value = nullptr;
    // The host owns the state from here, whatever the call returns.
    Check(h.graph_create_computed_constant(g_, std::string(name).c_str(), elem_type, dims.size(), dims.data(),
                                           raw.data(), raw.size(), fill, state,
                                           [](void* st) { delete static_cast<F*>(st); }, &value));
    return Value(value);
  }
  Value CopyConstant(TensorView tensor, std::string_view name = "") const {
    KilnValue* value = nullptr;
    Check(Host().graph_create_constant_from_view(g_, std::string(name).c_str(), tensor.raw(), &value));
    return Value(value);
  }
  void InferShapes() const { Check(Host().infer_shapes(g_, nullptr)); }
  Node ParentNode() const {  // ABI 1.1; null for the main graph
    KILN_SDK_REQUIRE_SLOT(graph_parent_node);
    return Node(Host().graph_parent_node(g_));
  }

  // ---- ABI 1.2
  Model OwnerModel() const;
  // The function whose body this graph is; null for the main graph and node subgraphs.
  Function AsFunctionBody() const;
  std::vector<Value> Initializers() const;
  Value AddInput(std::string_view name, int32_t elem_type, const std::optional<TensorShape>& shape) const;
  void AddOutput(Value v) const;
  void SetOutput(size_t i, Value v) const;
  void RemoveOutput(size_t i) const;
  // The cached topological order (host analysis).
  std::vector<Node> TopoOrder() const;
  // ABI 1.5: makes `order` (every node of this graph once, topologically sorted) the order export writes.
  void SetNodeOrder(const std::vector<Node>& order) const;

 private:
  KilnGraph* g_ = nullptr;
};

inline Graph Attribute::Subgraph() const {
  KILN_SDK_REQUIRE_SLOT(attr_graph);
  return Graph(Host().attr_graph(a_));
}
inline Node Value::Producer(size_t* output_index) const { return Node(Host().value_producer(v_, output_index)); }
inline std::vector<Use> Value::Consumers() const {
  std::vector<Use> out(ConsumerCount());
  for (size_t i = 0; i < out.size(); ++i) out[i].node = Node(Host().value_consumer(v_, i, &out[i].input_index));
  return out;
}
inline Graph Value::OwnerGraph() const {
  KILN_SDK_REQUIRE_SLOT(value_graph);
  return Graph(Host().value_graph(v_));
}
inline Graph Node::OwnerGraph() const { return Graph(Host().node_graph(n_)); }
inline void Node::InferShapes() const { Check(Host().infer_shapes(Host().node_graph(n_), n_)); }
inline ComputeResult Node::Compute(std::span<const TensorView> inputs, uint32_t flags) const {
  std::vector<const KilnTensorView*> raw;
  for (const TensorView& t : inputs) raw.push_back(t.raw());
  KilnComputeResult* result = nullptr;
  Check(Host().node_compute(n_, raw.empty() ? nullptr : raw.data(), raw.size(), flags, &result));
  return ComputeResult(result);
}
inline size_t Node::SubgraphCount() const {
  KILN_SDK_REQUIRE_SLOT(node_subgraph_count);
  return Host().node_subgraph_count(n_);
}
inline Graph Node::Subgraph(size_t i) const {
  KILN_SDK_REQUIRE_SLOT(node_subgraph);
  return Graph(Host().node_subgraph(n_, i, nullptr));
}
inline void Node::InlineSubgraph(size_t i) const {
  KILN_SDK_REQUIRE_SLOT(node_inline_subgraph);
  Check(Host().node_inline_subgraph(n_, i));
}

}  // namespace kiln::sdk
