#!/usr/bin/env python3
"""PyTorch side of `npm run bench` (bench/impls/torch.ts drives it).

Protocol, one JSON object per line: this script first prints a hello line,
{"hello": true, "detail": "..."} or {"hello": false, "reason": "..."} when torch is missing;
then, for each request {"case": BenchCase, "config": MeasureConfig, "readback": bool} read from
stdin, it prints {"ok": true, "samples": [seconds per call...], "checksum": {...}} or
{"ok": false, "reason": "..."}; step and decorator cases add "phases" (see bench/lib/types.ts).
Inputs, timing and checksums mirror bench/lib/data.ts and bench/lib/measure.ts. PyTorch is
eager: an op's return is its synchronization point.
"""
import json
import os
import sys
import time

MAX_BATCH_SECONDS = 0.5
MAX_WARMUP_BATCHES = 100


class Unavailable(Exception):
    """A case this implementation cannot run (an n/a cell with this reason)."""


def inputs_of(torch, case):
    out = []
    for spec in case["inputs"]:
        shape = spec["shape"]
        n = 1
        for d in shape:
            n *= d
        i = torch.arange(n, dtype=torch.int64)
        u = (i * 0x9E3779B1 + (spec["seed"] & 0xFFFFFFFF)) & 0xFFFFFFFF
        x = (u.double() / 2147483648.0 - 1.0).float()
        if spec.get("scale", 1) != 1:
            x = x * torch.tensor(spec["scale"], dtype=torch.float32)  # f32 product, as data.ts
        out.append(x.reshape(shape).contiguous())
    return out


def labels_of(torch, n, classes):
    """Row i has class (7*i + 3) % classes (bench/lib/data.ts labelValues), shape [n, 1]."""
    return torch.tensor([(7 * i + 3) % classes for i in range(n)], dtype=torch.int64).reshape(n, 1)


def step_phases(torch, case, t):
    """A training step (bench/cases/autodiff.ts): forward until the loss is read, backward until a
    value of the first parameter's gradient is."""
    F = torch.nn.functional
    x, params = t[0], t[1:]
    for p in params:
        p.requires_grad_(True)
    labels = labels_of(torch, x.shape[0], int((case.get("attrs") or {}).get("classes", 10)))
    op = case["op"]
    if op == "mlpStep":
        w1, b1, w2, b2 = params

        def logits():
            return torch.relu(x @ w1 + b1) @ w2 + b2
    elif op == "convnetStep":
        c1, c1b, c2, c2b, fw, fb = params

        def logits():
            h = torch.relu(F.conv2d(x, c1, c1b))
            h = torch.relu(F.conv2d(h, c2, c2b))
            return F.adaptive_avg_pool2d(h, (8, 8)).flatten(1) @ fw + fb
    else:
        raise ValueError("unknown step " + op)
    state = {}

    def forward():
        for p in params:
            p.grad = None  # no accumulation across steps (burn-ts's backward returns fresh gradients)
        loss = -torch.log_softmax(logits(), 1).gather(1, labels).mean()
        state["loss"] = loss
        return loss.item()

    def backward():
        state.pop("loss").backward()
        return params[0].grad.reshape(-1)[0].item()

    return forward, backward, params[0]


def body(torch, case, t):
    op = case["op"]
    attrs = case.get("attrs") or {}
    a = t[0]
    b = t[1] if len(t) > 1 else None
    if op == "add":
        return lambda: torch.add(a, b)
    if op == "mul":
        return lambda: torch.mul(a, b)
    if op == "mulScalar":
        s = float(attrs.get("scalar", 2))
        return lambda: torch.mul(a, s)
    if op == "matmul":
        return lambda: torch.matmul(a, b)
    if op == "exp":
        return lambda: torch.exp(a)
    if op == "sum":
        return lambda: torch.sum(a)
    if op == "softmax":
        dim = int(attrs.get("dim", -1))
        return lambda: torch.softmax(a, dim)
    if op == "transposeCopy":
        return lambda: a.t().contiguous()
    if op == "conv2d":
        p = int(attrs.get("padding", 0))
        conv2d = torch.nn.functional.conv2d
        return lambda: conv2d(a, b, None, 1, p)
    raise ValueError("unknown op " + op)


def run_batch(run, calls):
    t0 = time.perf_counter_ns()
    for _ in range(calls):
        run()
    return (time.perf_counter_ns() - t0) / 1e9 / calls


def time_overhead(run, cfg):
    probe = run_batch(run, 100)
    calls = max(100, min(cfg["batchCalls"], int(MAX_BATCH_SECONDS / max(probe, 1e-9))))
    start = time.perf_counter()
    for i in range(MAX_WARMUP_BATCHES):
        run_batch(run, calls)
        if i + 1 >= cfg["warmupBatches"] and time.perf_counter() - start >= cfg["warmupSeconds"]:
            break
    return [run_batch(run, calls) for _ in range(cfg["batches"])]


def time_decorator(torch, case, t, cfg):
    """PyTorch's analogue of a tracked decorator case: the op on inputs requiring grad minus the
    same op on plain inputs, in alternating pairs of batches (bench/lib/measure.ts timeDecorator)."""
    if not case["metric"].get("tracked"):
        raise Unavailable("PyTorch has no separate autodiff layer: an op on untracked tensors is the plain op")
    tracked = [x.clone().requires_grad_(True) for x in t]
    dec = body(torch, case, tracked)
    base = body(torch, case, t)
    probe = run_batch(dec, 100)
    calls = max(100, min(cfg["batchCalls"], int(MAX_BATCH_SECONDS / max(probe, 1e-9))))
    start = time.perf_counter()
    for i in range(MAX_WARMUP_BATCHES):
        run_batch(dec, calls)
        run_batch(base, calls)
        if i + 1 >= cfg["warmupBatches"] and time.perf_counter() - start >= cfg["warmupSeconds"]:
            break
    decorated, plain = [], []
    for i in range(cfg["batches"]):
        if i % 2 == 0:
            decorated.append(run_batch(dec, calls))
            plain.append(run_batch(base, calls))
        else:
            plain.append(run_batch(base, calls))
            decorated.append(run_batch(dec, calls))
    samples = [d - p for d, p in zip(decorated, plain)]
    return samples, {"decorated": decorated, "plain": plain}, dec().detach()


