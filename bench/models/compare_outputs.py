#!/usr/bin/python3
"""Compare two folders of outputs in ONNX's test-data layout (output_0.pb, output_1.pb, ... TensorProto files, as
`kiln run` and ../shared/tools/ort write them): prints `match` when both hold the same number of outputs (at least
one) with equal shapes and values within rtol and atol (numpy.allclose), else `MISMATCH`.

  compare_outputs.py EXPECTED_DIR ACTUAL_DIR [--rtol R] [--atol A]      (defaults 1e-5, 1e-5)
"""
import argparse
import glob

import numpy as np
import onnx
from onnx import numpy_helper


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("expected")
    ap.add_argument("actual")
    ap.add_argument("--rtol", type=float, default=1e-5)
    ap.add_argument("--atol", type=float, default=1e-5)
    args = ap.parse_args()
    a = sorted(glob.glob(args.expected + "/output_*.pb"))
    b = sorted(glob.glob(args.actual + "/output_*.pb"))
    ok = len(a) == len(b) and len(a) > 0
    for x, y in zip(a, b):
        t = numpy_helper.to_array(onnx.load_tensor(x))
        u = numpy_helper.to_array(onnx.load_tensor(y))
        ok = ok and t.shape == u.shape and np.allclose(t, u, rtol=args.rtol, atol=args.atol)
    print("match" if ok else "MISMATCH")


if __name__ == "__main__":
    main()
