#include "ir/attribute.h"

#include "ir/graph.h"

namespace kiln {

Attribute::Attribute() = default;
Attribute::Attribute(Attribute&&) noexcept = default;
Attribute& Attribute::operator=(Attribute&&) noexcept = default;
Attribute::~Attribute() = default;

Attribute Attribute::Int(std::string name, int64_t v) {
  Attribute a;
  a.name = std::move(name);
  a.kind = AttrKind::kInt;
  a.i = v;
  return a;
}

Attribute Attribute::Float(std::string name, float v) {
  Attribute a;
  a.name = std::move(name);
  a.kind = AttrKind::kFloat;
  a.f = v;
  return a;
}

Attribute Attribute::String(std::string name, std::string v) {
  Attribute a;
  a.name = std::move(name);
  a.kind = AttrKind::kString;
  a.s = std::move(v);
  return a;
}

Attribute Attribute::Ints(std::string name, std::vector<int64_t> v) {
  Attribute a;
  a.name = std::move(name);
  a.kind = AttrKind::kInts;
  a.ints = std::move(v);
  return a;
}

Attribute Attribute::Floats(std::string name, std::vector<float> v) {
  Attribute a;
  a.name = std::move(name);
  a.kind = AttrKind::kFloats;
  a.floats = std::move(v);
  return a;
}

Attribute Attribute::TensorValue(std::string name, Tensor v) {
  Attribute a;
  a.name = std::move(name);
  a.kind = AttrKind::kTensor;
  a.t = std::move(v);
  return a;
}

std::vector<Graph*> Attribute::subgraphs() const {
  std::vector<Graph*> out;
  out.reserve(graphs.size());
  for (const auto& g : graphs) out.push_back(g.get());
  return out;
}

}  // namespace kiln
