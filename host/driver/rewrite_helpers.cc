#include "driver/rewrite_helpers.h"

#include "ir/graph.h"
#include "support/error.h"

namespace kiln {

void IsolateAndDeleteNode(Node& node, const std::vector<int>& io_map) { DeleteUnusedInputs(IsolateAndRemoveNode(node, io_map)); }

std::vector<Value*> IsolateAndRemoveNode(Node& node, const std::vector<int>& io_map) {
  Graph& g = *node.graph();
  for (size_t k = 0; k < node.num_outputs(); ++k) {
    Value* out = node.output(k);
    if (out == nullptr || !out->has_uses()) continue;
    int src = k < io_map.size() ? io_map[k] : -1;
    Value* in = src >= 0 ? node.input(static_cast<size_t>(src)) : nullptr;
    if (in == nullptr)
      throw InternalError("IsolateAndDeleteNode: output '" + out->name() + "' of node '" + node.name() +
                          "' is used but maps to no input");
    g.ReplaceValue(out, in);
  }
  std::vector<Value*> inputs(node.inputs().begin(), node.inputs().end());
  g.RemoveNode(&node);
  return inputs;
}

void DeleteUnusedInputs(const std::vector<Value*>& values) {
  std::vector<Value*> work(values.begin(), values.end());
  while (!work.empty()) {
    Value* v = work.back();
    work.pop_back();
    if (v == nullptr || v->is_deleted() || v->has_uses() || v->is_graph_input()) continue;
    Graph& g = *v->graph();
    if (Node* p = v->producer()) {
      bool all_unused = true;
      for (Value* o : p->outputs()) all_unused = all_unused && (o == nullptr || !o->has_uses());
      if (!all_unused) continue;
      for (Value* in : p->inputs()) work.push_back(in);
      g.RemoveNode(p);
    } else if (v->is_initializer()) {
      g.RemoveValue(v);
    }
  }
}

}  // namespace kiln
