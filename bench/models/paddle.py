"""An ERNIE-style encoder written the way Paddle2ONNX writes Paddle programs.

What differs from PyTorch's exporter (builder.py), as Paddle2ONNX emits it:

* ``paddle.shape(x)`` is ``Shape -> Cast(int32)``: Paddle's shapes are int32, so
  every shape piece is sliced (``Slice``, not ``Gather``) from an int32 shape,
  concatenated as int32, and cast back to int64 right before ``Reshape``;
* reshape targets mix those pieces with literal 0 ("copy this dim") and -1;
* ``paddle.arange(seq)`` is ``Range`` over a shape piece, and
  ``paddle.full_like``/``fill_constant`` with a runtime shape is
  ``ConstantOfShape``;
* ``scale`` ops are ``Mul`` then ``Add``; softmax is on the last axis;
* ``paddle.static.nn.cond(seq_len > max_len, ...)`` is an ``If`` whose branches
  compute their own shape chains from tensors of the outer graph (here: the
  pooled output is either truncated to the first ``max_len`` tokens' mean or
  taken over the whole sequence, each branch reshaping with a shape chain).

Weights are initializers named ``encoder.layers.N...``; small values are
initializers too (Paddle2ONNX does not write Constant nodes for them).
"""

import numpy as np
from onnx import TensorProto, helper, numpy_helper

from builder import Builder, dims


class PaddleBuilder(Builder):
    """Builder with Paddle2ONNX's idioms: initializer constants, int32 shapes."""

    def const(self, value, dtype=np.int64):
        arr = np.asarray(value, dtype=dtype)
        name = "p2o.constant.%d" % len(self.initializers)
        self.initializers.append(numpy_helper.from_array(arr, name=name))
        return name

    def shape32(self, x):
        """paddle.shape(x): Shape then Cast to int32."""
        return self.op("Cast", [self.op("Shape", [x])], to=TensorProto.INT32)

    def dim32(self, shape32, axis):
        """shape[axis] as a 1-element int32 tensor (Slice, as Paddle2ONNX writes it)."""
        return self.op("Slice", [shape32, self.const([axis]), self.const([axis + 1]), self.const([0])])

    def reshape_to(self, x, pieces):
        """paddle.reshape(x, [pieces]): int32 pieces or ints, Concat, Cast to int64, Reshape."""
        parts = [p if isinstance(p, str) else self.const([int(p)], np.int32) for p in pieces]
        target = self.op("Cast", [self.op("Concat", parts, axis=0)], to=TensorProto.INT64)
        return self.op("Reshape", [x, target])


def _layer_norm(b, x, pname, hidden, eps=1e-5):
    w = b.param(pname + ".weight", b.uniform((hidden,), 0.9, 1.1))
    bias = b.param(pname + ".bias", b.uniform((hidden,), -0.02, 0.02))
    mean = b.op("ReduceMean", [x], axes=[-1], keepdims=1)
    d = b.op("Sub", [x, mean])
    var = b.op("ReduceMean", [b.op("Mul", [d, d])], axes=[-1], keepdims=1)
    y = b.op("Div", [d, b.op("Sqrt", [b.op("Add", [var, b.const(eps, np.float32)])])])
    return b.op("Add", [b.op("Mul", [y, w]), bias])


def _linear(b, x, prefix, fi, fo):
    w = b.param(prefix + ".weight", b.randn((fi, fo), 1.0 / np.sqrt(fi)))  # Paddle stores [in, out]
    bias = b.param(prefix + ".bias", b.uniform((fo,), -0.02, 0.02))
    return b.op("Add", [b.op("MatMul", [x, w]), bias])


def _encoder_layer(b, h, mask_add, pre, hidden, heads, ffn):
    head_dim = hidden // heads
    s = b.shape32(h)
    bsz, slen = b.dim32(s, 0), b.dim32(s, 1)

    def split_heads(x):
        x = b.reshape_to(x, [0, 0, heads, head_dim])  # Paddle writes the literal 0s
        return b.op("Transpose", [x], perm=[0, 2, 1, 3])

    q = split_heads(_linear(b, h, pre + ".self_attn.q_proj", hidden, hidden))
    k = split_heads(_linear(b, h, pre + ".self_attn.k_proj", hidden, hidden))
    v = split_heads(_linear(b, h, pre + ".self_attn.v_proj", hidden, hidden))
    scores = b.op("MatMul", [q, b.op("Transpose", [k], perm=[0, 1, 3, 2])])
    scores = b.op("Mul", [scores, b.const(1.0 / np.sqrt(head_dim), np.float32)])  # scale
    scores = b.op("Add", [scores, mask_add])
    probs = b.op("Softmax", [scores], axis=-1)
    ctx = b.op("Transpose", [b.op("MatMul", [probs, v])], perm=[0, 2, 1, 3])
    ctx = b.reshape_to(ctx, [bsz, slen, hidden])  # the pieces, not 0s, as paddle.shape(x)[0] gives them
    h = _layer_norm(b, b.op("Add", [h, _linear(b, ctx, pre + ".self_attn.out_proj", hidden, hidden)]),
                    pre + ".norm1", hidden)
    f = _linear(b, h, pre + ".linear1", hidden, ffn)
    erf = b.op("Erf", [b.op("Div", [f, b.const(np.sqrt(2.0), np.float32)])])
    f = b.op("Mul", [b.op("Mul", [f, b.const(0.5, np.float32)]), b.op("Add", [erf, b.const(1.0, np.float32)])])
    f = _linear(b, f, pre + ".linear2", ffn, hidden)
    return _layer_norm(b, b.op("Add", [h, f]), pre + ".norm2", hidden)


