// Rule packs from YAML (yaml-cpp), with file:line:column on every error; see rule_loader.h and the grammar in
// configs/fusion/README.md.
#include "rule_loader.h"

#include <yaml-cpp/yaml.h>

#include <kiln/kiln_helper_thread.hpp>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <exception>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <system_error>
#include <thread>
#include <vector>

namespace kiln::fusion {
namespace {

// ---- replacements: Op{a: v}(args) | var | $fn(args)
class ReplacementParser {
 public:
  explicit ReplacementParser(std::string_view s) : s_(s) {}
  std::unique_ptr<Replacement> All() {
    auto r = Term();
    Skip();
    if (pos_ != s_.size()) Fail("unexpected '" + std::string(1, s_[pos_]) + "'");
    return r;
  }

 private:
  [[noreturn]] void Fail(const std::string& m) { throw PatternError{m, pos_}; }
  void Skip() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  bool Eat(char c) {
    Skip();
    if (pos_ < s_.size() && s_[pos_] == c) return ++pos_, true;
    return false;
  }
  void Expect(char c) {
    if (!Eat(c)) Fail(std::string("expected '") + c + "'");
  }
  static bool NameChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
  std::string Name() {
    Skip();
    size_t start = pos_;
    while (pos_ < s_.size() && NameChar(s_[pos_])) ++pos_;
    if (start == pos_) Fail("expected a name");
    return std::string(s_.substr(start, pos_ - start));
  }
  // Text up to the ',' or closing bracket that ends a value at depth 0.
  std::string_view Balanced() {
    Skip();
    size_t start = pos_;
    int depth = 0;
    while (pos_ < s_.size()) {
      char c = s_[pos_];
      if (c == '(' || c == '[' || c == '{') ++depth;
      if (c == ')' || c == ']' || c == '}') {
        if (depth == 0) break;
        --depth;
      }
      if (c == ',' && depth == 0) break;
      ++pos_;
    }
    return s_.substr(start, pos_ - start);
  }

  std::unique_ptr<Replacement> Term() {
    Skip();
    auto r = std::make_unique<Replacement>();
    if (Eat('$')) {
      r->kind = Replacement::Kind::kFunction;
      r->function = Name();
      static const char* kFns[] = {"recip", "neg", "mul", "add", "sub", "div"};
      if (std::none_of(std::begin(kFns), std::end(kFns), [&](const char* f) { return r->function == f; }))
        Fail("unknown constant function $" + r->function + " (recip, neg, mul, add, sub, div)");
      Expect('(');
      do r->args.push_back(Term());
      while (Eat(','));
      Expect(')');
      return r;
    }
    std::vector<std::string> parts{Name()};
    while (pos_ < s_.size() && s_[pos_] == '.') {
      ++pos_;
      parts.push_back(Name());
    }
    if (std::islower(static_cast<unsigned char>(parts.back()[0]))) {
      if (parts.size() > 1) Fail("a variable cannot have a domain");
      r->kind = Replacement::Kind::kVar;
      r->var = parts.back();
      return r;
    }
    r->kind = Replacement::Kind::kOp;
    r->op_type = parts.back();
    for (size_t i = 0; i + 1 < parts.size(); ++i) r->domain += (i ? "." : "") + parts[i];
    if (Eat('{')) {
      do {
        Replacement::Attr a;
        a.name = Name();
        Expect(':');
        Skip();
        if (Eat('@')) {
          a.kind = Replacement::Attr::Kind::kCopy;
          a.copy_label = Name();
          Expect('.');
          a.copy_name = Name();
        } else if (Eat('$')) {
          bool integer = false;
          if (s_.substr(pos_, 3) == "int") {
            integer = true;
            pos_ += 3;
          }
          Expect('(');
          size_t start = pos_;
          std::string_view text = Balanced();
          try {
            a.expr = Expr::Parse(text);
          } catch (PatternError e) {
            e.offset += start;
            throw e;
          }
          Expect(')');
          a.kind = integer ? Replacement::Attr::Kind::kIntExpr : Replacement::Attr::Kind::kFloatExpr;
        } else {
          size_t start = pos_;
          std::string text(Balanced());
          try {
            // Literals parse as a pattern's attribute value would.
            auto p = ParsePattern("X{v: " + text + "}()");
            a.literal = p->attrs[0].value;
          } catch (PatternError e) {
            throw PatternError{"bad value '" + text + "'", start};
          }
          // A number written without '.' or an exponent is an integer attribute.
          a.literal_is_float = a.literal.kind != AttrValue::Kind::kString && text.find_first_of(".eE") != std::string::npos;
        }
        r->attrs.push_back(std::move(a));
      } while (Eat(','));
      Expect('}');
    }
    Expect('(');
    if (!Eat(')')) {
      do r->args.push_back(Term());
      while (Eat(','));
      Expect(')');
    }
    return r;
  }

