#!/usr/bin/python3
"""End-to-end checks of Kiln on the models of gen_function_models.py (the ctest driver), and output comparison.

  function_model_check.py check --kiln KILN --models DIR --work DIR NAME
      for model NAME of DIR (written by gen_function_models.py):
      1. `kiln compile --oo.level=O0` writes a model equal to the input (protobuf equality, field by field);
      2. the O0 and the O2 outputs pass onnx.checker.check_model(full_check=True), and the O2 output keeps the
         functions the manifest names (where it names them);
      3. `kiln run` on the input, the O0 and the O2 model reproduces every data set's expected outputs
         (rtol 1e-5, atol 1e-6); for a model the manifest marks as not run by Kiln, `kiln run` must fail with
         exit code 2 and one `kiln: error:` line instead of crashing.
      Exits 0 when everything holds, 1 with every failure listed otherwise.
  function_model_check.py compare EXPECTED_DIR ACTUAL_DIR [--rtol R] [--atol A]
      compares output_I.pb files of two folders; prints one line per output; exit 1 on a mismatch.
"""

import argparse
import json
import os
import subprocess
import sys

import numpy as np
import onnx
from onnx import numpy_helper

RTOL, ATOL = 1e-5, 1e-6


def read_tensor(path):
    t = onnx.TensorProto()
    with open(path, "rb") as f:
        t.ParseFromString(f.read())
    return numpy_helper.to_array(t)


def output_files(d):
    files = sorted((f for f in os.listdir(d) if f.startswith("output_") and f.endswith(".pb")),
                   key=lambda f: int(f[len("output_"):-len(".pb")]))
    return [os.path.join(d, f) for f in files]


def compare_dirs(expected_dir, actual_dir, rtol=RTOL, atol=ATOL):
    """[(file, ok, message)] for every expected output_I.pb."""
    results = []
    for exp_path in output_files(expected_dir):
        name = os.path.basename(exp_path)
        act_path = os.path.join(actual_dir, name)
        if not os.path.exists(act_path):
            results.append((name, False, "missing"))
            continue
        exp, act = read_tensor(exp_path), read_tensor(act_path)
        if exp.shape != act.shape or exp.dtype != act.dtype:
            results.append((name, False, "got %s%s, expected %s%s" % (act.dtype, list(act.shape), exp.dtype,
                                                                      list(exp.shape))))
            continue
        if exp.size == 0 or np.allclose(act, exp, rtol=rtol, atol=atol):
            err = float(np.max(np.abs(act.astype(np.float64) - exp))) if exp.size else 0.0
            results.append((name, True, "max abs error %.3g" % err))
            continue
        diff = np.abs(act.astype(np.float64) - exp.astype(np.float64))
        i = np.unravel_index(np.argmax(diff - atol - rtol * np.abs(exp)), exp.shape)
        results.append((name, False, "at %s got %r, expected %r" % (list(i), act[i].item(), exp[i].item())))
    extra = set(os.path.basename(p) for p in output_files(actual_dir)) - set(os.path.basename(p) for p in
                                                                              output_files(expected_dir))
    for name in sorted(extra):
        results.append((name, False, "not expected"))
    if not results:
        results.append(("(none)", False, "no expected outputs in " + expected_dir))
    return results


def proto_diff(a, b, path="model"):
    """The first difference between two messages, as a path and the two values, or None when they are equal."""
    if type(a) is not type(b):
        return "%s: %s vs %s" % (path, type(a).__name__, type(b).__name__)
    fields = {f.name for f, _ in a.ListFields()} | {f.name for f, _ in b.ListFields()}
    for name in sorted(fields):
        fd = a.DESCRIPTOR.fields_by_name[name]
        va, vb = getattr(a, name), getattr(b, name)
        if fd.label == fd.LABEL_REPEATED:
            if len(va) != len(vb):
                return "%s.%s: %d vs %d entries" % (path, name, len(va), len(vb))
            for i, (x, y) in enumerate(zip(va, vb)):
                if fd.type == fd.TYPE_MESSAGE:
                    d = proto_diff(x, y, "%s.%s[%d]" % (path, name, i))
                    if d:
                        return d
                elif x != y:
                    return "%s.%s[%d]: %r vs %r" % (path, name, i, x, y)
        elif fd.type == fd.TYPE_MESSAGE:
            if a.HasField(name) != b.HasField(name):
                return "%s.%s: present in only one" % (path, name)
            d = proto_diff(va, vb, "%s.%s" % (path, name))
            if d:
                return d
        elif a.HasField(name) != b.HasField(name) or va != vb:
            return "%s.%s: %r vs %r" % (path, name, va if a.HasField(name) else None, vb if b.HasField(name) else None)
    return None


