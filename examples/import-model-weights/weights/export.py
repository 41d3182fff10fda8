#!/usr/bin/env python3
# Trains the example's small CNN on Fashion-MNIST with PyTorch and exports its weights as
# fashion.pt (torch.save of the state dict) and fashion.safetensors, plus expected.json: the
# model's outputs on the first test images, which the TypeScript example must reproduce.
# Needs Debian's python3-torch and dataset-fashion-mnist:  /usr/bin/python3 examples/import-model-weights/weights/export.py
import gzip
import json
import os
import struct

import torch
import torch.nn as nn
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = "/usr/share/datasets/fashion-mnist"


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 8, 3)
        self.conv2 = nn.Conv2d(8, 16, 3)
        self.norm1 = nn.BatchNorm2d(16)
        self.fc1 = nn.Linear(16 * 5 * 5, 32)
        self.fc2 = nn.Linear(32, 10)
        self.norm2 = nn.BatchNorm1d(10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = self.norm1(x)
        x = torch.flatten(x, 1)
        x = F.relu(self.fc1(x))
        x = self.norm2(self.fc2(x))
        return F.log_softmax(x, dim=1)


def idx(name):
    with gzip.open(os.path.join(DATA, name)) as f:
        data = f.read()
    ndim = data[3]
    dims = struct.unpack(">" + "I" * ndim, data[4 : 4 + 4 * ndim])
    return torch.frombuffer(bytearray(data[4 + 4 * ndim :]), dtype=torch.uint8).reshape(dims)


def normalize(images):
    return ((images.float() / 255) - 0.286) / 0.353


def save_safetensors(path, tensors):
    """The SafeTensors format: an 8-byte little-endian header length, a JSON header, the raw data."""
    header, chunks, offset = {}, [], 0
    for name, t in tensors.items():
        data = t.detach().contiguous().float().numpy().tobytes()
        header[name] = {"dtype": "F32", "shape": list(t.shape), "data_offsets": [offset, offset + len(data)]}
        chunks.append(data)
        offset += len(data)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(chunks))


def main():
    torch.manual_seed(1)
    torch.set_num_threads(2)
    train_x, train_y = normalize(idx("train-images-idx3-ubyte.gz")).unsqueeze(1), idx("train-labels-idx1-ubyte.gz").long()
    test_x, test_y = normalize(idx("t10k-images-idx3-ubyte.gz")).unsqueeze(1), idx("t10k-labels-idx1-ubyte.gz").long()
    model = Net()
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    for epoch in range(2):
        model.train()
        order = torch.randperm(len(train_x))
        for start in range(0, len(order), 64):
            batch = order[start : start + 64]
            optimizer.zero_grad()
            loss = F.nll_loss(model(train_x[batch]), train_y[batch])
            loss.backward()
            optimizer.step()
        print(f"epoch {epoch + 1}: last loss {loss.item():.4f}")
    model.eval()
    with torch.no_grad():
        accuracy = (model(test_x).argmax(1) == test_y).float().mean().item() * 100
        first = model(test_x[:8])
    print(f"test accuracy {accuracy:.2f}%")
    state = model.state_dict()
    torch.save(state, os.path.join(HERE, "fashion.pt"))
    save_safetensors(os.path.join(HERE, "fashion.safetensors"), {k: v for k, v in state.items() if v.is_floating_point()})
    with open(os.path.join(HERE, "expected.json"), "w") as f:
        json.dump({"testAccuracy": round(accuracy, 2), "outputs": [[round(v, 6) for v in row] for row in first.tolist()], "labels": test_y[:8].tolist()}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
