#!/usr/bin/python3
"""Writes model.onnx: the small sample `make demo` compiles.

A convolution block and a classifier written the way PyTorch's exporter writes them: Constant nodes for small
values, a Shape -> Gather -> Unsqueeze -> Concat -> Reshape chain before the classifier, an inference Dropout
and an Identity, and a symbolic batch. Deterministic (seeded). Run with Debian's /usr/bin/python3.
"""
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

rng = np.random.default_rng(7)


def const(name, array):
    return helper.make_node("Constant", [], [name], name=f"/{name}/Constant",
                            value=numpy_helper.from_array(np.asarray(array), name=name))


def main():
    w = numpy_helper.from_array((rng.standard_normal((8, 3, 3, 3)) * 0.2).astype(np.float32), "conv.weight")
    b = numpy_helper.from_array(np.zeros(8, np.float32), "conv.bias")
    scale = numpy_helper.from_array(np.ones(8, np.float32), "bn.weight")
    bias = numpy_helper.from_array(np.zeros(8, np.float32), "bn.bias")
    mean = numpy_helper.from_array((rng.standard_normal(8) * 0.1).astype(np.float32), "bn.running_mean")
    var = numpy_helper.from_array((rng.random(8) + 0.5).astype(np.float32), "bn.running_var")
    fc_w = numpy_helper.from_array((rng.standard_normal((10, 8 * 16 * 16)) * 0.02).astype(np.float32), "fc.weight")
    fc_b = numpy_helper.from_array(np.zeros(10, np.float32), "fc.bias")
    nodes = [
        helper.make_node("Conv", ["input", "conv.weight", "conv.bias"], ["/conv/Conv_output_0"], name="/conv/Conv",
                         kernel_shape=[3, 3], pads=[1, 1, 1, 1], strides=[1, 1]),
        helper.make_node("BatchNormalization", ["/conv/Conv_output_0", "bn.weight", "bn.bias", "bn.running_mean",
                                                "bn.running_var"], ["/bn/BatchNormalization_output_0"],
                         name="/bn/BatchNormalization", epsilon=1e-5),
        helper.make_node("Relu", ["/bn/BatchNormalization_output_0"], ["/relu/Relu_output_0"], name="/relu/Relu"),
        helper.make_node("MaxPool", ["/relu/Relu_output_0"], ["/pool/MaxPool_output_0"], name="/pool/MaxPool",
                         kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Dropout", ["/pool/MaxPool_output_0"], ["/drop/Dropout_output_0"], name="/drop/Dropout"),
        helper.make_node("Identity", ["/drop/Dropout_output_0"], ["/Identity_output_0"], name="/Identity"),
        helper.make_node("Shape", ["/Identity_output_0"], ["/Shape_output_0"], name="/Shape"),
        const("/Constant_output_0", np.array(0, np.int64)),
        helper.make_node("Gather", ["/Shape_output_0", "/Constant_output_0"], ["/Gather_output_0"], name="/Gather",
                         axis=0),
        const("/Constant_1_output_0", np.array([0], np.int64)),
        helper.make_node("Unsqueeze", ["/Gather_output_0", "/Constant_1_output_0"], ["/Unsqueeze_output_0"],
                         name="/Unsqueeze"),
        const("/Constant_2_output_0", np.array([-1], np.int64)),
        helper.make_node("Concat", ["/Unsqueeze_output_0", "/Constant_2_output_0"], ["/Concat_output_0"],
                         name="/Concat", axis=0),
        helper.make_node("Reshape", ["/Identity_output_0", "/Concat_output_0"], ["/Reshape_output_0"],
                         name="/Reshape"),
        helper.make_node("Gemm", ["/Reshape_output_0", "fc.weight", "fc.bias"], ["logits"], name="/fc/Gemm",
                         alpha=1.0, beta=1.0, transB=1),
    ]
    graph = helper.make_graph(
        nodes, "sample_cnn",
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, ["batch", 3, 32, 32])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", 10])],
        initializer=[w, b, scale, bias, mean, var, fc_w, fc_b])
    model = helper.make_model(graph, producer_name="kiln-sample", opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.checker.check_model(model, full_check=True)
    onnx.save(model, __file__.rsplit("/", 1)[0] + "/model.onnx")


if __name__ == "__main__":
    main()
