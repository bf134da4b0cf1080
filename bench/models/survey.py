#!/usr/bin/python3
"""Generate every model in both batch variants, check each (onnx.checker
full_check, strict shape inference with data propagation), and, when ONNX
Runtime is installed (../shared/tools/ort/setup.sh), run it on random inputs
(outputs must be finite) and count the nodes of ORT's `basic` optimisation.

  survey.py --work DIR [--models resnet50,bert] [--batch 2] [--no-ort] [--chain-nodes N]

Prints one table row per model and variant: nodes, initializers, size,
generation seconds, check seconds, ORT basic nodes, output magnitudes.
"""

import argparse
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import numpy as np  # noqa: E402
import onnx  # noqa: E402
from onnx import numpy_helper  # noqa: E402

import gen_models  # noqa: E402
import make_inputs  # noqa: E402

ORT_JS = os.environ.get("KILN_ORT_JS", os.path.join(HERE, "..", "..", "..", "shared", "tools", "ort", "ort.js"))


def ort_available():
    if not os.path.exists(ORT_JS):
        return False
    r = subprocess.run(["node", ORT_JS, "help"], capture_output=True, text=True)
    return "run setup.sh first" not in (r.stderr + r.stdout)


def survey_one(model, batch, work, use_ort, batch_value, extra):
    base = os.path.join(work, "%s-%s" % (model, batch))
    path = base + ".onnx"
    t0 = time.perf_counter()
    m = gen_models.build(model, batch=batch, **extra)
    data = m.SerializeToString()
    with open(path, "wb") as f:
        f.write(data)
    gen_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    onnx.checker.check_model(m, full_check=True)
    onnx.shape_inference.infer_shapes(m, check_type=True, strict_mode=True, data_prop=True)
    check_s = time.perf_counter() - t0
    row = dict(model=model, batch=batch, nodes=len(m.graph.node), inits=len(m.graph.initializer),
               mb=len(data) / 1e6, gen_s=gen_s, check_s=check_s, ort_basic="-", outputs="-")
    if use_ort:
        ind, outd = base + ".in", base + ".out"
        os.makedirs(ind, exist_ok=True)
        for i, (name, arr) in enumerate(make_inputs.make_inputs(m, seed=0, dim_values={"batch": batch_value})):
            with open(os.path.join(ind, "input_%d.pb" % i), "wb") as f:
                f.write(numpy_helper.from_array(arr, name=name).SerializeToString())
        r = subprocess.run(["node", ORT_JS, "run", path, "--inputs-dir", ind, "--output-dir", outd,
                            "--threads", "1"], capture_output=True, text=True)
        if r.returncode:
            raise RuntimeError("ORT run failed on %s:\n%s" % (path, r.stderr[-2000:]))
        stats = []
        for i, o in enumerate(m.graph.output):
            t = onnx.TensorProto()
            with open(os.path.join(outd, "output_%d.pb" % i), "rb") as f:
                t.ParseFromString(f.read())
            a = numpy_helper.to_array(t)
            if not np.all(np.isfinite(a)):
                raise RuntimeError("%s: output %s is not finite" % (path, o.name))
            stats.append("%s%s max|x| %.3g" % (o.name, list(a.shape), float(np.abs(a).max())))
        row["outputs"] = "; ".join(stats)
        opt = base + ".ort-basic.onnx"
        r = subprocess.run(["node", ORT_JS, "optimize", path, opt, "--level", "basic"],
                           capture_output=True, text=True)
        if r.returncode:
            raise RuntimeError("ORT optimize failed on %s:\n%s" % (path, r.stderr[-2000:]))
        row["ort_basic"] = len(onnx.load(opt, load_external_data=False).graph.node)
    return row


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--work", required=True, help="folder for the models, inputs and outputs")
    ap.add_argument("--models", default="resnet50,mobilenetv2,bert,llama,chain")
    ap.add_argument("--variants", default="static,symbolic")
    ap.add_argument("--batch", type=int, default=2, help="value of 'batch' when running symbolic models")
    ap.add_argument("--chain-nodes", type=int, default=100000)
    ap.add_argument("--layers", type=int, help="bert/llama layers (default 1)")
    ap.add_argument("--no-ort", action="store_true")
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    use_ort = not a.no_ort and ort_available()
    if not a.no_ort and not use_ort:
        print("ONNX Runtime not installed (../shared/tools/ort/setup.sh): skipping runs", file=sys.stderr)
    print("%-12s %-9s %7s %6s %8s %6s %6s %9s  %s" % ("model", "batch", "nodes", "inits", "MB", "gen s",
                                                    "chk s", "ORT basic", "outputs"))
    for model in a.models.split(","):
        for batch in a.variants.split(","):
            extra = {}
            if model == "chain":
                extra["nodes"] = a.chain_nodes
            if model in ("bert", "llama") and a.layers:
                extra["layers"] = a.layers
            r = survey_one(model, batch, a.work, use_ort, a.batch, extra)
            print("%-12s %-9s %7d %6d %8.1f %6.2f %6.2f %9s  %s" % (
                r["model"], r["batch"], r["nodes"], r["inits"], r["mb"], r["gen_s"], r["check_s"],
                r["ort_basic"], r["outputs"]), flush=True)


if __name__ == "__main__":
    main()