class Check:
    def __init__(self, name):
        self.name = name
        self.failures = []

    def expect(self, ok, what):
        print("%s: %s: %s" % (self.name, "ok" if ok else "FAILED", what))
        if not ok:
            self.failures.append(what)
        return ok


def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return p.returncode, p.stdout


def checker_error(path):
    try:
        onnx.checker.check_model(onnx.load(path), full_check=True)
        return None
    except Exception as e:  # ValidationError, InferenceError, ...
        return "%s: %s" % (type(e).__name__, str(e).strip().splitlines()[0] if str(e).strip() else "")


def check_model(kiln, models, work, name):
    with open(os.path.join(models, "manifest.json")) as f:
        manifest = json.load(f)
    c = Check(name)
    if not c.expect(name in manifest, "the manifest lists the model"):
        return c
    entry = manifest[name]
    src = os.path.join(models, name, "model.onnx")
    out = os.path.join(work, name)
    os.makedirs(out, exist_ok=True)
    compiled = {}
    for level in ("O0", "O2"):
        dst = os.path.join(out, level + ".onnx")
        if os.path.exists(dst):
            os.remove(dst)
        rc, text = run([kiln, "compile", src, "--oo.level=" + level, "--strict", "--verify-each", "-o", dst])
        if c.expect(rc == 0 and os.path.exists(dst), "kiln compile --oo.level=%s (rc %d)%s" %
                    (level, rc, "" if rc == 0 else ": " + text.strip())):
            compiled[level] = dst
    if "O0" in compiled:
        diff = proto_diff(onnx.load(src), onnx.load(compiled["O0"]))
        c.expect(diff is None, "the O0 output equals the input" + ("" if diff is None else ": " + diff))
    if "O2" in compiled and "o2_functions" in entry:
        left = sorted("%s.%s" % (f.domain, f.name) for f in onnx.load(compiled["O2"]).functions)
        c.expect(left == sorted(entry["o2_functions"]), "O2 leaves the functions %s (left %s)" %
                 (sorted(entry["o2_functions"]), left))
    for level, path in compiled.items():
        err = checker_error(path)
        c.expect(err is None, "onnx.checker (full_check) on the %s output%s" % (level, "" if err is None else ": " + err))
    sets = sorted(d for d in os.listdir(os.path.join(models, name)) if d.startswith("test_data_set_"))
    c.expect(len(sets) == entry["datasets"], "%d data set(s) on disk" % entry["datasets"])
    variants = [("input", src)] + [(level + " output", compiled[level]) for level in ("O0", "O2") if level in compiled]
    for variant, path in variants:
        for s in sets:
            data = os.path.join(models, name, s)
            got = os.path.join(out, "%s_%s" % (variant.split()[0], s))
            rc, text = run([kiln, "run", path, "--inputs-dir", data, "--output-dir", got])
            what = "kiln run on the %s, %s" % (variant, s)
            if not entry["kiln_runs"]:
                lines = [l for l in text.splitlines() if l.startswith("kiln: error:")]
                c.expect(rc == 2 and len(lines) == 1, "%s fails cleanly (rc %d): %s" % (what, rc, text.strip()))
                continue
            if not c.expect(rc == 0, "%s (rc %d)%s" % (what, rc, "" if rc == 0 else ": " + text.strip())):
                continue
            for f, ok, msg in compare_dirs(data, got):
                c.expect(ok, "%s: %s %s" % (what, f, msg))
    return c


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    ck = sub.add_parser("check")
    ck.add_argument("--kiln", required=True)
    ck.add_argument("--models", required=True)
    ck.add_argument("--work", required=True)
    ck.add_argument("name")
    cp = sub.add_parser("compare")
    cp.add_argument("expected_dir")
    cp.add_argument("actual_dir")
    cp.add_argument("--rtol", type=float, default=RTOL)
    cp.add_argument("--atol", type=float, default=ATOL)
    a = ap.parse_args()
    if a.cmd == "compare":
        results = compare_dirs(a.expected_dir, a.actual_dir, a.rtol, a.atol)
        for f, ok, msg in results:
            print("%s: %s %s" % (f, "match" if ok else "MISMATCH", msg))
        return 0 if all(ok for _, ok, _ in results) else 1
    c = check_model(a.kiln, a.models, a.work, a.name)
    if c.failures:
        print("%s: %d check(s) failed:\n  %s" % (a.name, len(c.failures), "\n  ".join(c.failures)))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