def time_step(forward, backward, cfg):
    """Forward and backward seconds of each timed step; warm-up and run count as time_bulk."""
    def once():
        return run_once(forward), run_once(backward)

    start = time.perf_counter()
    for i in range(cfg["maxWarmupRuns"]):
        once()
        if i + 1 >= cfg["warmupRuns"] and time.perf_counter() - start >= cfg["warmupSeconds"]:
            break
    fwd, bwd = [], []
    spent = 0.0
    while len(fwd) < cfg["maxRuns"]:
        f, b = once()
        fwd.append(f)
        bwd.append(b)
        spent += f + b
        if len(fwd) >= cfg["minRuns"] and spent >= cfg["budgetSeconds"]:
            break
    return fwd, bwd


def run_once(run):
    t0 = time.perf_counter_ns()
    run()
    return (time.perf_counter_ns() - t0) / 1e9


def time_bulk(run, cfg):
    start = time.perf_counter()
    for i in range(cfg["maxWarmupRuns"]):
        run_once(run)
        if i + 1 >= cfg["warmupRuns"] and time.perf_counter() - start >= cfg["warmupSeconds"]:
            break
    samples = []
    spent = 0.0
    while len(samples) < cfg["maxRuns"]:
        s = run_once(run)
        samples.append(s)
        spent += s
        if len(samples) >= cfg["minRuns"] and spent >= cfg["budgetSeconds"]:
            break
    return samples


def checksum(torch, y):
    flat = y.detach().double().reshape(-1)
    w = (torch.arange(flat.numel(), dtype=torch.int64) % 7 - 3).double()
    v = flat * w
    return {"weighted": v.sum().item(), "magnitude": v.abs().sum().item()}


def measure(torch, req):
    case = req["case"]
    cfg = req["config"]
    t = inputs_of(torch, case)
    kind = case["metric"]["kind"]
    if case["op"] == "adamStep":
        from torch_optim import measure_optim  # bench/torch_optim.py
        return measure_optim(torch, case, t, cfg, time_bulk, checksum)
    if case["op"] == "mnistTrainStep":
        from torch_train import measure_train  # bench/torch_train.py
        return measure_train(torch, case, t, cfg, time_bulk, checksum)
    if case["op"] in ("storeSave", "storeLoad"):
        from torch_store import measure_store  # bench/torch_store.py
        return measure_store(torch, case, t, cfg, time_bulk, checksum, Unavailable)
    if kind == "step":
        forward, backward, first = step_phases(torch, case, t)
        fwd, bwd = time_step(forward, backward, cfg)
        forward()
        backward()
        out = first.grad.detach()  # the first layer's gradient depends on every op of the step
        return {"ok": True, "samples": [f + b for f, b in zip(fwd, bwd)], "phases": {"forward": fwd, "backward": bwd},
                "checksum": checksum(torch, out)}
    if kind == "decorator":
        samples, phases, out = time_decorator(torch, case, t, cfg)
        return {"ok": True, "samples": samples, "phases": phases, "checksum": checksum(torch, out)}
    op = body(torch, case, t)
    run = (lambda: op().numpy()) if req.get("readback") else op
    if case["metric"]["kind"] == "overhead":
        samples = time_overhead(run, cfg)
    else:
        samples = time_bulk(run, cfg)
    return {"ok": True, "samples": samples, "checksum": checksum(torch, op())}


def blas_in_use(torch):
    """The BLAS library this process mapped after a matmul (Debian's torch uses libblas.so.3)."""
    torch.matmul(torch.ones(8, 8), torch.ones(8, 8))
    try:
        with open("/proc/self/maps") as maps:
            paths = sorted({line.split()[-1] for line in maps if "blas" in line.lower() and "/" in line})
    except OSError:
        return "BLAS unknown"
    if not paths:
        return "BLAS unknown"
    real = sorted({os.path.realpath(p) for p in paths})
    kind = "OpenBLAS" if any("openblas" in p for p in real) else "BLIS" if any("blis" in p for p in real) \
        else "MKL" if any("mkl" in p for p in real) else "reference BLAS" if any("/blas/" in p for p in real) else "BLAS"
    return "%s (%s)" % (kind, ", ".join(real))


def main():
    try:
        import torch
    except Exception as e:  # noqa: BLE001 - any import failure means "not available"
        print(json.dumps({"hello": False, "reason": "python3-torch is not installed (%s)" % e}), flush=True)
        return
    torch.set_num_threads(2)
    detail = "PyTorch %s, %d threads, eager; matmul through %s" % (torch.__version__, torch.get_num_threads(), blas_in_use(torch))
    print(json.dumps({"hello": True, "detail": detail}), flush=True)
    for line in sys.stdin:
        if not line.strip():
            continue
        req = json.loads(line)
        try:
            res = measure(torch, req)
        except Unavailable as e:
            res = {"ok": False, "reason": str(e)}
        except Exception as e:  # noqa: BLE001 - reported as an n/a cell
            res = {"ok": False, "reason": ("failed: %s" % e).split("\n")[0][:160]}
        print(json.dumps(res), flush=True)


if __name__ == "__main__":
    main()
