"""Trains the onnx-web example's small CNN on Fashion-MNIST and exports it to ONNX.

Data: Debian's dataset-fashion-mnist (/usr/share/datasets/fashion-mnist, the original idx files).
Writes, next to this script:
  fashion_cnn.onnx  the trained model (opset 13, input `image` [batch, 1, 28, 28] in [0, 1],
                    output `logits` [batch, 10]; the normalization is inside the model)
  samples/*.png     a few test images the page offers as samples (white garment on black, as
                    in the data set)

Run with Debian's torch:  /usr/bin/python3 examples/web/onnx-web/train.py [--epochs 2]
"""

import argparse
import gzip
import os
import struct

import numpy as np
import torch
from torch import nn

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.environ.get("FASHION_MNIST_DIR", "/usr/share/datasets/fashion-mnist")
CLASSES = ["T-shirt/top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt", "Sneaker", "Bag", "Ankle boot"]


def read_idx(name):
    with gzip.open(os.path.join(DATA, name), "rb") as f:
        magic = struct.unpack(">I", f.read(4))[0]
        dims = [struct.unpack(">I", f.read(4))[0] for _ in range(magic & 0xFF)]
        return np.frombuffer(f.read(), dtype=np.uint8).reshape(dims)


class FashionCnn(nn.Module):
    """Two conv/ReLU/max-pool stages and two linear layers; takes pixels in [0, 1]."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, 3, padding=1)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1)
        self.pool = nn.MaxPool2d(2)
        self.fc1 = nn.Linear(32 * 7 * 7, 64)
        self.fc2 = nn.Linear(64, 10)
        self.relu = nn.ReLU()

    def forward(self, image):
        # Fashion-MNIST's training mean and standard deviation, inside the model so that every
        # runtime gets the same input (pixels / 255).
        x = (image - 0.2860) / 0.3530
        x = self.pool(self.relu(self.conv1(x)))
        x = self.pool(self.relu(self.conv2(x)))
        x = torch.flatten(x, 1)
        return self.fc2(self.relu(self.fc1(x)))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--out", default=HERE)
    args = parser.parse_args()
    torch.manual_seed(42)
    torch.set_num_threads(max(1, min(2, os.cpu_count() or 1)))

    train_x = torch.from_numpy(read_idx("train-images-idx3-ubyte.gz").astype(np.float32) / 255).unsqueeze(1)
    train_y = torch.from_numpy(read_idx("train-labels-idx1-ubyte.gz").astype(np.int64))
    test_images = read_idx("t10k-images-idx3-ubyte.gz")
    test_x = torch.from_numpy(test_images.astype(np.float32) / 255).unsqueeze(1)
    test_y = torch.from_numpy(read_idx("t10k-labels-idx1-ubyte.gz").astype(np.int64))

    model = FashionCnn()
    optim = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.CrossEntropyLoss()
    for epoch in range(args.epochs):
        model.train()
        order = torch.randperm(len(train_x))
        for i in range(0, len(order), 128):
            idx = order[i:i + 128]
            optim.zero_grad()
            loss = loss_fn(model(train_x[idx]), train_y[idx])
            loss.backward()
            optim.step()
        model.eval()
        with torch.no_grad():
            accuracy = (model(test_x).argmax(1) == test_y).float().mean().item()
        print(f"epoch {epoch + 1}: loss {loss.item():.3f}, test accuracy {accuracy:.4f}")

    model.eval()
    torch.onnx.export(
        model, torch.zeros(1, 1, 28, 28), os.path.join(args.out, "fashion_cnn.onnx"), opset_version=13,
        input_names=["image"], output_names=["logits"], dynamic_axes={"image": {0: "batch"}, "logits": {0: "batch"}},
    )

    # One sample per class: the first test image of each.
    from PIL import Image

    samples = os.path.join(args.out, "samples")
    os.makedirs(samples, exist_ok=True)
    for c, name in enumerate(CLASSES):
        i = int((test_y == c).nonzero()[0])
        slug = name.lower().replace("/", "-").replace(" ", "-")
        Image.fromarray(test_images[i]).save(os.path.join(samples, f"{c}-{slug}.png"))
    print(f"wrote {os.path.join(args.out, 'fashion_cnn.onnx')} and {len(CLASSES)} samples")


if __name__ == "__main__":
    main()
