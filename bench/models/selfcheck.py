#!/usr/bin/python3
"""Checks that the generated transformers compute what they claim, with ONNX
Runtime as the executor (../shared/tools/ort/setup.sh first):

* BERT and LLaMA (small sizes, 2 layers) against a float64 numpy reference of
  HF's BertModel / LlamaForCausalLM, from the model's own initializers;
* BERT: tokens under attention_mask == 0 do not change any unmasked position;
* LLaMA: changing token t does not change logits before t (causal mask).

  selfcheck.py --work DIR        (exit status 1 on a failure)
"""

import argparse
import os
import subprocess
import sys
from math import erf

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import numpy as np  # noqa: E402
import onnx  # noqa: E402
from onnx import numpy_helper  # noqa: E402

import gen_models  # noqa: E402
from survey import ORT_JS  # noqa: E402

B, S, V = 2, 128, 1000


def ort_run(work, path, arrays, tag):
    ind, outd = os.path.join(work, tag + ".in"), os.path.join(work, tag + ".out")
    os.makedirs(ind, exist_ok=True)
    for i, (name, a) in enumerate(arrays):
        with open(os.path.join(ind, "input_%d.pb" % i), "wb") as f:
            f.write(numpy_helper.from_array(a, name=name).SerializeToString())
    subprocess.run(["node", ORT_JS, "run", path, "--inputs-dir", ind, "--output-dir", outd,
                    "--threads", "1"], check=True, capture_output=True)
    outs, i = [], 0
    while os.path.exists(os.path.join(outd, "output_%d.pb" % i)):
        t = onnx.TensorProto()
        with open(os.path.join(outd, "output_%d.pb" % i), "rb") as f:
            t.ParseFromString(f.read())
        outs.append(numpy_helper.to_array(t))
        i += 1
    return outs


def weights(m):
    return {t.name: (numpy_helper.to_array(t).astype(np.float64) if t.data_type == onnx.TensorProto.FLOAT
                     else numpy_helper.to_array(t)) for t in m.graph.initializer}


def softmax(s):
    s = np.exp(s - s.max(-1, keepdims=True))
    return s / s.sum(-1, keepdims=True)


def bert_ref(W, ids, mask, hidden, heads, layers):
    hd = hidden // heads
    verf = np.vectorize(erf)

    def ln(x, p):
        mu = x.mean(-1, keepdims=True)
        v = ((x - mu) ** 2).mean(-1, keepdims=True)
        return (x - mu) / np.sqrt(v + 1e-12) * W[p + ".weight"] + W[p + ".bias"]

    def lin(x, p):
        return x @ W[p + ".weight"].T + W[p + ".bias"]

    def split(t):
        return t.reshape(B, S, heads, hd).transpose(0, 2, 1, 3)

    x = (W["embeddings.word_embeddings.weight"][ids] + W["embeddings.token_type_embeddings.weight"][0]
         + W["embeddings.position_embeddings.weight"][:S])
    x = ln(x, "embeddings.LayerNorm")
    am = (1 - mask[:, None, None, :]) * -1e30
    for i in range(layers):
        p = "encoder.layer.%d." % i
        q, k, v = (split(lin(x, p + "attention.self." + n)) for n in ("query", "key", "value"))
        c = (softmax(q @ k.transpose(0, 1, 3, 2) / np.sqrt(hd) + am) @ v).transpose(0, 2, 1, 3).reshape(B, S, hidden)
        x = ln(lin(c, p + "attention.output.dense") + x, p + "attention.output.LayerNorm")
        g = lin(x, p + "intermediate.dense")
        g = 0.5 * g * (1 + verf(g / np.sqrt(2)))
        x = ln(lin(g, p + "output.dense") + x, p + "output.LayerNorm")
    return x, np.tanh(lin(x[:, 0], "pooler.dense"))


