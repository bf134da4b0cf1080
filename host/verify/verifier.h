// The IR verifier: the invariants every pass must keep. Checked: every node input is defined (by a node, a
// graph input or an initializer) and visible from the node's scope (its graph or an enclosing one: subgraph
// scoping); producer and consumer links agree both ways; no graph has a cycle; initializer data matches its
// value's type; and, for ops whose ONNX schema is known at the model's opset, input and output counts fit the
// schema and inputs bound to one type parameter agree on their element type.
#pragma once

#include <string>
#include <unordered_set>
#include <vector>

namespace kiln {

class Model;
class Node;

struct VerifyIssue {
  std::string where;    // "graph 'g' node 'n' (Add)"
  std::string message;  // what is wrong
};

// An issue as one line, "where: message": how messages list it and how IssueSet knows it again.
std::string IssueText(const VerifyIssue& issue);
// Issues by their text: those a check already knows of (the input's own, for --verify-each).
using IssueSet = std::unordered_set<std::string>;

std::vector<VerifyIssue> VerifyModel(const Model& model);
// Throws kiln::Error (internal, exit 5) listing the first issues, prefixed with `context` ("after pass X").
// Issues in `known` (may be null) are left out: the model had them before.
void VerifyModelOrThrow(const Model& model, const std::string& context, const IssueSet* known = nullptr);
// The cheap local checks for one node (inputs live and visible, outputs' consumers live): for --verify-each.
std::vector<VerifyIssue> VerifyNode(const Node& node);

}  // namespace kiln
