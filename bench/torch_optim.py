"""PyTorch side of the optimizer cases (bench/cases/optim.ts), called by torch_bench.py: one
torch.optim.Adam step over the case's parameters (inputs: parameters, then gradients), with Burn's
defaults (eps 1e-5) and the case's lr; the state carries over from run to run. The checksum covers
the first parameter after two steps of a fresh optimizer from the initial values."""


def measure_optim(torch, case, t, cfg, time_bulk, checksum):
    if case["op"] != "adamStep":
        raise ValueError("unknown optimizer case " + case["op"])
    n = len(t) // 2
    lr = 1e-3  # ADAM_LR in bench/cases/optim.ts

    def fresh():
        params = [x.clone().requires_grad_(True) for x in t[:n]]
        for p, g in zip(params, t[n:]):
            p.grad = g
        return params, torch.optim.Adam(params, lr=lr, betas=(0.9, 0.999), eps=1e-5)

    params, opt = fresh()
    samples = time_bulk(opt.step, cfg)
    params, opt = fresh()
    opt.step()
    opt.step()
    return {"ok": True, "samples": samples, "checksum": checksum(torch, params[0].detach())}
