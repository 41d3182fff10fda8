"""PyTorch side of the file cases (bench/cases/store.ts), called by torch_bench.py: torch.save /
torch.load of the case's tensors (a state_dict named like burn-ts's, `tensors.<k>`) in the zip
format, on a file in a temporary directory. burnpack and SafeTensors have no PyTorch writer here
(the `safetensors` package is not installed: no Debian package), so those rows are n/a. The
checksum covers the first tensor read back from the file."""
import os
import shutil
import tempfile


def measure_store(torch, case, t, cfg, time_bulk, checksum, Unavailable):
    fmt = case.get("attrs", {}).get("format")
    if fmt != "pt":
        raise Unavailable("PyTorch has no %s writer here (torch.save writes .pt only)" % fmt)
    d = tempfile.mkdtemp(prefix="torch-bench-store-")
    try:
        path = os.path.join(d, "model.pt")
        state = {"tensors.%d" % k: x for k, x in enumerate(t)}
        torch.save(state, path)
        if case["op"] == "storeSave":
            samples = time_bulk(lambda: torch.save(state, path), cfg)
        else:
            samples = time_bulk(lambda: torch.load(path), cfg)
        back = torch.load(path)
        return {"ok": True, "samples": samples, "checksum": checksum(torch, back["tensors.0"])}
    finally:
        shutil.rmtree(d, ignore_errors=True)
