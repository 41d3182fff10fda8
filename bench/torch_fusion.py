"""PyTorch side of the fusion family's transformer rows (bench/cases/fusion.ts).

A 2-layer post-norm transformer encoder (d_model 128, 4 heads, d_ff 512, GELU, dropout 0,
batch_first), input [16, 64, 128], loss = mean((out - target)^2), Adam (lr 1e-3, betas 0.9/0.999,
eps 1e-5), 2 threads. Two measurements, each a list of seconds per call:
- train: zero_grad(set_to_none=True), forward, loss.item(), backward, opt.step() (model and
  optimizer state carry over from step to step, as burn-ts's side);
- infer: model.eval() under torch.inference_mode(), so PyTorch 1.13 takes its fused inference
  path (torch._transformer_encoder_layer_fwd: "fast path"), output made contiguous.
Warm-up: at least `warmup_s` seconds and 3 calls; then timed calls until `budget_s` seconds are
spent (at least `min_runs`, at most `max_runs`). Prints one JSON line on stdout.

Usage: python3 bench/torch_fusion.py '{"warmup_s": 1, "budget_s": 2, "min_runs": 5, "max_runs": 200}'
"""

import json
import sys
import time

import torch

D_MODEL, HEADS, D_FF, LAYERS = 128, 4, 512, 2
BATCH, SEQ = 16, 64
LR = 1e-3


def inputs(shape, seed):
    """bench/lib/data.ts's inputValues: ((i * 0x9E3779B1 + seed) mod 2^32) / 2^31 - 1 as f32."""
    n = 1
    for d in shape:
        n *= d
    i = torch.arange(n, dtype=torch.int64)
    v = ((i * 0x9E3779B1 + seed) % (1 << 32)).double() / (1 << 31) - 1
    return v.float().reshape(shape)


def timed(fn, cfg):
    start = time.perf_counter()
    warm = 0
    while warm < 3 or time.perf_counter() - start < cfg["warmup_s"]:
        fn()
        warm += 1
    samples = []
    start = time.perf_counter()
    while len(samples) < cfg["min_runs"] or (
        len(samples) < cfg["max_runs"] and time.perf_counter() - start < cfg["budget_s"]
    ):
        t0 = time.perf_counter_ns()
        fn()
        samples.append((time.perf_counter_ns() - t0) / 1e9)
    return samples


def main():
    cfg = json.loads(sys.argv[1]) if len(sys.argv) > 1 else {}
    cfg = {"warmup_s": 1.0, "budget_s": 2.0, "min_runs": 5, "max_runs": 200, **cfg}
    torch.set_num_threads(2)
    torch.manual_seed(0)
    layer = torch.nn.TransformerEncoderLayer(
        D_MODEL, HEADS, D_FF, dropout=0.0, activation="gelu", batch_first=True, norm_first=False
    )
    model = torch.nn.TransformerEncoder(layer, LAYERS, enable_nested_tensor=False)
    x = inputs([BATCH, SEQ, D_MODEL], 0x1234567 + 7919)
    target = inputs([BATCH, SEQ, D_MODEL], 0x1234567 + 2 * 7919)
    opt = torch.optim.Adam(model.parameters(), lr=LR, betas=(0.9, 0.999), eps=1e-5)
    losses = []

    def train_step():
        opt.zero_grad(set_to_none=True)
        loss = ((model(x) - target) ** 2).mean()
        value = loss.item()
        loss.backward()
        opt.step()
        if len(losses) < 3:
            losses.append(value)

    model.train()
    train = timed(train_step, cfg)

    def infer():
        with torch.inference_mode():
            return model(x).contiguous()

    model.eval()
    inference = timed(infer, cfg)
    print(
        json.dumps(
            {
                "version": torch.__version__,
                "threads": torch.get_num_threads(),
                "train": train,
                "infer": inference,
                "losses": losses,
            }
        )
    )


if __name__ == "__main__":
    main()