def llama_ref(W, ids, hidden, heads, layers):
    hd = hidden // heads

    def rms(x, w):
        return w * (x / np.sqrt((x * x).mean(-1, keepdims=True) + 1e-6))

    def rot(x):
        h = x.shape[-1] // 2
        return np.concatenate([-x[..., h:], x[..., :h]], -1)

    def proj(p, t):
        return t @ W[p + ".weight"].T

    def split(t):
        return t.reshape(B, S, heads, hd).transpose(0, 2, 1, 3)

    x = W["model.embed_tokens.weight"][ids]
    inv = 1.0 / (10000 ** (np.arange(0, hd, 2) / hd))
    fr = np.outer(np.arange(S), inv)
    emb = np.concatenate([fr, fr], -1)
    cos, sin = np.cos(emb), np.sin(emb)
    mask = np.triu(np.full((S, S), -np.inf), 1)
    for i in range(layers):
        p = "model.layers.%d." % i
        h = rms(x, W[p + "input_layernorm.weight"])
        q, k, v = (split(proj(p + "self_attn." + n, h)) for n in ("q_proj", "k_proj", "v_proj"))
        q, k = q * cos + rot(q) * sin, k * cos + rot(k) * sin
        o = (softmax(q @ k.transpose(0, 1, 3, 2) / np.sqrt(hd) + mask) @ v).transpose(0, 2, 1, 3).reshape(B, S, hidden)
        x = x + proj(p + "self_attn.o_proj", o)
        h = rms(x, W[p + "post_attention_layernorm.weight"])
        g = proj(p + "mlp.gate_proj", h)
        g = g / (1 + np.exp(-g))
        x = x + proj(p + "mlp.down_proj", g * proj(p + "mlp.up_proj", h))
    return rms(x, W["model.norm.weight"]) @ W["lm_head.weight"].T


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--work", required=True)
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    rng = np.random.default_rng(1)
    failures = []

    def check(what, value, limit):
        ok = value <= limit
        print("%-58s %.3g %s" % (what, value, "ok" if ok else "FAIL (limit %g)" % limit))
        if not ok:
            failures.append(what)

    def check_changed(what, value):
        ok = value > 1e-4
        print("%-58s %.3g %s" % (what, value, "ok" if ok else "FAIL (should differ)"))
        if not ok:
            failures.append(what)

    for opset in (13, 17):
        hidden, heads, layers = 128, 2, 2
        m = gen_models.build("bert", batch="symbolic", hidden=hidden, layers=layers, vocab=V, opset=opset)
        path = os.path.join(a.work, "bert%d.onnx" % opset)
        onnx.save(m, path)
        ids = rng.integers(0, V, (B, S)).astype(np.int64)
        mask = np.ones((B, S), np.int64)
        mask[0, 100:] = 0
        mask[1, 64:] = 0
        o = ort_run(a.work, path, [("input_ids", ids), ("attention_mask", mask)], "bert_a")
        ref = bert_ref(weights(m), ids, mask, hidden, heads, layers)
        check("bert opset %d: last_hidden_state vs numpy" % opset, np.abs(o[0] - ref[0]).max(), 1e-4)
        check("bert opset %d: pooler_output vs numpy" % opset, np.abs(o[1] - ref[1]).max(), 1e-4)
        ids2 = ids.copy()
        ids2[0, 100:] = rng.integers(0, V, S - 100)
        ids2[1, 64:] = rng.integers(0, V, S - 64)
        o2 = ort_run(a.work, path, [("input_ids", ids2), ("attention_mask", mask)], "bert_b")
        check("bert opset %d: masked tokens change unmasked rows by" % opset,
              max(np.abs(o[0][0, :100] - o2[0][0, :100]).max(), np.abs(o[0][1, :64] - o2[0][1, :64]).max()), 1e-5)
        check_changed("bert opset %d: ... and do change masked rows by" % opset,
                      np.abs(o[0][1, 64:] - o2[0][1, 64:]).max())

    for opset in (13, 17):
        hidden, heads, layers = 128, 4, 2
        m = gen_models.build("llama", batch="symbolic", hidden=hidden, heads=heads, layers=layers, vocab=V,
                             opset=opset)
        path = os.path.join(a.work, "llama%d.onnx" % opset)
        onnx.save(m, path)
        ids = rng.integers(0, V, (B, S)).astype(np.int64)
        o = ort_run(a.work, path, [("input_ids", ids)], "llama_a")[0]
        ref = llama_ref(weights(m), ids, hidden, heads, layers)
        check("llama opset %d: logits vs numpy" % opset, np.abs(o - ref).max(), 1e-4)
        ids2 = ids.copy()
        ids2[:, 90] = (ids2[:, 90] + 7) % V
        o2 = ort_run(a.work, path, [("input_ids", ids2)], "llama_b")[0]
        check("llama opset %d: token 90 changes logits before it by" % opset, np.abs(o[:, :90] - o2[:, :90]).max(), 1e-5)
        check_changed("llama opset %d: ... and changes logits from it by" % opset, np.abs(o[:, 90:] - o2[:, 90:]).max())

    print("selfcheck: %s" % ("FAILED: " + ", ".join(failures) if failures else "all passed"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
