"""PyTorch side of the training-throughput case (bench/cases/train.ts), called by torch_bench.py:
Burn's MNIST ConvNet as a torch.nn.Module (conv 1->8 3x3, relu, conv 8->16 3x3, relu, max-pool
2x2 stride 2, flatten, linear 2304->64, relu, linear 64->10), F.cross_entropy, torch.optim.Adam with
Burn's defaults (betas 0.9/0.999, eps 1e-5) and lr 1e-3, initialized from the case's inputs (Burn's
Linear weight is [dIn, dOut]: transposed into torch's [dOut, dIn]). One timed run is one step:
zero_grad, forward, loss.item(), backward, optimizer step; the model and optimizer state carry over
from run to run. The checksum covers the losses of the first three steps of a fresh model and
optimizer, then the first layer's weight change over them in units of lr (as bench/impls/burn-train.ts)."""

LR = 1e-3  # TRAIN_LR in bench/cases/train.ts
CHECK_STEPS = 3


def measure_train(torch, case, t, cfg, time_bulk, checksum):
    if case["op"] != "mnistTrainStep":
        raise ValueError("unknown training case " + case["op"])
    nn = torch.nn
    F = nn.functional
    images, weights = t[0], t[1:]
    batch = images.shape[0]
    classes = int((case.get("attrs") or {}).get("classes", 10))
    targets = torch.tensor([(7 * i + 3) % classes for i in range(batch)], dtype=torch.int64)  # lib/data.ts labelValues

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(1, 8, 3)
            self.conv2 = nn.Conv2d(8, 16, 3)
            self.pool = nn.MaxPool2d(2, 2)
            self.linear1 = nn.Linear(16 * 12 * 12, weights[4].shape[1])
            self.linear2 = nn.Linear(weights[6].shape[0], weights[6].shape[1])
            with torch.no_grad():
                self.conv1.weight.copy_(weights[0])
                self.conv1.bias.copy_(weights[1])
                self.conv2.weight.copy_(weights[2])
                self.conv2.bias.copy_(weights[3])
                self.linear1.weight.copy_(weights[4].t())
                self.linear1.bias.copy_(weights[5])
                self.linear2.weight.copy_(weights[6].t())
                self.linear2.bias.copy_(weights[7])

        def forward(self, x):
            b, h, w = x.shape
            x = x.reshape(b, 1, h, w)
            x = torch.relu(self.conv1(x))
            x = torch.relu(self.conv2(x))
            x = self.pool(x)
            x = torch.relu(self.linear1(x.reshape(b, 16 * 12 * 12)))
            return self.linear2(x)

    def trainer():
        model = Model()
        opt = torch.optim.Adam(model.parameters(), lr=LR, betas=(0.9, 0.999), eps=1e-5)

        def step():
            opt.zero_grad(set_to_none=True)
            loss = F.cross_entropy(model(images), targets)
            value = loss.item()
            loss.backward()
            opt.step()
            return value

        return model, step

    _, step = trainer()
    samples = time_bulk(step, cfg)
    model, step = trainer()
    losses = [step() for _ in range(CHECK_STEPS)]
    delta = (model.conv1.weight.detach() - weights[0]).reshape(-1) / LR
    out = torch.cat([torch.tensor(losses, dtype=torch.float64), delta.double()])
    return {"ok": True, "samples": samples, "checksum": checksum(torch, out)}
