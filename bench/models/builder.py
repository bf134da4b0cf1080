"""A small graph builder that writes ONNX the way PyTorch's exporter does.

What "the way PyTorch writes it" means here (torch.onnx.export, TorchScript
exporter, do_constant_folding=False, which is what keeps the work for a graph
compiler's folding passes in the model):

* node names follow the module scope: ``/layer1/layer1.0/conv1/Conv``; a
  repeated op in one scope gets ``_1``, ``_2``... (``/attention/self/Shape_1``);
* each node output is ``<node name>_output_<i>``;
* small values (axes, scalars, shape pieces, Clip bounds, epsilons) are
  ``Constant`` nodes, one per use, never shared;
* weights are initializers named by their parameter path
  (``layer1.0.conv1.weight``);
* every ``view``/``reshape`` with sizes taken from a tensor is a shape chain
  ``Shape -> Gather(Constant) -> Unsqueeze(Constant axes) -> Concat -> Reshape``;
* ``nn.Linear`` on a rank-2 input is ``Gemm(transB=1)``; on higher ranks it is
  ``Transpose(weight) -> MatMul -> Add(bias)`` (the transpose of the weight is
  what ``do_constant_folding=True`` would have folded away).

Everything random comes from one seeded ``numpy.random.Generator``, drawn in a
fixed order, so a model is a pure function of its arguments.
"""

import contextlib

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

FLOAT_MIN = float(np.finfo(np.float32).min)  # torch.finfo(torch.float32).min
INT64_MAX = np.iinfo(np.int64).max

_NP_TO_ONNX = {
    np.dtype(np.float32): TensorProto.FLOAT,
    np.dtype(np.float64): TensorProto.DOUBLE,
    np.dtype(np.int64): TensorProto.INT64,
    np.dtype(np.int32): TensorProto.INT32,
    np.dtype(np.bool_): TensorProto.BOOL,
}


