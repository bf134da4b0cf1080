// A table of an ABI version's names (abi_v1_1_names.inc, abi_v1_2_names.inc) as one Kiln header compiles them: for
// each struct its size and alignment, for each field and host slot its offset, size and type, for each constant
// its value and type. Built twice for each version, against its frozen header (abi_v1_1_frozen.cc,
// abi_v1_2_frozen.cc) and against the current one (abi_v1_1_test.cc, abi_v1_2_test.cc), and compared entry by
// entry (AbiDifferences), so that a 1.1 or 1.2 name changing in any way a compiled plugin could notice (a moved or
// resized field, a slot's parameter type, a constant's value) fails a test.
//
// Types are written as text by TypeText<T>(): fundamental types by their C names ("unsigned long": size_t and
// uint64_t are the same type on LP64, and the same ABI), pointers with "*", const as written in C ("const char*",
// "KilnNode* const*"), function pointers as "R (*)(A, B)", and Kiln's structs and handles by name (a
// TypeName<T> specialization, made from the names list, says which). This header includes no Kiln header: each
// translation unit brings its own.
#pragma once

#include <cstddef>
#include <string>
#include <type_traits>
#include <vector>

namespace kiln_test {

struct AbiEntry {
  std::string kind;  // "handle", "struct", "field", "typedef", "function", "enumerator", "constant", "expression"
  std::string name;  // "KilnHostApi", "KilnHostApi.node_subgraph", "KILN_STATUS_OK", "KILN_MAKE_ABI_VERSION(2, 7)"
  size_t offset = 0;  // fields
  size_t size = 0;    // fields and structs
  size_t align = 0;   // fields and structs
  std::string type;   // fields, typedefs, functions, constants
  std::string value;  // constants and expressions
};

// The table of the frozen 1.1 header (abi_v1_1_frozen.cc), and the KILN_ABI_VERSION it was compiled with.
std::vector<AbiEntry> FrozenV1_1Table();
unsigned FrozenV1_1AbiVersion();
// The same of the frozen 1.2 header (abi_v1_2_frozen.cc).
std::vector<AbiEntry> FrozenV1_2Table();
unsigned FrozenV1_2AbiVersion();

// Every way `current` breaks what `frozen` (the table of ABI `version`, "1.1") promised, one line each, in the
// names list's order: a field or host slot keeps its offset, size, alignment and exact type, a struct never
// shrinks or changes alignment, a typedef and a function keep their types, a constant its value and type.
inline std::vector<std::string> AbiDifferences(const std::vector<AbiEntry>& frozen,
                                               const std::vector<AbiEntry>& current, const std::string& version) {
  std::vector<std::string> out;
  if (frozen.size() != current.size()) {
    out.push_back("the tables have " + std::to_string(frozen.size()) + " and " + std::to_string(current.size()) +
                  " entries (were they built from one names list?)");
    return out;
  }
  auto quoted = [](const std::string& s) { return "`" + s + "`"; };
  for (size_t i = 0; i < frozen.size(); ++i) {
    const AbiEntry& was = frozen[i];
    const AbiEntry& is = current[i];
    if (was.kind != is.kind || was.name != is.name) {
      out.push_back("entry " + std::to_string(i) + " is " + was.kind + " " + was.name + " in " + version + " but " +
                    is.kind + " " + is.name + " now");
      return out;
    }
    const std::string who = was.kind + " " + was.name + ": ";
    auto differs = [&](const char* what, const std::string& a, const std::string& b) {
      if (a != b) out.push_back(who + what + " was " + a + " in " + version + ", is " + b + " now");
    };
    if (was.kind == "struct") {
      if (is.size < was.size)
        out.push_back(who + "shrank from " + std::to_string(was.size) + " to " + std::to_string(is.size) + " bytes");
      differs("alignment", std::to_string(was.align), std::to_string(is.align));
      continue;
    }
    if (was.kind == "field") {
      differs("offset", std::to_string(was.offset), std::to_string(is.offset));
      differs("size", std::to_string(was.size), std::to_string(is.size));
      differs("alignment", std::to_string(was.align), std::to_string(is.align));
    }
    differs("type", quoted(was.type), quoted(is.type));
    differs("value", was.value, is.value);
  }
  return out;
}

// The name of a Kiln struct or handle type; specialized, per translation unit, for the types of its header.
template <class T>
struct TypeName {
  static_assert(!std::is_same_v<T, T>, "a type TypeText has no name for: add it to the names list");
};
#define KILN_TEST_NAME_TYPE(QUALIFIED, T)        \
  template <>                                    \
  struct TypeName<QUALIFIED> {                   \
    static constexpr const char* value = #T;     \
  };

template <class T>
std::string TypeText();

template <class... A>
std::string ParameterText() {
  std::string s;
  ((s += (s.empty() ? "" : ", ") + TypeText<A>()), ...);
  return s;
}

template <class F>
struct FunctionText;
template <class R, class... A>
struct FunctionText<R(A...)> {
  static std::string Get(const std::string& declarator) {
    return TypeText<R>() + " " + declarator + "(" + ParameterText<A...>() + ")";
  }
};
template <class R, class... A>
struct FunctionText<R(A..., ...)> {
  static std::string Get(const std::string& declarator) {
    return TypeText<R>() + " " + declarator + "(" + ParameterText<A...>() + (sizeof...(A) ? ", ..." : "...") + ")";
  }
};
template <class R, class... A>
struct FunctionText<R(A...) noexcept> {
  static std::string Get(const std::string& declarator) { return FunctionText<R(A...)>::Get(declarator) + " noexcept"; }
};

template <class T>
std::string FundamentalText() {
  if constexpr (std::is_same_v<T, void>) return "void";
  else if constexpr (std::is_same_v<T, bool>) return "bool";
  else if constexpr (std::is_same_v<T, char>) return "char";
  else if constexpr (std::is_same_v<T, signed char>) return "signed char";
  else if constexpr (std::is_same_v<T, unsigned char>) return "unsigned char";
  else if constexpr (std::is_same_v<T, short>) return "short";
  else if constexpr (std::is_same_v<T, unsigned short>) return "unsigned short";
  else if constexpr (std::is_same_v<T, int>) return "int";
  else if constexpr (std::is_same_v<T, unsigned>) return "unsigned int";
  else if constexpr (std::is_same_v<T, long>) return "long";
  else if constexpr (std::is_same_v<T, unsigned long>) return "unsigned long";
  else if constexpr (std::is_same_v<T, long long>) return "long long";
  else if constexpr (std::is_same_v<T, unsigned long long>) return "unsigned long long";
  else if constexpr (std::is_same_v<T, float>) return "float";
  else if constexpr (std::is_same_v<T, double>) return "double";
  else if constexpr (std::is_same_v<T, long double>) return "long double";
  else static_assert(!std::is_same_v<T, T>, "a fundamental type TypeText does not know");
}

template <class T>
std::string TypeText() {
  if constexpr (std::is_array_v<T> && std::extent_v<T> != 0) {
    return TypeText<std::remove_extent_t<T>>() + "[" + std::to_string(std::extent_v<T>) + "]";
  } else if constexpr (std::is_array_v<T>) {
    return TypeText<std::remove_extent_t<T>>() + "[]";
  } else if constexpr (std::is_const_v<T> || std::is_volatile_v<T>) {
    using U = std::remove_cv_t<T>;
    std::string cv = std::is_const_v<T> && std::is_volatile_v<T> ? "const volatile"
                     : std::is_const_v<T>                       ? "const"
                                                                : "volatile";
    if constexpr (std::is_pointer_v<U>) return TypeText<U>() + " " + cv;
    else return cv + " " + TypeText<U>();
  } else if constexpr (std::is_pointer_v<T> && std::is_function_v<std::remove_pointer_t<T>>) {
    return FunctionText<std::remove_pointer_t<T>>::Get("(*)");
  } else if constexpr (std::is_pointer_v<T>) {
    return TypeText<std::remove_pointer_t<T>>() + "*";
  } else if constexpr (std::is_function_v<T>) {
    return FunctionText<T>::Get("");
  } else if constexpr (std::is_enum_v<T>) {
    return "enum";  // Kiln's enums are unnamed: their constants cross as integers, through fixed-width fields
  } else if constexpr (std::is_class_v<T> || std::is_union_v<T>) {
    return TypeName<T>::value;
  } else {
    return FundamentalText<T>();
  }
}

// ---- the entries, made from a names list with a Kiln header in scope (see abi_v1_1_table.inc) ----
template <class T>
AbiEntry StructEntry(const char* name) {
  AbiEntry e;
  e.kind = "struct";
  e.name = name;
  e.size = sizeof(T);
  e.align = alignof(T);
  return e;
}

inline AbiEntry FieldEntry(const char* name, size_t offset, size_t size, size_t align, std::string type) {
  AbiEntry e;
  e.kind = "field";
  e.name = name;
  e.offset = offset;
  e.size = size;
  e.align = align;
  e.type = std::move(type);
  return e;
}

inline AbiEntry TypeEntry(const char* kind, const char* name, std::string type) {
  AbiEntry e;
  e.kind = kind;
  e.name = name;
  e.type = std::move(type);
  return e;
}

template <class V>
AbiEntry ValueEntry(const char* kind, const char* name, const V& v) {
  AbiEntry e;
  e.kind = kind;
  e.name = name;
  if constexpr (std::is_array_v<V>) {
    e.type = TypeText<const V>();  // a string literal's array of const char (deduction moved the const off V)
    e.value = std::string("\"") + v + "\"";
  } else if constexpr (std::is_enum_v<V> || std::is_signed_v<V>) {
    e.type = TypeText<V>();
    e.value = std::to_string(static_cast<long long>(v));
  } else {
    e.type = TypeText<V>();
    e.value = std::to_string(static_cast<unsigned long long>(v));
  }
  return e;
}

}  // namespace kiln_test
