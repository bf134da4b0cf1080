#!/usr/bin/python3
"""Deterministic generator of realistic ONNX models, written the way PyTorch's
ONNX exporter writes them (see README.md). Run with Debian's /usr/bin/python3
(python3-onnx, numpy).

  gen_models.py MODEL --out FILE.onnx [--batch static|symbolic] [--layers N] [--seed S] ...

MODEL: resnet50, mobilenetv2, bert, llama, ernie (Paddle2ONNX style), chain, foldchain.
"""

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import onnx  # noqa: E402

import chain as chain_mod  # noqa: E402
import cnn  # noqa: E402
import paddle  # noqa: E402
import transformer  # noqa: E402

MODELS = ("resnet50", "mobilenetv2", "bert", "llama", "ernie", "chain", "foldchain")
DEFAULT_OPSET = {"bert": 13, "ernie": 13}  # BERT keeps PyTorch's opset<17 LayerNorm decomposition


def build(model, batch="static", seed=0, layers=None, opset=None, hidden=None, heads=None,
          ffn=None, seq=None, vocab=None, nodes=None, dynamic_seq=False, pretransposed=False):
    """Return the ModelProto for `model` (the same arguments as the CLI)."""
    sym = batch == "symbolic"
    opset = opset or DEFAULT_OPSET.get(model, 17)
    if not 13 <= opset <= 17:
        raise ValueError("opset must be 13..17")
    if model in ("resnet50", "mobilenetv2"):
        fn = cnn.resnet50 if model == "resnet50" else cnn.mobilenetv2
        return fn(batch_symbolic=sym, seed=seed, opset=opset)
    if model in ("bert", "llama"):
        kw = dict(batch_symbolic=sym, seed=seed, opset=opset, layers=layers or 1,
                  dynamic_seq=dynamic_seq, pretransposed=pretransposed)
        for k, v in (("hidden", hidden), ("heads", heads), ("ffn", ffn), ("seq", seq), ("vocab", vocab)):
            if v is not None:
                kw[k] = v
        return (transformer.bert if model == "bert" else transformer.llama)(**kw)
    if model == "ernie":
        kw = dict(batch_symbolic=sym, seed=seed, opset=opset, layers=layers or 1, dynamic_seq=dynamic_seq)
        for k, v in (("hidden", hidden), ("heads", heads), ("ffn", ffn), ("seq", seq), ("vocab", vocab)):
            if v is not None:
                kw[k] = v
        return paddle.ernie(**kw)
    if model in ("chain", "foldchain"):
        return chain_mod.chain(batch_symbolic=sym, seed=seed, opset=opset,
                               nodes=nodes if nodes is not None else 100000, folded=model == "foldchain")
    raise ValueError("unknown model " + model)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("model", choices=MODELS)
    ap.add_argument("--out", required=True, help="output .onnx file")
    ap.add_argument("--batch", choices=("static", "symbolic"), default="static",
                    help="static: batch 1; symbolic: batch dimension named 'batch'")
    ap.add_argument("--seed", type=int, default=0, help="weights seed (default 0)")
    ap.add_argument("--layers", type=int, help="bert/llama: transformer blocks (default 1)")
    ap.add_argument("--opset", type=int, help="13..17 (default 17; bert 13)")
    ap.add_argument("--hidden", type=int, help="bert: 768, llama: 512")
    ap.add_argument("--heads", type=int, help="bert: hidden/64, llama: 8")
    ap.add_argument("--ffn", type=int, help="bert: 4*hidden; llama: 2/3*4*hidden rounded up to 32 (1376)")
    ap.add_argument("--seq", type=int, help="bert/llama sequence length (default 128)")
    ap.add_argument("--vocab", type=int, help="bert: 30522, llama: 8192")
    ap.add_argument("--dynamic-seq", action="store_true",
                    help="bert/llama: sequence dimension symbolic ('sequence') too")
    ap.add_argument("--pretransposed", action="store_true",
                    help="bert/llama: linear weights stored transposed (as do_constant_folding=True "
                         "writes them) instead of Transpose nodes")
    ap.add_argument("--nodes", type=int, help="chain, foldchain: exact node count (default 100000)")
    ap.add_argument("--check", action="store_true",
                    help="also run onnx.checker (full_check) and strict shape inference")
    a = ap.parse_args(argv)

    t0 = time.perf_counter()
    m = build(a.model, batch=a.batch, seed=a.seed, layers=a.layers, opset=a.opset, hidden=a.hidden,
              heads=a.heads, ffn=a.ffn, seq=a.seq, vocab=a.vocab, nodes=a.nodes,
              dynamic_seq=a.dynamic_seq, pretransposed=a.pretransposed)
    t1 = time.perf_counter()
    d = os.path.dirname(os.path.abspath(a.out))
    os.makedirs(d, exist_ok=True)
    data = m.SerializeToString()
    with open(a.out, "wb") as f:
        f.write(data)
    t2 = time.perf_counter()
    msg = "%s: %d nodes, %d initializers, %.1f MB, opset %d, built %.2fs, written %.2fs" % (
        a.out, len(m.graph.node), len(m.graph.initializer), len(data) / 1e6,
        m.opset_import[0].version, t1 - t0, t2 - t1)
    if a.check:
        onnx.checker.check_model(m, full_check=True)
        onnx.shape_inference.infer_shapes(m, check_type=True, strict_mode=True, data_prop=True)
        msg += ", checked %.2fs" % (time.perf_counter() - t2)
    print(msg)
    print("nodes: %d" % len(m.graph.node))


if __name__ == "__main__":
    main()