def _pool_branch(b, h, hidden, upto):
    """One If branch: mean over the first `upto` tokens (None: all), reshaped through a shape chain of its own."""
    sub = PaddleBuilder(opset=b.opset, seed=0, graph_name="then" if upto else "else")
    sub._used = b._used  # node names stay unique across the model
    sub.initializers = b.initializers  # constants live in the main graph (outer scope)
    x = h
    if upto is not None:
        x = sub.op("Slice", [x, sub.const([0]), sub.const([upto]), sub.const([1])])
    s = sub.shape32(x)
    bsz = sub.dim32(s, 0)
    pooled = sub.op("ReduceMean", [x], axes=[1], keepdims=0)
    out = sub.reshape_to(pooled, [bsz, hidden])
    name = "pooled_then" if upto else "pooled_else"
    sub.nodes.append(helper.make_node("Identity", [out], [name], name=sub._node_name("Identity")))
    graph = helper.make_graph(sub.nodes, sub.graph_name, [],
                              [helper.make_tensor_value_info(name, TensorProto.FLOAT, None)])
    return graph


def ernie(batch_symbolic=False, seed=0, opset=13, layers=1, hidden=256, heads=4, ffn=1024, seq=64,
          vocab=2000, max_positions=512, max_len=48, dynamic_seq=False):
    b = PaddleBuilder(opset=opset, seed=seed)
    s_dim = "seq_len" if dynamic_seq else seq
    ids = b.input("input_ids", TensorProto.INT64, dims(batch_symbolic, s_dim))
    mask = b.input("attention_mask", TensorProto.INT64, dims(batch_symbolic, s_dim))

    word = b.param("embeddings.word_embeddings.weight", b.randn((vocab, hidden), 0.02))
    pos_table = b.param("embeddings.position_embeddings.weight", b.randn((max_positions, hidden), 0.02))
    # position_ids = paddle.arange(seq_len).unsqueeze(0).expand_as(input_ids)
    s = b.shape32(ids)
    slen = b.op("Squeeze", [b.dim32(s, 1), b.const([0])])
    pos = b.op("Range", [b.const(0, np.int32), slen, b.const(1, np.int32)])
    pos = b.op("Cast", [b.op("Unsqueeze", [pos, b.const([0])])], to=TensorProto.INT64)
    pos = b.op("Expand", [pos, b.op("Shape", [ids])])
    h = b.op("Add", [b.op("Gather", [word, ids], axis=0), b.op("Gather", [pos_table, pos], axis=0)])
    h = _layer_norm(b, h, "embeddings.layer_norm", hidden)
    # attention mask: (1 - mask[:, None, None, :]) * -1e4, the ones made by fill_constant with a runtime shape
    m = b.op("Cast", [b.op("Unsqueeze", [mask, b.const([1, 2])])], to=TensorProto.FLOAT)
    ones = b.op("ConstantOfShape", [b.op("Shape", [m])],
                value=numpy_helper.from_array(np.array([1.0], dtype=np.float32)))
    mask_add = b.op("Mul", [b.op("Sub", [ones, m]), b.const(-1e4, np.float32)])
    for i in range(layers):
        with b.scope("encoder", "layers.%d" % i):
            h = _encoder_layer(b, h, mask_add, "encoder.layers.%d" % i, hidden, heads, ffn)
    # pooled = cond(seq_len > max_len, mean of the first max_len tokens, mean of all)
    longer = b.op("Greater", [slen, b.const(max_len, np.int32)])
    pooled = b.op("If", [longer], then_branch=_pool_branch(b, h, hidden, max_len),
                  else_branch=_pool_branch(b, h, hidden, None))
    # The branches read h by name, so the graph output is a copy of it (Paddle2ONNX's assign).
    b.output(b.op("Identity", [h]), "sequence_output", TensorProto.FLOAT, dims(batch_symbolic, s_dim, hidden))
    b.output(pooled, "pooled_output", TensorProto.FLOAT, dims(batch_symbolic, hidden))
    return b.model("ERNIE-style encoder as Paddle2ONNX writes it")
