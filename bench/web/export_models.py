"""Exports the ONNX models of the in-page bench (bench/web/run.ts) with random weights.

  mnist.onnx     the MNIST example's model (examples/mnist/model.ts): conv 1→8 3×3, conv 8→16
                 3×3, ReLU, adaptive average pool to 8×8, linear 1024→512, ReLU, linear 512→10
                 (dropout is the identity at inference); input `images` [batch, 28, 28]
  resnet18.onnx  torchvision's ResNet-18, input `image` [batch, 3, 224, 224] (47 MB: exported at
                 bench time into a cache folder, not committed)

Run with Debian's torch:  /usr/bin/python3 bench/web/export_models.py <out dir>
"""

import os
import sys

import torch
import torchvision
from torch import nn


class MnistModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 8, 3)
        self.conv2 = nn.Conv2d(8, 16, 3)
        self.pool = nn.AdaptiveAvgPool2d((8, 8))
        self.linear1 = nn.Linear(16 * 8 * 8, 512)
        self.linear2 = nn.Linear(512, 10)
        self.relu = nn.ReLU()

    def forward(self, images):
        x = images.unsqueeze(1)
        x = self.relu(self.conv2(self.conv1(x)))
        x = self.pool(x).flatten(1)
        return self.linear2(self.relu(self.linear1(x)))


def export(model, example, path, input_name, output_name):
    model.eval()
    torch.onnx.export(model, example, path, opset_version=13, input_names=[input_name], output_names=[output_name],
                      dynamic_axes={input_name: {0: "batch"}, output_name: {0: "batch"}})


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "."
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(0)
    export(MnistModel(), torch.rand(1, 28, 28), os.path.join(out, "mnist.onnx"), "images", "logits")
    export(torchvision.models.resnet18(), torch.rand(1, 3, 224, 224), os.path.join(out, "resnet18.onnx"), "image", "logits")
    print(f"wrote mnist.onnx and resnet18.onnx into {out}")


if __name__ == "__main__":
    main()
