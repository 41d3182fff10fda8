# Exports small models of each family with torch.onnx.export (Debian's python3-torch 1.13 and
# python3-torchvision 0.14; random weights, nothing downloaded) into test/fixtures/onnx/models/:
# <name>.onnx plus <name>.json holding the inputs and PyTorch's outputs, for test/onnx/models.test.ts.
# Run: /usr/bin/python3 scripts/onnx/gen_models.py
import json
import os
import warnings

import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision

warnings.simplefilter('ignore')
here = os.path.dirname(os.path.abspath(__file__))
out_dir = os.path.join(here, '..', '..', 'test', 'fixtures', 'onnx', 'models')
os.makedirs(out_dir, exist_ok=True)


class Block(nn.Module):
    def __init__(self, c_in, c_out, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(c_in, c_out, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(c_out)
        self.conv2 = nn.Conv2d(c_out, c_out, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(c_out)
        self.down = None if stride == 1 and c_in == c_out else nn.Sequential(nn.Conv2d(c_in, c_out, 1, stride, bias=False), nn.BatchNorm2d(c_out))

    def forward(self, x):
        y = F.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        return F.relu(y + (x if self.down is None else self.down(x)))


class SmallResNet(nn.Module):
    """A ResNet in miniature: stem conv + BN + max pool, residual blocks, global average pool, linear."""
    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 8, 3, 1, 1, bias=False), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(3, 2, 1))
        self.layer1 = Block(8, 8, 1)
        self.layer2 = Block(8, 16, 2)
        self.fc = nn.Linear(16, 10)

    def forward(self, x):
        x = self.layer2(self.layer1(self.stem(x)))
        return self.fc(torch.flatten(F.adaptive_avg_pool2d(x, 1), 1))


class Encoder(nn.Module):
    """A transformer encoder over integer tokens: embedding, learned positions, 2 layers, mean pool."""
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(50, 32)
        self.pos = nn.Parameter(torch.randn(1, 16, 32) * 0.1)
        layer = nn.TransformerEncoderLayer(32, 4, 64, dropout=0.0, batch_first=True, activation='gelu')
        self.encoder = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(32)
        self.head = nn.Linear(32, 5)

    def forward(self, tokens):
        x = self.embed(tokens) + self.pos[:, : tokens.shape[1]]
        x = self.norm(self.encoder(x))
        return self.head(x.mean(1))


class Recurrent(nn.Module):
    """A bidirectional 2-layer LSTM followed by a GRU, returning the sequence and the final state."""
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(6, 8, num_layers=2, batch_first=True, bidirectional=True)
        self.gru = nn.GRU(16, 5, batch_first=True)

    def forward(self, x):
        y, _ = self.lstm(x)
        z, h = self.gru(y)
        return z, h


class UNetish(nn.Module):
    """An encoder-decoder: strided convs down, ConvTranspose and bilinear Resize up, a skip concat."""
    def __init__(self):
        super().__init__()
        self.down1 = nn.Conv2d(2, 8, 3, 2, 1)
        self.down2 = nn.Conv2d(8, 16, 3, 2, 1)
        self.up1 = nn.ConvTranspose2d(16, 8, 4, 2, 1)
        self.fuse = nn.Conv2d(16, 8, 3, 1, 1)
        self.out = nn.Conv2d(8, 1, 1)

    def forward(self, x):
        d1 = F.leaky_relu(self.down1(x), 0.1)
        d2 = torch.sigmoid(self.down2(d1))
        u1 = F.relu(self.up1(d2))
        f = torch.tanh(self.fuse(torch.cat([u1, d1], 1)))
        return self.out(F.interpolate(f, scale_factor=2.0, mode='bilinear', align_corners=False))


def mobilenet():
    return torchvision.models.mobilenet_v2(width_mult=0.25, num_classes=7)


def export(name, module, inputs, input_names, output_names, dynamic_axes, opset):
    torch.manual_seed(0)
    module.eval()
    # Non-trivial BatchNorm statistics, so folding them matters.
    for m in module.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.running_mean.uniform_(-0.5, 0.5)
            m.running_var.uniform_(0.5, 1.5)
    path = os.path.join(out_dir, f'{name}.onnx')
    torch.onnx.export(module, tuple(inputs), path, input_names=input_names, output_names=output_names,
                      dynamic_axes=dynamic_axes, opset_version=opset, do_constant_folding=True)
    with torch.no_grad():
        outs = module(*inputs)
    if not isinstance(outs, tuple):
        outs = (outs,)
    record = {
        'inputs': {n: {'dtype': str(t.dtype).replace('torch.', ''), 'shape': list(t.shape), 'data': t.flatten().tolist()} for n, t in zip(input_names, inputs)},
        'outputs': {n: {'shape': list(t.shape), 'data': t.flatten().tolist()} for n, t in zip(output_names, outs)},
        'opset': opset,
    }
    with open(os.path.join(out_dir, f'{name}.json'), 'w') as f:
        json.dump(record, f)
    print(f'{name}: {os.path.getsize(path)} bytes')


def main():
    torch.manual_seed(0)
    image = torch.randn(2, 3, 16, 16)
    for opset in (13, 17):
        torch.manual_seed(1)
        export(f'resnet_opset{opset}', SmallResNet(), [image], ['image'], ['logits'], {'image': {0: 'batch'}, 'logits': {0: 'batch'}}, opset)
    torch.manual_seed(2)
    export('mobilenet_v2', mobilenet(), [torch.randn(1, 3, 32, 32)], ['image'], ['logits'], {'image': {0: 'batch'}, 'logits': {0: 'batch'}}, 13)
    torch.manual_seed(3)
    tokens = torch.randint(0, 50, (2, 12))
    for opset in (13, 17):
        torch.manual_seed(4)
        export(f'transformer_opset{opset}', Encoder(), [tokens], ['tokens'], ['logits'], {'tokens': {0: 'batch', 1: 'seq'}, 'logits': {0: 'batch'}}, opset)
    torch.manual_seed(5)
    export('recurrent', Recurrent(), [torch.randn(3, 7, 6)], ['x'], ['seq', 'state'], {'x': {0: 'batch', 1: 'time'}, 'seq': {0: 'batch', 1: 'time'}, 'state': {1: 'batch'}}, 13)
    torch.manual_seed(6)
    export('unet', UNetish(), [torch.randn(2, 2, 16, 16)], ['x'], ['y'], {'x': {0: 'batch'}, 'y': {0: 'batch'}}, 17)


main()
