// A canonical text of a function's signature and body that ignores every name but the function's attribute names
// and the op types: two functions have the same text exactly when one is the other with values and nodes renamed.
// Outline uses it to give every call of the same shape of group one body.
#pragma once

#include <string>

namespace kiln {

class Function;
class Graph;

std::string CanonicalFunctionForm(const Function& f);
struct Attribute;
class Tensor;
// The canonical text of one attribute (its subgraphs included) and of one tensor, appended to `out`.
void AppendCanonicalAttribute(std::string& out, const Attribute& a);
void AppendCanonicalTensor(std::string& out, const Tensor& t);
// The same for a graph (inputs, nodes in topological order, outputs); values outside it read by name.
std::string CanonicalGraphForm(const Graph& g);

}  // namespace kiln
