"""A synthetic graph of exactly N nodes for driver benchmarks (load, walk,
verify, write): cheap elementwise ops on a small tensor, Add -> Mul -> Relu
repeated, each Add and Mul with its own small constant initializer.

Numerics stay bounded: x <- relu(c * (x + a)) with c in [0.9, 1.0] and
a in [-0.1, 0.1] keeps |x| below about 2 whatever N is.

foldchain: the same with each bias stored negated behind a Neg node (Neg ->
Add -> Mul -> Relu repeated), as exporters leave constant subexpressions:
constant folding replaces a quarter of the nodes and removes as many
initializers, which is what it stresses at scale."""

import numpy as np
from onnx import TensorProto

from builder import Builder, dims

_PATTERN = ("Add", "Mul", "Relu")
_FOLD_PATTERN = ("Neg", "Add", "Mul", "Relu")


def chain(batch_symbolic=False, seed=0, opset=17, nodes=100000, width=16, folded=False):
    if nodes < 1:
        raise ValueError("--nodes must be at least 1")
    pattern = _FOLD_PATTERN if folded else _PATTERN
    b = Builder(opset=opset, seed=seed)
    x = b.input("input", TensorProto.FLOAT, dims(batch_symbolic, width))
    # draw all constants at once (fast, and still a pure function of the seed)
    adds = b.uniform((nodes, width), -0.1, 0.1)
    muls = b.uniform((nodes, width), 0.9, 1.0)
    bias = None
    for i in range(nodes):
        op = pattern[i % len(pattern)]
        blk = i // len(pattern)
        with b.scope("layers.%d" % blk):
            if op == "Neg":
                bias = b.op("Neg", [b.param("layers.%d.neg_bias" % blk, -adds[i])])
            elif op == "Add":
                x = b.op("Add", [x, bias if folded else b.param("layers.%d.bias" % blk, adds[i])])
            elif op == "Mul":
                x = b.op("Mul", [x, b.param("layers.%d.scale" % blk, muls[i])])
            else:
                x = b.op("Relu", [x])
    b.output(x, "output", TensorProto.FLOAT, dims(batch_symbolic, width))
    if folded:
        return b.model("synthetic Neg/Add/Mul/Relu chain of %d nodes (the biases fold), seed %d" % (nodes, seed))
    return b.model("synthetic Add/Mul/Relu chain of %d nodes, seed %d" % (nodes, seed))
