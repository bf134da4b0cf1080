#!/usr/bin/python3
"""Write random inputs for a model's declared graph inputs, in ONNX's test-data
layout (input_0.pb, input_1.pb, ... TensorProto files in graph-input order).

  make_inputs.py MODEL.onnx --out-dir DIR [--seed S] [--dim batch=1 --dim sequence=128]

* float inputs: standard normal;
* integer inputs used as Gather indices into an initializer (token ids for an
  embedding): uniform in [0, rows of that table);
* integer inputs whose name contains "mask": ones, with the tail of each row
  after a random length (at least half the row) zeroed, like padding;
* other integer inputs: 0 or 1; bool inputs: random.
Symbolic dimensions take --dim values (default 1); unnamed unknown dims are 1.
"""

import argparse
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def _gather_bound(graph, name):
    inits = {t.name: t for t in graph.initializer}
    bound = None
    for n in graph.node:
        if n.op_type == "Gather" and len(n.input) > 1 and n.input[1] == name and n.input[0] in inits:
            axis = next((a.i for a in n.attribute if a.name == "axis"), 0)
            rows = inits[n.input[0]].dims[axis]
            bound = rows if bound is None else min(bound, rows)
    return bound


def make_inputs(model, seed=0, dim_values=None):
    """Return [(name, numpy array)] for the model's non-initializer inputs."""
    dim_values = dim_values or {}
    g = model.graph
    init_names = {t.name for t in g.initializer}
    rng = np.random.default_rng(seed)
    out = []
    for vi in g.input:
        if vi.name in init_names:
            continue
        tt = vi.type.tensor_type
        shape = []
        for d in tt.shape.dim:
            if d.HasField("dim_value"):
                shape.append(d.dim_value)
            else:
                shape.append(int(dim_values.get(d.dim_param, 1)))
        np_type = helper.tensor_dtype_to_np_dtype(tt.elem_type) if hasattr(
            helper, "tensor_dtype_to_np_dtype") else onnx.mapping.TENSOR_TYPE_TO_NP_TYPE[tt.elem_type]
        if tt.elem_type in (TensorProto.FLOAT, TensorProto.DOUBLE, TensorProto.FLOAT16):
            arr = rng.standard_normal(shape).astype(np_type)
        elif tt.elem_type == TensorProto.BOOL:
            arr = rng.integers(0, 2, size=shape).astype(np.bool_)
        else:
            bound = _gather_bound(g, vi.name)
            if bound is not None:
                arr = rng.integers(0, bound, size=shape).astype(np_type)
            elif "mask" in vi.name.lower() and len(shape) >= 1:
                arr = np.ones(shape, dtype=np_type)
                rows = arr.reshape(-1, shape[-1]) if shape[-1] else arr.reshape(-1, 1)
                for r in rows:
                    keep = rng.integers((len(r) + 1) // 2, len(r) + 1)
                    r[keep:] = 0
                arr = rows.reshape(shape)
            else:
                arr = rng.integers(0, 2, size=shape).astype(np_type)
        out.append((vi.name, arr))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("model")
    ap.add_argument("--out-dir", required=True)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--dim", action="append", default=[], metavar="NAME=VALUE",
                    help="value of a symbolic dimension (default 1)")
    a = ap.parse_args()
    dim_values = {}
    for d in a.dim:
        k, _, v = d.partition("=")
        dim_values[k] = int(v)
    model = onnx.load(a.model, load_external_data=False)
    os.makedirs(a.out_dir, exist_ok=True)
    for i, (name, arr) in enumerate(make_inputs(model, a.seed, dim_values)):
        path = os.path.join(a.out_dir, "input_%d.pb" % i)
        with open(path, "wb") as f:
            f.write(numpy_helper.from_array(arr, name=name).SerializeToString())
        print("%s: %s %s %s" % (path, name, arr.dtype, list(arr.shape)))


if __name__ == "__main__":
    main()
