#!/usr/bin/python3
"""Test models whose outputs are computed by ONNX model-local functions, with inputs and expected outputs.

  gen_function_models.py OUT_DIR [--only NAME]... [--list]

Writes, for every model NAME:
  OUT_DIR/NAME/model.onnx                      IR 8, opset 17, checked with onnx.checker (full_check)
  OUT_DIR/NAME/test_data_set_K/input_I.pb      TensorProto files in graph-input order (the layout `kiln run`
  OUT_DIR/NAME/test_data_set_K/output_I.pb     and ONNX's own test data use), expected outputs in output order
and OUT_DIR/manifest.json: {NAME: {"datasets": K, "kiln_runs": bool, "why": "...", ["o2_functions": [...]],
["full_check_inlined": false]}} ("why" says what the model covers or, where kiln_runs is false, why Kiln's
executor cannot run it; o2_functions, where given, lists the functions an O2 compile must leave, as domain.name;
full_check_inlined false: the model with every call inlined passes only the plain checker, see
NO_FULL_CHECK_INLINED). With --only the manifest is updated.

The expected outputs are computed here with numpy, by hand for each model (float64, rounded to float32 at the
end), never by a runtime. ONNX 1.12 has no attribute defaults for functions, so every call sets every attribute
its function declares, and every function imports every domain its body uses.

Models and what they cover:
  nested_calls        a function calling a function calling a function; one function also called from the main
                      graph; body value names that are also main-graph names
  attribute_refs      ref_attr_name of kind float, int, ints, string and tensor; two calls of one function with
                      different attribute values (and output shapes); a nested call passing its caller's attribute
                      on, next to literal attributes
  two_domains         functions of two custom domains, one calling the other's; two functions named alike in
                      different domains; an initializer passed to a call
  ml_domain           a function whose body uses ai.onnx.ml ops (Normalizer, Binarizer, an attribute reference
                      into an ML op); Kiln's executor has no ai.onnx.ml kernels, so it is not run by Kiln
  if_branch           calls inside both branches of an If, reading outer-scope values; a function whose body holds
                      an If whose branches use an attribute reference and call another function; two data sets
                      (condition true and false)
  loop_body           a call inside a Loop body reading an outer-scope value and the iteration number, carried
                      state and a scan output; a function whose body holds a Loop whose body calls another
                      function with the outer function's attribute and reads its input; two data sets (different
                      trip counts)
  constants_outputs   Constant nodes in a body (value and value_float); a three-output function called with the
                      middle output omitted (""), and with all named and one unused (a call naming fewer outputs
                      than its function has fails ONNX 1.12's shape inference: "Output 2 is out of bounds")
  o2_calls            what O2 does around calls: an Identity feeding a call, a dead call, a call on constants,
                      an If with a constant condition whose branches call functions (one only from the dead
                      branch), the Shape of a call's output; O2 must leave only the functions still called
  passthrough         a function that returns one of its inputs as an output (ONNX's checker refuses a function
                      that lists one output twice); ONNX Runtime 1.30 refuses to load it (a function input that no
                      body node reads, microsoft/onnxruntime#15046), Kiln runs it
"""

import argparse
import json
import os
import shutil

import numpy as np
import onnx
from onnx import AttributeProto, TensorProto, helper, numpy_helper

IR_VERSION = 8
OPSET = 17
F32 = TensorProto.FLOAT


# ---- building blocks

def ref(name, ref_name, kind):
    """An attribute of a function body node that takes the call's attribute `ref_name`."""
    a = AttributeProto()
    a.name = name
    a.ref_attr_name = ref_name
    a.type = kind
    return a


def node(op, inputs, outputs, domain="", name=None, refs=(), **attrs):
    n = helper.make_node(op, inputs, outputs, name=name, domain=domain or None, **attrs)
    n.attribute.extend(refs)
    return n


def function(domain, name, inputs, outputs, nodes, opsets, attributes=()):
    return helper.make_function(domain, name, inputs, outputs, nodes,
                                [helper.make_opsetid(d, v) for d, v in opsets], list(attributes))


def f32(values):
    return np.asarray(values, dtype=np.float32)


