# Exports the models of the ONNX benchmark rows (bench/cases/onnx.ts) with torch.onnx.export
# (Debian's python3-torch 1.13 and python3-torchvision 0.14; random weights, nothing downloaded):
#   resnet18.onnx      torchvision ResNet-18, 1000 classes (11.7M parameters, 46.8 MB: the load-time row)
#   mobilenet_v2.onnx  torchvision MobileNetV2, width 1.0, 1000 classes
#   encoder.onnx       a 2-layer transformer encoder (d_model 128, 4 heads, d_ff 512, GELU), input [batch, 64, 128]
# Inputs have a dynamic batch axis. The files are large, so they go to a cache folder, not git:
#   /usr/bin/python3 scripts/onnx/gen_bench_models.py OUT_DIR
import os
import sys
import warnings

import torch
import torch.nn as nn
import torchvision

warnings.simplefilter('ignore')


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        layer = nn.TransformerEncoderLayer(128, 4, 512, dropout=0.0, batch_first=True, activation='gelu')
        self.encoder = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)

    def forward(self, x):
        return self.encoder(x)


def export(path, module, example, input_name):
    module.eval()
    for m in module.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.running_mean.uniform_(-0.5, 0.5)
            m.running_var.uniform_(0.5, 1.5)
    tmp = path + '.tmp'
    torch.onnx.export(module, (example,), tmp, input_names=[input_name], output_names=['output'],
                      dynamic_axes={input_name: {0: 'batch'}, 'output': {0: 'batch'}}, opset_version=17, do_constant_folding=True)
    os.replace(tmp, path)
    print(f'{os.path.basename(path)}: {os.path.getsize(path)} bytes')


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(0)
    export(os.path.join(out, 'resnet18.onnx'), torchvision.models.resnet18(), torch.randn(1, 3, 224, 224), 'image')
    torch.manual_seed(1)
    export(os.path.join(out, 'mobilenet_v2.onnx'), torchvision.models.mobilenet_v2(), torch.randn(1, 3, 224, 224), 'image')
    torch.manual_seed(2)
    export(os.path.join(out, 'encoder.onnx'), Encoder(), torch.randn(2, 64, 128), 'x')


main()