  std::string_view s_;
  size_t pos_ = 0;
};

// ---- YAML
class Loader {
 public:
  explicit Loader(std::string source) : source_(std::move(source)) {}

  RulePack Load(std::string_view text) {
    YAML::Node root;
    try {
      root = YAML::Load(std::string(text));
    } catch (const YAML::Exception& e) {
      throw RuleError(At(e.mark) + e.msg);
    }
    if (!root.IsMap()) throw RuleError(At(root.Mark()) + "a rule pack is a mapping with 'pack' and 'rules'");
    CheckKeys(root, {"pack", "description", "rules", "version"});
    RulePack pack;
    pack.source = source_;
    pack.name = Scalar(root, "pack", true);
    pack.description = Scalar(root, "description", false);
    YAML::Node rules = root["rules"];
    if (!rules || !rules.IsSequence()) throw RuleError(At(root.Mark()) + "'rules' must be a list of rules");
    std::set<std::string> names;
    for (const YAML::Node& r : rules) {
      Rule rule = LoadRule(r);
      rule.pack = pack.name;
      if (!names.insert(rule.name).second) throw RuleError(At(r.Mark()) + "rule '" + rule.name + "' is defined twice");
      pack.rules.push_back(std::move(rule));
    }
    return pack;
  }

 private:
  std::string At(const YAML::Mark& m) const {
    return source_ + ":" + std::to_string(m.line + 1) + ":" + std::to_string(m.column + 1) + ": ";
  }
  // The position of `offset` inside a scalar's text (for a block scalar, its lines start on the next line).
  std::string AtOffset(const YAML::Node& scalar, const std::string& text, size_t offset) const {
    YAML::Mark m = scalar.Mark();
    size_t line = 0, col = 0;
    for (size_t i = 0; i < offset && i < text.size(); ++i) {
      if (text[i] == '\n') ++line, col = 0;
      else ++col;
    }
    bool block = text.find('\n') != std::string::npos;
    int l = m.line + 1 + static_cast<int>(line) + (block ? 1 : 0);
    int c = line == 0 && !block ? m.column + 1 + static_cast<int>(col) : static_cast<int>(col) + 1;
    return source_ + ":" + std::to_string(l) + ":" + std::to_string(c) + ": ";
  }
  void CheckKeys(const YAML::Node& map, std::initializer_list<const char*> allowed) const {
    for (const auto& kv : map) {
      std::string key = kv.first.as<std::string>();
      if (std::none_of(allowed.begin(), allowed.end(), [&](const char* a) { return key == a; })) {
        std::string list;
        for (const char* a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
        throw RuleError(At(kv.first.Mark()) + "unknown key '" + key + "' (expected one of: " + list + ")");
      }
    }
  }
  std::string Scalar(const YAML::Node& map, const char* key, bool required) const {
    YAML::Node n = map[key];
    if (!n) {
      if (required) throw RuleError(At(map.Mark()) + "missing '" + key + "'");
      return {};
    }
    if (!n.IsScalar()) throw RuleError(At(n.Mark()) + "'" + key + "' must be a single value");
    return n.as<std::string>();
  }
  std::unique_ptr<Pattern> PatternAt(const YAML::Node& n, const std::string& what) const {
    if (!n.IsScalar()) throw RuleError(At(n.Mark()) + what + " must be a pattern written as text");
    std::string text = n.as<std::string>();
    try {
      auto p = ParsePattern(text);
      return p;
    } catch (const PatternError& e) {
      throw RuleError(AtOffset(n, text, e.offset) + "in " + what + ": " + e.message);
    }
  }
  Expr ExprAt(const YAML::Node& n) const {
    std::string text = n.as<std::string>();
    try {
      return Expr::Parse(text);
    } catch (const PatternError& e) {
      throw RuleError(AtOffset(n, text, e.offset) + "in expression: " + e.message);
    }
  }

  static int32_t ElemType(const std::string& s) {
    static const std::map<std::string, int32_t> kTypes = {
        {"float", 1},  {"float32", 1}, {"uint8", 2},   {"int8", 3},    {"uint16", 4}, {"int16", 5},  {"int32", 6},
        {"int64", 7},  {"string", 8},  {"bool", 9},    {"float16", 10}, {"double", 11}, {"float64", 11},
        {"uint32", 12}, {"uint64", 13}, {"bfloat16", 16}};
    auto it = kTypes.find(s);
    return it == kTypes.end() ? -1 : it->second;
  }

  ValuePredicate LoadPredicate(const YAML::Node& n) const {
    if (!n.IsMap()) throw RuleError(At(n.Mark()) + "a predicate is a mapping such as {const: 0.5} or {rank: 2}");
    CheckKeys(n, {"const", "tol", "constant", "scalar", "rank", "dtype", "shape", "static", "same_shape_as",
                  "single_use"});
    ValuePredicate p;
    try {
      if (n["const"]) p.equals = ExprAt(n["const"]), p.constant = true;
      if (n["tol"]) p.tolerance = n["tol"].as<double>();
      if (n["constant"]) p.constant = n["constant"].as<bool>();
      if (n["scalar"]) p.scalar = n["scalar"].as<bool>(), p.constant = p.constant || p.scalar;
      if (n["static"]) p.static_shape = n["static"].as<bool>();
      if (n["single_use"]) p.single_use = n["single_use"].as<bool>();
      if (YAML::Node r = n["rank"]) {
        if (r.IsSequence()) p.ranks = r.as<std::vector<int64_t>>();
        else p.ranks = {r.as<int64_t>()};
      }
      if (YAML::Node s = n["shape"]) p.shape = s.as<std::vector<int64_t>>();
      if (YAML::Node t = n["dtype"]) {
        std::vector<std::string> names = t.IsSequence() ? t.as<std::vector<std::string>>()
                                                         : std::vector<std::string>{t.as<std::string>()};
        for (const std::string& name : names) {
          int32_t e = ElemType(name);
          if (e < 0) throw RuleError(At(t.Mark()) + "unknown element type '" + name + "'");
          p.elem_types.push_back(e);
        }
      }
      if (YAML::Node s = n["same_shape_as"]) {
        p.same_shape_as = s.IsSequence() ? s.as<std::vector<std::string>>() : std::vector<std::string>{s.as<std::string>()};
      }
    } catch (const YAML::BadConversion& e) {
      throw RuleError(At(e.mark) + "a predicate value has the wrong type (" + e.msg + ")");
    }
    return p;
  }

  Rule LoadRule(const YAML::Node& r) {
    if (!r.IsMap()) throw RuleError(At(r.Mark()) + "a rule is a mapping with name, pattern and an action");
    CheckKeys(r, {"name", "comment", "pattern", "let", "where", "benefit", "fuse", "rewrite", "outputs", "opset"});
    Rule rule;
    rule.name = Scalar(r, "name", true);
    rule.pos = {source_, r.Mark().line + 1, r.Mark().column + 1};
    rule.comment = Scalar(r, "comment", false);
    if (!r["pattern"]) throw RuleError(At(r.Mark()) + "rule '" + rule.name + "' has no pattern");
    rule.pattern = PatternAt(r["pattern"], "the pattern of rule '" + rule.name + "'");
    if (RootOpTypes(*rule.pattern).empty())
      throw RuleError(At(r["pattern"].Mark()) + "the pattern of rule '" + rule.name + "' must start with an op");
    if (YAML::Node lets = r["let"]) {
      if (!lets.IsMap()) throw RuleError(At(lets.Mark()) + "'let' maps variables to patterns");
      for (const auto& kv : lets) rule.lets[kv.first.as<std::string>()] = PatternAt(kv.second, "let " + kv.first.as<std::string>());
    }
    std::vector<std::string> vars, labels;
    CollectNames(*rule.pattern, vars, labels);
    for (const auto& [name, p] : rule.lets) CollectNames(*p, vars, labels);
    auto known = [&](const std::string& v) {
      return std::find(vars.begin(), vars.end(), v) != vars.end() || std::find(labels.begin(), labels.end(), v) != labels.end();
    };
    for (const auto& [name, p] : rule.lets)
      if (!known(name)) throw RuleError(At(lets_mark(r)) + "let '" + name + "' is not used by the pattern");
    if (YAML::Node where = r["where"]) {
      if (!where.IsMap()) throw RuleError(At(where.Mark()) + "'where' maps variables to predicates");
      for (const auto& kv : where) {
        std::string v = kv.first.as<std::string>();
        if (!known(v)) throw RuleError(At(kv.first.Mark()) + "'" + v + "' is not a variable of the pattern");
        rule.where[v] = LoadPredicate(kv.second);
        for (const std::string& other : rule.where[v].same_shape_as)
          if (!known(other)) throw RuleError(At(kv.second.Mark()) + "'" + other + "' is not a variable of the pattern");
        if (rule.where[v].equals)
          for (const std::string& ev : rule.where[v].equals->Vars())
            if (!known(ev)) throw RuleError(At(kv.second.Mark()) + "'" + ev + "' is not a variable of the pattern");
      }
    }
    rule.operand_ops = RequiredOperandOps(*rule.pattern, rule.lets);
    rule.benefit = CountOps(*rule.pattern);
    for (const auto& [name, p] : rule.lets) rule.benefit += CountOps(*p);
    if (YAML::Node b = r["benefit"]) rule.benefit = b.as<int>();
    const bool fuse = static_cast<bool>(r["fuse"]), rewrite = static_cast<bool>(r["rewrite"]);
    if (fuse == rewrite) throw RuleError(At(r.Mark()) + "rule '" + rule.name + "' needs exactly one action: fuse or rewrite");
    if (fuse) {
      rule.action = Rule::Action::kFuse;
      rule.fuse_name = Scalar(r, "fuse", true);
    } else {
      rule.action = Rule::Action::kRewrite;
      YAML::Node rw = r["rewrite"];
      std::string text = rw.as<std::string>();
      try {
        rule.rewrite = ParseReplacement(text);
      } catch (const PatternError& e) {
        throw RuleError(AtOffset(rw, text, e.offset) + "in the rewrite of rule '" + rule.name + "': " + e.message);
      }
      CheckReplacementNames(*rule.rewrite, known, rw);
    }
    if (YAML::Node outs = r["outputs"]) {
      if (!fuse) throw RuleError(At(outs.Mark()) + "'outputs' applies to fuse rules only");
      rule.extra_outputs = outs.as<std::vector<std::string>>();
      for (const std::string& o : rule.extra_outputs)
        if (!known(o)) throw RuleError(At(outs.Mark()) + "'" + o + "' is not a variable of the pattern");
    }
    if (YAML::Node o = r["opset"]) {
      if (!o.IsMap()) throw RuleError(At(o.Mark()) + "'opset' is {min: N} and/or {max: N}");
      CheckKeys(o, {"min", "max"});
      if (o["min"]) rule.min_opset = o["min"].as<int64_t>();
      if (o["max"]) rule.max_opset = o["max"].as<int64_t>();
    }
    return rule;
  }

  template <class Known>
  void CheckReplacementNames(const Replacement& rep, const Known& known, const YAML::Node& where) const {
    if (rep.kind == Replacement::Kind::kVar && !known(rep.var))
      throw RuleError(At(where.Mark()) + "the rewrite uses '" + rep.var + "', which the pattern does not bind");
    for (const auto& a : rep.attrs) {
      if (a.kind == Replacement::Attr::Kind::kCopy && !known(a.copy_label))
        throw RuleError(At(where.Mark()) + "the rewrite copies from '" + a.copy_label + "', which is no label");
      if (a.expr)
        for (const std::string& v : a.expr->Vars())
          if (!known(v)) throw RuleError(At(where.Mark()) + "the rewrite reads '" + v + "', which the pattern does not bind");
    }
    for (const auto& c : rep.args) CheckReplacementNames(*c, known, where);
  }
  static YAML::Mark lets_mark(const YAML::Node& r) { return r["let"].Mark(); }

  std::string source_;
};

}  // namespace

std::unique_ptr<Replacement> ParseReplacement(std::string_view text) { return ReplacementParser(text).All(); }

RulePack LoadRulePack(std::string_view yaml, const std::string& source) { return Loader(source).Load(yaml); }

RulePack LoadRulePackFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw RuleError(path + ": cannot read the rule pack");
  std::stringstream s;
  s << in.rdbuf();
  return LoadRulePack(s.str(), path);
}

RulePackReading::RulePackReading(std::vector<std::string> paths)
    : paths_(std::move(paths)), order_(paths_.size()), packs_(paths_.size()), errors_(paths_.size()) {
  std::vector<uintmax_t> bytes(paths_.size());
  for (size_t i = 0; i < paths_.size(); ++i) {
    std::error_code ec;
    bytes[i] = std::filesystem::file_size(paths_[i], ec);
    if (ec) bytes[i] = 0;  // reading it reports the problem
    order_[i] = i;
  }
  std::stable_sort(order_.begin(), order_.end(), [&](size_t a, size_t b) { return bytes[a] > bytes[b]; });
}

RulePackReading::~RulePackReading() {
  for (std::thread& t : helpers_) t.join();
}

void RulePackReading::StartHelpers(size_t n) {
  for (size_t t = 0; t < n; ++t) {
    try {
      helpers_.push_back(sdk::StartOffCreatorCpu([this] { Work(); }));
    } catch (const std::system_error&) {
      return;  // no thread to spare: Finish reads what is left
    }
  }
}

void RulePackReading::Work() {
  for (size_t k; (k = next_.fetch_add(1)) < order_.size();) {
    const size_t i = order_[k];
    try {
      packs_[i] = LoadRulePackFile(paths_[i]);
    } catch (...) {
      errors_[i] = std::current_exception();
    }
    std::lock_guard<std::mutex> lock(mu_);
    if (++read_ == order_.size()) all_read_.notify_all();
  }
}

std::vector<RulePack> RulePackReading::Finish() {
  Work();
  {
    std::unique_lock<std::mutex> lock(mu_);
    all_read_.wait(lock, [&] { return read_ == order_.size(); });
  }
  for (const std::exception_ptr& e : errors_)
    if (e) std::rethrow_exception(e);
  return std::move(packs_);
}

std::vector<RulePack> LoadRulePackFiles(const std::vector<std::string>& paths, size_t max_threads) {
  RulePackReading reading(paths);
  size_t wanted = std::min<size_t>(std::max(1u, std::thread::hardware_concurrency()), paths.size());
  if (max_threads > 0) wanted = std::min(wanted, max_threads);
  if (wanted > 1) reading.StartHelpers(wanted - 1);  // this thread is the last reader
  return reading.Finish();
}

}  // namespace kiln::fusion