class Builder:
    def __init__(self, opset=17, seed=0, graph_name="main_graph"):
        self.opset = opset
        self.rng = np.random.default_rng(seed)
        self.graph_name = graph_name
        self.nodes = []
        self.initializers = []
        self.inputs = []
        self.outputs = []
        self._scope = []
        self._used = {}
        self._params = set()

    # ---- naming -----------------------------------------------------------
    @contextlib.contextmanager
    def scope(self, *parts):
        """Enter module scopes, e.g. b.scope("layer1", "layer1.0", "conv1")."""
        self._scope.extend(parts)
        try:
            yield
        finally:
            del self._scope[len(self._scope) - len(parts):]

    def _node_name(self, op_type):
        base = "/" + "".join(p + "/" for p in self._scope) + op_type
        n = self._used.get(base, 0)
        self._used[base] = n + 1
        return base if n == 0 else "%s_%d" % (base, n)

    # ---- graph pieces -----------------------------------------------------
    def op(self, op_type, inputs, n_out=1, domain=None, **attrs):
        """Append a node; returns its output name (or a list if n_out > 1)."""
        name = self._node_name(op_type)
        outs = ["%s_output_%d" % (name, i) for i in range(n_out)]
        node = helper.make_node(op_type, list(inputs), outs, name=name, domain=domain, **attrs)
        self.nodes.append(node)
        return outs[0] if n_out == 1 else outs

    def const(self, value, dtype=np.int64):
        """A Constant node (value a python scalar -> 0-d tensor, a list -> 1-d)."""
        arr = np.asarray(value, dtype=dtype)
        name = self._node_name("Constant")
        out = name + "_output_0"
        self.nodes.append(helper.make_node("Constant", [], [out], name=name,
                                           value=numpy_helper.from_array(arr)))
        return out

    def fconst(self, value):
        return self.const(value, np.float32)

    def param(self, name, array):
        """Register an initializer (a weight or buffer) under its parameter path."""
        if name in self._params:
            raise ValueError("duplicate parameter " + name)
        self._params.add(name)
        self.initializers.append(numpy_helper.from_array(np.ascontiguousarray(array), name=name))
        return name

    def input(self, name, elem_type, shape):
        self.inputs.append(helper.make_tensor_value_info(name, elem_type, shape))
        return name

    def output(self, value, name, elem_type, shape):
        """Declare a graph output; renames the producing node's output to `name`."""
        for node in reversed(self.nodes):
            for i, o in enumerate(node.output):
                if o == value:
                    node.output[i] = name
                    for other in self.nodes:  # later consumers of the old name
                        for j, inp in enumerate(other.input):
                            if inp == value:
                                other.input[j] = name
                    self.outputs.append(helper.make_tensor_value_info(name, elem_type, shape))
                    return name
        raise KeyError(value)

    # ---- random weights ---------------------------------------------------
    def randn(self, shape, std):
        return (self.rng.standard_normal(shape, dtype=np.float32) * np.float32(std)).astype(np.float32)

    def uniform(self, shape, lo, hi):
        return self.rng.uniform(lo, hi, size=shape).astype(np.float32)

    # ---- PyTorch idioms ---------------------------------------------------
    def size(self, x, dim):
        """x.size(dim): Shape -> Gather(Constant dim) (a 0-d int64)."""
        shape = self.op("Shape", [x])
        return self.op("Gather", [shape, self.const(dim)], axis=0)

    def sizes(self, x, dims):
        """a, b = x.size()[...]: one Shape, one Gather per element."""
        shape = self.op("Shape", [x])
        return [self.op("Gather", [shape, self.const(d)], axis=0) for d in dims]

    def unsqueeze(self, x, axes):
        return self.op("Unsqueeze", [x, self.const(list(axes))])

    def shape_list(self, dims):
        """The ListConstruct of a view/expand: traced sizes are unsqueezed,
        python ints become Constant [d]; all concatenated."""
        parts = []
        for d in dims:
            if isinstance(d, str):
                parts.append(self.unsqueeze(d, [0]))
            else:
                parts.append(self.const([int(d)]))
        return self.op("Concat", parts, axis=0)

    def view(self, x, dims):
        """x.view(dims) where dims mixes traced sizes (names) and ints."""
        return self.reshape(x, self.shape_list(dims))

    def reshape(self, x, shape):
        if self.opset >= 14:  # the exporter writes allowzero=0 where the attribute exists
            return self.op("Reshape", [x, shape], allowzero=0)
        return self.op("Reshape", [x, shape])

    def expand(self, x, dims):
        """x.expand(dims) with traced sizes: PyTorch turns the -1 entries into 1
        at run time through ones_like/Equal/Where before Expand."""
        size = self.shape_list(dims)
        ones = self.op("ConstantOfShape", [self.op("Shape", [size])],
                       value=numpy_helper.from_array(np.array([1], dtype=np.int64)))
        neg_ones = self.op("Mul", [ones, self.const(-1)])
        eq = self.op("Equal", [size, neg_ones])
        size = self.op("Where", [eq, ones, size])
        return self.op("Expand", [x, size])

    def linear(self, x, prefix, fan_in, fan_out, bias=True, rank2=False, std=None,
               pretransposed=False):
        """nn.Linear(fan_in, fan_out) named `prefix` (e.g. encoder.layer.0.attention.self.query)."""
        if std is None:
            std = 1.0 / np.sqrt(fan_in)  # Xavier-ish: keeps activations O(1)
        w = self.randn((fan_out, fan_in), std)
        b = self.uniform((fan_out,), -0.02, 0.02) if bias else None
        if rank2:
            ins = [x, self.param(prefix + ".weight", w)]
            if bias:
                ins.append(self.param(prefix + ".bias", b))
            return self.op("Gemm", ins, alpha=1.0, beta=1.0, transB=1)
        if pretransposed:  # what do_constant_folding=True writes
            wt = self.param("onnx::MatMul_" + prefix, np.ascontiguousarray(w.T))
        else:
            wt = self.op("Transpose", [self.param(prefix + ".weight", w)], perm=[1, 0])
        y = self.op("MatMul", [x, wt])
        if bias:
            y = self.op("Add", [self.param(prefix + ".bias", b), y])
        return y

    # ---- the model --------------------------------------------------------
    def model(self, doc=""):
        graph = helper.make_graph(self.nodes, self.graph_name, self.inputs, self.outputs,
                                  initializer=self.initializers)
        m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", self.opset)],
                              producer_name="kiln-bench-gen_models",
                              producer_version="1", doc_string=doc)
        # IR version 8 is what opset 13-17 exporters write and what onnx 1.12 knows.
        m.ir_version = 8
        return m


def dims(batch_symbolic, *rest):
    """A shape whose first dimension is 'batch' (symbolic) or 1 (static)."""
    return ["batch" if batch_symbolic else 1] + list(rest)