def const_tensor(values, dtype=np.float32, name="value"):
    return numpy_helper.from_array(np.asarray(values, dtype=dtype), name=name)


def tensor_info(name, elem, shape):
    return helper.make_tensor_value_info(name, elem, shape)


def model(graph, functions, opsets):
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid(d, v) for d, v in opsets],
                          ir_version=IR_VERSION, functions=functions, producer_name="gen_function_models")
    return m


def sigmoid(v):
    return 1.0 / (1.0 + np.exp(-v))


def leaky(v, alpha):
    return np.where(v >= 0, v, alpha * v)


def softmax(v, axis):
    e = np.exp(v - v.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def as_f32(*arrays):
    return [np.asarray(a, dtype=np.float32) for a in arrays]


# ---- the models: each returns (ModelProto, [(inputs, expected outputs)], manifest entry)

def nested_calls(rng):
    # Declared callers first: an importer must not need callees before callers.
    outer = function("lib", "Outer", ["a", "b"], ["o"], [
        node("Middle", ["a", "b"], ["m"], domain="lib"),
        node("Inner", ["m"], ["i"], domain="lib"),
        node("Add", ["m", "i"], ["o"]),
    ], [("", OPSET), ("lib", 1)])
    middle = function("lib", "Middle", ["a", "b"], ["m"], [
        node("MatMul", ["a", "b"], ["p"]),
        node("Inner", ["p"], ["m"], domain="lib"),
    ], [("", OPSET), ("lib", 1)])
    # SiLU; its value names x and y are also the main graph's.
    inner = function("lib", "Inner", ["x"], ["y"], [
        node("Sigmoid", ["x"], ["s"]),
        node("Mul", ["x", "s"], ["y"]),
    ], [("", OPSET)])
    graph = helper.make_graph([
        node("Outer", ["x", "w"], ["y"], domain="lib", name="outer_call"),
        node("Inner", ["x"], ["z"], domain="lib", name="inner_call"),
    ], "nested_calls", [tensor_info("x", F32, [2, 3]), tensor_info("w", F32, [3, 4])],
        [tensor_info("y", F32, [2, 4]), tensor_info("z", F32, [2, 3])])
    m = model(graph, [outer, middle, inner], [("", OPSET), ("lib", 1)])

    x = rng.standard_normal((2, 3)).astype(np.float32)
    w = rng.standard_normal((3, 4)).astype(np.float32)
    silu = lambda v: v * sigmoid(v)
    mid = silu(x.astype(np.float64) @ w.astype(np.float64))
    y = mid + silu(mid)
    z = silu(x.astype(np.float64))
    return m, [([x, w], as_f32(y, z))], "three levels of calls; Inner called from a body and from the main graph"


def attribute_refs(rng):
    act = function("lib", "Act", ["x"], ["p"], [
        node("Transpose", ["x"], ["t"], refs=[ref("perm", "perm", AttributeProto.INTS)]),
        node("LeakyRelu", ["t"], ["l"], refs=[ref("alpha", "alpha", AttributeProto.FLOAT)]),
        node("Constant", [], ["c"], refs=[ref("value", "k", AttributeProto.TENSOR)]),
        node("Mul", ["l", "c"], ["s"]),
        node("Softmax", ["s"], ["o"], refs=[ref("axis", "axis", AttributeProto.INT)]),
        node("Constant", [], ["pads"], value=const_tensor([0, 1, 0, 1], np.int64)),
        node("Pad", ["o", "pads"], ["p"], refs=[ref("mode", "mode", AttributeProto.STRING)]),
    ], [("", OPSET)], attributes=["alpha", "perm", "axis", "mode", "k"])
    wrap_k = f32([1.5, -0.5, 2.0])
    wrap = function("lib", "Wrap", ["x"], ["r"], [
        # alpha comes from Wrap's caller; the other attributes are literals of this call.
        node("Act", ["x"], ["q"], domain="lib", refs=[ref("alpha", "alpha", AttributeProto.FLOAT)],
             perm=[1, 0], axis=1, mode="edge", k=const_tensor(wrap_k, name="")),
        node("Constant", [], ["g"], refs=[ref("value_float", "gain", AttributeProto.FLOAT)]),
        node("Mul", ["q", "g"], ["r"]),
    ], [("", OPSET), ("lib", 1)], attributes=["gain", "alpha"])
    k1, k2 = f32([0.5, 1.0, -2.0]), f32([1.0, 2.0, 3.0, -1.0])
    graph = helper.make_graph([
        node("Act", ["x"], ["y1"], domain="lib", name="act_1", alpha=0.1, perm=[1, 0], axis=0, mode="reflect",
             k=const_tensor(k1, name="")),
        node("Act", ["x"], ["y2"], domain="lib", name="act_2", alpha=0.3, perm=[0, 1], axis=1, mode="edge",
             k=const_tensor(k2, name="")),
        node("Wrap", ["x"], ["y3"], domain="lib", name="wrap", gain=2.0, alpha=0.05),
    ], "attribute_refs", [tensor_info("x", F32, [3, 4])],
        [tensor_info("y1", F32, [4, 5]), tensor_info("y2", F32, [3, 6]), tensor_info("y3", F32, [4, 5])])
    m = model(graph, [act, wrap], [("", OPSET), ("lib", 1)])

    x = rng.standard_normal((3, 4)).astype(np.float32)
    xd = x.astype(np.float64)

    def act_ref(alpha, perm, axis, mode, k):
        s = leaky(np.transpose(xd, perm), alpha) * k.astype(np.float64)
        return np.pad(softmax(s, axis), ((0, 0), (1, 1)), mode=mode)

    y1 = act_ref(0.1, (1, 0), 0, "reflect", k1)
    y2 = act_ref(0.3, (0, 1), 1, "edge", k2)
    y3 = act_ref(0.05, (1, 0), 1, "edge", wrap_k) * 2.0
    return m, [([x], as_f32(y1, y2, y3))], "references of kind float, int, ints, string, tensor; per-call values"


def two_domains(rng):
    l2 = function("lib.b", "Norm", ["x"], ["y"], [
        node("Mul", ["x", "x"], ["sq"]),
        node("Constant", [], ["axes"], value=const_tensor([1], np.int64)),
        node("ReduceSum", ["sq", "axes"], ["s"], keepdims=1),
        node("Constant", [], ["eps"], value_float=1e-6),
        node("Add", ["s", "eps"], ["se"]),
        node("Sqrt", ["se"], ["r"]),
        node("Div", ["x", "r"], ["y"]),
    ], [("", OPSET)])
    center = function("lib.a", "Norm", ["x"], ["y"], [
        node("ReduceMean", ["x"], ["m"], axes=[1], keepdims=1),
        node("Sub", ["x", "m"], ["y"]),
    ], [("", OPSET)])
    score = function("lib.a", "Score", ["x", "w"], ["s"], [
        node("Norm", ["x"], ["c"], domain="lib.a"),
        node("Norm", ["c"], ["n"], domain="lib.b"),
        node("MatMul", ["n", "w"], ["mm"]),
        node("Tanh", ["mm"], ["s"]),
    ], [("", OPSET), ("lib.a", 1), ("lib.b", 1)])
    w = rng.standard_normal((4, 3)).astype(np.float32)
    graph = helper.make_graph([
        node("Score", ["x", "w"], ["s"], domain="lib.a", name="score"),
        node("Norm", ["x"], ["n"], domain="lib.b", name="l2"),
    ], "two_domains", [tensor_info("x", F32, [2, 4])],
        [tensor_info("s", F32, [2, 3]), tensor_info("n", F32, [2, 4])],
        initializer=[numpy_helper.from_array(w, "w")])
    m = model(graph, [l2, center, score], [("", OPSET), ("lib.a", 1), ("lib.b", 1)])

    x = rng.standard_normal((2, 4)).astype(np.float32)
    xd = x.astype(np.float64)
    l2n = lambda v: v / np.sqrt((v * v).sum(axis=1, keepdims=True) + 1e-6)
    c = xd - xd.mean(axis=1, keepdims=True)
    s = np.tanh(l2n(c) @ w.astype(np.float64))
    return m, [([x], as_f32(s, l2n(xd)))], "lib.a calls lib.b; lib.a.Norm and lib.b.Norm are different functions"


def ml_domain(rng):
    prep = function("lib", "Prep", ["x"], ["y", "b"], [
        node("Normalizer", ["x"], ["n"], domain="ai.onnx.ml", norm="L2"),
        node("Binarizer", ["n"], ["b"], domain="ai.onnx.ml",
             refs=[ref("threshold", "threshold", AttributeProto.FLOAT)]),
        node("Add", ["n", "b"], ["y"]),
    ], [("", OPSET), ("ai.onnx.ml", 3)], attributes=["threshold"])
    graph = helper.make_graph([
        node("Prep", ["x"], ["y", "b"], domain="lib", name="prep", threshold=0.3),
    ], "ml_domain", [tensor_info("x", F32, [3, 4])], [tensor_info("y", F32, [3, 4]), tensor_info("b", F32, [3, 4])])
    m = model(graph, [prep], [("", OPSET), ("ai.onnx.ml", 3), ("lib", 1)])

    x = rng.standard_normal((3, 4)).astype(np.float32)
    xd = x.astype(np.float64)
    n = xd / np.sqrt((xd * xd).sum(axis=1, keepdims=True))
    b = (n > 0.3).astype(np.float64)
    return m, [([x], as_f32(n + b, b))], "Kiln has no ai.onnx.ml kernels (Normalizer, Binarizer)"


def if_branch(rng):
    leaky_sub = function("lib", "Leaky", ["a", "b"], ["y"], [
        node("Sub", ["a", "b"], ["s"]),
        node("LeakyRelu", ["s"], ["y"], refs=[ref("alpha", "alpha", AttributeProto.FLOAT)]),
    ], [("", OPSET)], attributes=["alpha"])
    other = function("lib", "Other", ["x"], ["y"], [node("Tanh", ["x"], ["y"])], [("", OPSET)])
    then_in = helper.make_graph([
        node("LeakyRelu", ["x"], ["t"], refs=[ref("alpha", "alpha", AttributeProto.FLOAT)]),
    ], "select_then", [], [helper.make_value_info("t", helper.make_tensor_type_proto(F32, None))])
    else_in = helper.make_graph([
        node("Other", ["x"], ["e"], domain="lib"),
    ], "select_else", [], [helper.make_value_info("e", helper.make_tensor_type_proto(F32, None))])
    select = function("lib", "Select", ["c", "x"], ["y"], [
        node("If", ["c"], ["y"], then_branch=then_in, else_branch=else_in),
    ], [("", OPSET), ("lib", 1)], attributes=["alpha"])

    then_main = helper.make_graph([
        node("Leaky", ["k", "x"], ["a"], domain="lib", name="then_call", alpha=0.2),
    ], "then", [], [tensor_info("a", F32, [2, 3])])
    else_main = helper.make_graph([
        node("Leaky", ["x", "k"], ["b1"], domain="lib", name="else_call", alpha=0.7),
        node("Other", ["b1"], ["b"], domain="lib", name="else_other"),
    ], "else", [], [tensor_info("b", F32, [2, 3])])
    graph = helper.make_graph([
        node("Neg", ["x"], ["k"], name="neg"),
        node("If", ["c"], ["y"], name="branch", then_branch=then_main, else_branch=else_main),
        node("Select", ["c", "x"], ["z"], domain="lib", name="select", alpha=0.5),
    ], "if_branch", [tensor_info("c", TensorProto.BOOL, []), tensor_info("x", F32, [2, 3])],
        [tensor_info("y", F32, [2, 3]), tensor_info("z", F32, [2, 3])])
    m = model(graph, [leaky_sub, other, select], [("", OPSET), ("lib", 1)])

    x = rng.standard_normal((2, 3)).astype(np.float32)
    xd = x.astype(np.float64)
    sets = []
    for c in (True, False):
        if c:
            y, z = leaky(-xd - xd, 0.2), leaky(xd, 0.5)
        else:
            y, z = np.tanh(leaky(xd + xd, 0.7)), np.tanh(xd)
        sets.append(([np.array(c, dtype=np.bool_), x], as_f32(y, z)))
    return m, sets, "calls in If branches (outer-scope reads); an If with a reference and a call inside a body"


def loop_body(rng):
    step = function("lib", "Step", ["s", "x", "i"], ["s_next", "emit"], [
        node("Cast", ["i"], ["f"], to=F32),
        node("Mul", ["x", "f"], ["xf"]),
        node("Constant", [], ["beta"], refs=[ref("value_float", "beta", AttributeProto.FLOAT)]),
        node("Mul", ["s", "beta"], ["sb"]),
        node("Add", ["sb", "xf"], ["s_next"]),
        node("Sub", ["s_next", "x"], ["d"]),
        node("Relu", ["d"], ["emit"]),
    ], [("", OPSET)], attributes=["beta"])
    body = helper.make_graph([
        node("Identity", ["cond"], ["cond_out"], name="keep_going"),
        node("Step", ["s", "x", "i"], ["s_out", "emit"], domain="lib", name="step", beta=0.5),
    ], "loop_body", [tensor_info("i", TensorProto.INT64, []), tensor_info("cond", TensorProto.BOOL, []),
                     tensor_info("s", F32, [3])],
        [tensor_info("cond_out", TensorProto.BOOL, []), tensor_info("s_out", F32, [3]),
         tensor_info("emit", F32, [3])])
    # A Loop inside a function body: its body calls Step with Repeat's own attribute and reads Repeat's input x.
    untyped = lambda n: helper.make_value_info(n, helper.make_tensor_type_proto(F32, None))
    inner = helper.make_graph([
        node("Identity", ["cond"], ["cond_out"]),
        node("Step", ["s", "x", "i"], ["s_out", "unused_emit"], domain="lib",
             refs=[ref("beta", "beta", AttributeProto.FLOAT)]),
    ], "repeat_body", [tensor_info("i", TensorProto.INT64, []), tensor_info("cond", TensorProto.BOOL, []), untyped("s")],
        [helper.make_value_info("cond_out", helper.make_tensor_type_proto(TensorProto.BOOL, [])), untyped("s_out")])
    repeat = function("lib", "Repeat", ["n", "x", "s0"], ["s_final"], [
        node("Loop", ["n", "", "s0"], ["s_final"], body=inner),
    ], [("", OPSET), ("lib", 1)], attributes=["beta"])
    s0 = f32([1.0, -1.0, 0.5])
    graph = helper.make_graph([
        node("Loop", ["n", "", "s0"], ["s_final", "emits"], name="loop", body=body),
        node("Repeat", ["n", "x", "s0"], ["r"], domain="lib", name="repeat", beta=0.25),
    ], "loop_body", [tensor_info("n", TensorProto.INT64, []), tensor_info("x", F32, [3])],
        [tensor_info("s_final", F32, [3]), tensor_info("emits", F32, ["N", 3]), tensor_info("r", F32, [3])],
        initializer=[numpy_helper.from_array(s0, "s0")])
    m = model(graph, [step, repeat], [("", OPSET), ("lib", 1)])

    x = rng.standard_normal(3).astype(np.float32)
    xd = x.astype(np.float64)
    sets = []
    for n in (3, 5):
        s, r, emits = s0.astype(np.float64), s0.astype(np.float64), []
        for i in range(n):
            s = s * 0.5 + xd * i
            r = r * 0.25 + xd * i
            emits.append(np.maximum(s - xd, 0.0))
        sets.append(([np.array(n, dtype=np.int64), x], as_f32(s, np.stack(emits), r)))
    return m, sets, "calls in a Loop body (outer-scope read, state, scan output); a Loop inside a function body"


def constants_outputs(rng):
    scale_shift = function("lib", "ScaleShift", ["x"], ["y"], [
        node("Constant", [], ["c"], value=const_tensor([0.5, -1.0, 2.0])),
        node("Constant", [], ["d"], value_float=0.25),
        node("Mul", ["x", "c"], ["m"]),
        node("Add", ["m", "d"], ["y"]),
    ], [("", OPSET)])
    stats = function("lib", "Stats", ["x"], ["mean", "max", "min"], [
        node("ReduceMean", ["x"], ["mean"], axes=[1], keepdims=0),
        node("ReduceMax", ["x"], ["max"], axes=[1], keepdims=0),
        node("ReduceMin", ["x"], ["min"], axes=[1], keepdims=0),
    ], [("", OPSET)])
    graph = helper.make_graph([
        node("ScaleShift", ["x"], ["a"], domain="lib", name="scale_shift"),
        node("Stats", ["a"], ["m1", "", "n1"], domain="lib", name="stats_middle_omitted"),
        node("Stats", ["x"], ["m3", "x3", "n3_unused"], domain="lib", name="stats_one_unused"),
        node("Add", ["m3", "x3"], ["s3"], name="sum"),
    ], "constants_outputs", [tensor_info("x", F32, [2, 3])],
        [tensor_info(n, F32, [2, 3] if n == "a" else [2]) for n in ("a", "m1", "n1", "s3")])
    m = model(graph, [scale_shift, stats], [("", OPSET), ("lib", 1)])

    x = rng.standard_normal((2, 3)).astype(np.float32)
    xd = x.astype(np.float64)
    a = xd * np.array([0.5, -1.0, 2.0]) + 0.25
    a32 = a.astype(np.float32).astype(np.float64)  # Stats reads the float32 a
    outs = [a, a32.mean(axis=1), a32.min(axis=1), xd.mean(axis=1) + xd.max(axis=1)]
    return m, [([x], as_f32(*outs))], "Constant nodes in a body; an output omitted and one unused"


def passthrough(rng):
    pas = function("lib", "Pass", ["x", "y"], ["x", "d", "d2"], [
        node("Sub", ["x", "y"], ["d"]),
        node("Identity", ["d"], ["d2"]),
    ], [("", OPSET)])
    graph = helper.make_graph([
        node("Pass", ["p", "q"], ["p_out", "d", "d2"], domain="lib", name="pass"),
        node("Add", ["d", "d2"], ["s"], name="add"),
    ], "passthrough", [tensor_info("p", F32, [3]), tensor_info("q", F32, [3])],
        [tensor_info("p_out", F32, [3]), tensor_info("d2", F32, [3]), tensor_info("s", F32, [3])])
    m = model(graph, [pas], [("", OPSET), ("lib", 1)])

    p = rng.standard_normal(3).astype(np.float32)
    q = rng.standard_normal(3).astype(np.float32)
    d = p.astype(np.float64) - q
    return m, [([p, q], as_f32(p, d, 2.0 * d))], "a function output that is one of its inputs"


def o2_calls(rng):
    fn = function("lib", "F", ["v"], ["w"], [
        node("LeakyRelu", ["v"], ["l"], refs=[ref("alpha", "alpha", AttributeProto.FLOAT)]),
        node("Mul", ["l", "v"], ["w"]),
    ], [("", OPSET)], attributes=["alpha"])
    g = function("lib", "G", ["v"], ["w"], [node("Neg", ["v"], ["w"])], [("", OPSET)])
    h = function("lib", "H", ["v"], ["w"], [node("Abs", ["v"], ["w"])], [("", OPSET)])
    then_b = helper.make_graph([node("H", ["x"], ["t"], domain="lib", name="then_h")], "then", [],
                               [tensor_info("t", F32, [2, 3])])
    else_b = helper.make_graph([node("G", ["x"], ["e"], domain="lib", name="else_g")], "else", [],
                               [tensor_info("e", F32, [2, 3])])
    kc = rng.standard_normal((2, 3)).astype(np.float32)
    graph = helper.make_graph([
        node("Identity", ["x"], ["i"], name="identity"),
        node("F", ["i"], ["y1"], domain="lib", name="f_of_x", alpha=0.1),
        node("G", ["x"], ["dead"], domain="lib", name="dead_call"),
        node("F", ["kc"], ["k"], domain="lib", name="f_of_constant", alpha=0.2),
        node("If", ["cond"], ["br"], name="constant_if", then_branch=then_b, else_branch=else_b),
        node("Add", ["br", "k"], ["y2"], name="add"),
        node("Shape", ["y1"], ["sh"], name="shape"),
        node("Reshape", ["y2", "sh"], ["y3"], name="reshape"),
    ], "o2_calls", [tensor_info("x", F32, [2, 3])], [tensor_info("y1", F32, [2, 3]), tensor_info("y3", F32, [2, 3])],
        initializer=[numpy_helper.from_array(kc, "kc"), numpy_helper.from_array(np.array(True), "cond")])
    m = model(graph, [fn, g, h], [("", OPSET), ("lib", 1)])

    x = rng.standard_normal((2, 3)).astype(np.float32)
    xd, kd = x.astype(np.float64), kc.astype(np.float64)
    y1 = leaky(xd, 0.1) * xd
    y3 = np.abs(xd) + leaky(kd, 0.2) * kd
    return m, [([x], as_f32(y1, y3))], "what O2 does around calls: Identity, a dead call, a constant If holding a call"


MODELS = {
    "nested_calls": nested_calls,
    "attribute_refs": attribute_refs,
    "two_domains": two_domains,
    "ml_domain": ml_domain,
    "if_branch": if_branch,
    "loop_body": loop_body,
    "constants_outputs": constants_outputs,
    "passthrough": passthrough,
    "o2_calls": o2_calls,
}
KILN_CANNOT_RUN = {"ml_domain"}
# The functions (domain.name) an O2 compile must leave, where that is part of what the model tests.
O2_FUNCTIONS = {"o2_calls": ["lib.F", "lib.H"]}
# Models whose inlined form (no functions left) fails onnx.checker's full_check for a reason of ONNX 1.12's own:
# it has no type inference for Normalizer, so outside a function strict inference refuses the Add that reads it.
NO_FULL_CHECK_INLINED = {"ml_domain"}


def write(out_dir, name, builder, seed):
    m, sets, why = builder(np.random.default_rng(seed))
    onnx.checker.check_model(m, full_check=True)
    d = os.path.join(out_dir, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    onnx.save(m, os.path.join(d, "model.onnx"))
    inputs = [vi.name for vi in m.graph.input if vi.name not in {t.name for t in m.graph.initializer}]
    outputs = [vi.name for vi in m.graph.output]
    for k, (ins, outs) in enumerate(sets):
        assert len(ins) == len(inputs) and len(outs) == len(outputs), name
        s = os.path.join(d, "test_data_set_%d" % k)
        os.makedirs(s)
        for i, (n, arr) in enumerate(zip(inputs, ins)):
            with open(os.path.join(s, "input_%d.pb" % i), "wb") as f:
                f.write(numpy_helper.from_array(np.asarray(arr), n).SerializeToString())
        for i, (n, arr) in enumerate(zip(outputs, outs)):
            with open(os.path.join(s, "output_%d.pb" % i), "wb") as f:
                f.write(numpy_helper.from_array(np.asarray(arr), n).SerializeToString())
    entry = {"datasets": len(sets), "kiln_runs": name not in KILN_CANNOT_RUN, "why": why}
    if name in O2_FUNCTIONS:
        entry["o2_functions"] = O2_FUNCTIONS[name]
    if name in NO_FULL_CHECK_INLINED:
        entry["full_check_inlined"] = False
    return entry


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out_dir", nargs="?")
    ap.add_argument("--only", action="append", default=[], help="write only this model (repeatable)")
    ap.add_argument("--list", action="store_true", help="print the model names, one a line, and exit")
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    if a.list:
        print("\n".join(MODELS))
        return
    if not a.out_dir:
        ap.error("OUT_DIR is required")
    unknown = [n for n in a.only if n not in MODELS]
    if unknown:
        ap.error("unknown model(s): %s (known: %s)" % (", ".join(unknown), ", ".join(MODELS)))
    os.makedirs(a.out_dir, exist_ok=True)
    manifest_path = os.path.join(a.out_dir, "manifest.json")
    manifest = {}
    if a.only and os.path.exists(manifest_path):
        with open(manifest_path) as f:
            manifest = json.load(f)
    for i, (name, builder) in enumerate(MODELS.items()):
        if a.only and name not in a.only:
            continue
        manifest[name] = write(a.out_dir, name, builder, a.seed + i)
        print("%s: %d data set(s)%s" % (name, manifest[name]["datasets"],
                                         "" if manifest[name]["kiln_runs"] else " (not run by Kiln)"))
    with open(manifest_path, "w") as f:
        json.dump(manifest, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
