# Writes test/fixtures/onnx/op-cases.json: single-node models for operators and opset versions
# that onnx 1.12's own node tests do not cover (opsets 18-20, Col2Im, AffineGrid, DeformConv, …),
# each with inputs and the expected outputs computed by PyTorch 1.13 / torchvision 0.14 / NumPy.
# Run: /usr/bin/python3 scripts/onnx/gen_op_cases.py
import base64
import json
import os

import numpy as np
import onnx
import torch
import torch.nn.functional as F
import torchvision
from onnx import helper, numpy_helper

here = os.path.dirname(os.path.abspath(__file__))
out = os.path.join(here, '..', '..', 'test', 'fixtures', 'onnx', 'op-cases.json')
rng = np.random.default_rng(0)
cases = []

ELEM = {np.dtype('float32'): 1, np.dtype('uint8'): 2, np.dtype('int8'): 3, np.dtype('int32'): 6, np.dtype('int64'): 7, np.dtype('bool'): 9, np.dtype('float64'): 11}


def case(name, op, inputs, outputs, opset, attrs=None, initializers=None, domain=''):
    """One node `op` over named numpy inputs (None marks an omitted optional input) giving `outputs`."""
    initializers = initializers or {}
    in_names = [n for n in inputs]
    node = helper.make_node(op, [n if inputs[n] is not None or n in initializers else '' for n in in_names], list(outputs), **(attrs or {}))
    graph_inputs = [helper.make_tensor_value_info(n, ELEM[v.dtype], None) for n, v in inputs.items() if v is not None and n not in initializers]
    graph_outputs = [helper.make_tensor_value_info(n, ELEM[np.asarray(v).dtype], None) for n, v in outputs.items()]
    inits = [numpy_helper.from_array(np.asarray(v), n) for n, v in initializers.items()]
    g = helper.make_graph([node], name, graph_inputs, graph_outputs, inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid(domain, opset)])
    m.ir_version = 8
    enc = lambda v: {'dtype': str(np.asarray(v).dtype), 'shape': list(np.asarray(v).shape), 'data': np.asarray(v).astype(np.float64).flatten().tolist()}
    cases.append({
        'name': name, 'op': op, 'opset': opset, 'model': base64.b64encode(m.SerializeToString()).decode(),
        'inputs': {n: enc(v) for n, v in inputs.items() if v is not None and n not in initializers},
        'outputs': {n: enc(v) for n, v in outputs.items()},
    })


def f32(*shape):
    return rng.standard_normal(shape).astype(np.float32)


t = torch.from_numpy

# Col2Im (18): torch's fold.
x = f32(1, 2 * 2 * 3, 16)
case('col2im', 'Col2Im', {'x': x, 'image': np.array([5, 6], np.int64), 'block': np.array([2, 3], np.int64)},
     {'y': F.fold(t(x), (5, 6), (2, 3), stride=1).numpy()}, 18, initializers={'image': np.array([5, 6], np.int64), 'block': np.array([2, 3], np.int64)})
x = f32(2, 2 * 3 * 3, 9)
case('col2im_strides_pads_dilations', 'Col2Im', {'x': x, 'image': None, 'block': None},
     {'y': F.fold(t(x), (5, 5), (3, 3), dilation=(1, 2), padding=(1, 1), stride=(2, 1)).numpy()[:, :, :, :]}, 18,
     attrs={'strides': [2, 1], 'dilations': [1, 2], 'pads': [1, 1, 1, 1]},
     initializers={'image': np.array([5, 5], np.int64), 'block': np.array([3, 3], np.int64)})

# AffineGrid (20): torch's affine_grid, 2-d and 3-d, both corner conventions.
for align in (0, 1):
    th = f32(2, 2, 3)
    case(f'affine_grid_2d_align{align}', 'AffineGrid', {'theta': th, 'size': None},
         {'grid': F.affine_grid(t(th), [2, 3, 4, 5], align_corners=bool(align)).numpy()}, 20,
         attrs={'align_corners': align}, initializers={'size': np.array([2, 3, 4, 5], np.int64)})
    th = f32(1, 3, 4)
    case(f'affine_grid_3d_align{align}', 'AffineGrid', {'theta': th, 'size': None},
         {'grid': F.affine_grid(t(th), [1, 1, 2, 3, 4], align_corners=bool(align)).numpy()}, 20,
         attrs={'align_corners': align}, initializers={'size': np.array([1, 1, 2, 3, 4], np.int64)})

# CenterCropPad (18): crop one axis, pad another.
x = f32(5, 4, 3)
want = np.zeros((3, 7, 3), np.float32)
want[:, 1:5, :] = x[1:4]
case('center_crop_pad', 'CenterCropPad', {'x': x, 'shape': None}, {'y': want}, 18, attrs={'axes': [0, 1]}, initializers={'shape': np.array([3, 7], np.int64)})

# DeformConv (19): torchvision's deform_conv2d, with a mask and two offset groups.
x, w, b = f32(1, 4, 6, 6), f32(6, 2, 3, 3), f32(6)
off, mask = f32(1, 2 * 2 * 9, 4, 4) * 0.5, rng.random((1, 2 * 9, 4, 4)).astype(np.float32)
y = torchvision.ops.deform_conv2d(t(x), t(off), t(w), t(b), stride=(1, 1), padding=(0, 0), dilation=(1, 1), mask=t(mask)).numpy()
case('deform_conv_mask_groups', 'DeformConv', {'x': x, 'w': w, 'offset': off, 'b': b, 'mask': mask}, {'y': y}, 19, attrs={'group': 2, 'offset_group': 2, 'kernel_shape': [3, 3]})
off, w2 = f32(1, 2 * 9, 3, 3) * 0.5, f32(3, 4, 3, 3)
y = torchvision.ops.deform_conv2d(t(x), t(off), t(w2), None, stride=(2, 2), padding=(1, 1)).numpy()
case('deform_conv_stride_pad', 'DeformConv', {'x': x, 'w': w2, 'offset': off}, {'y': y}, 19, attrs={'strides': [2, 2], 'pads': [1, 1, 1, 1]})

# MaxRoiPool: torchvision's roi_pool.
x = f32(2, 3, 8, 8)
rois = np.array([[0, 0, 0, 7, 7], [1, 2, 1, 5, 6], [0, 1.4, 2.6, 3.2, 3.9]], np.float32)
y = torchvision.ops.roi_pool(t(x), t(rois), (2, 3), 0.5).numpy()
case('max_roi_pool', 'MaxRoiPool', {'x': x, 'rois': rois}, {'y': y}, 17, attrs={'pooled_shape': [2, 3], 'spatial_scale': 0.5})

# Opset 18 forms: Reduce* with axes inputs, Split num_outputs, Pad with axes, Bitwise*, Mish, GroupNormalization.
x = f32(2, 3, 4)
for op, fn in (('ReduceMax', np.max), ('ReduceL2', lambda a, axis, keepdims: np.sqrt(np.sum(a * a, axis=axis, keepdims=keepdims))), ('ReduceLogSumExp', lambda a, axis, keepdims: np.log(np.sum(np.exp(a), axis=axis, keepdims=keepdims)))):
    case(f'{op.lower()}_axes_input', op, {'x': x, 'axes': None}, {'y': fn(x, axis=(0, 2), keepdims=False).astype(np.float32)}, 18, attrs={'keepdims': 0}, initializers={'axes': np.array([0, -1], np.int64)})
x = f32(7, 2)
parts = [x[0:3], x[3:6], x[6:7]]
case('split_num_outputs', 'Split', {'x': x}, {f'y{i}': p for i, p in enumerate(parts)}, 18, attrs={'num_outputs': 3, 'axis': 0})
x = f32(3, 4)
case('pad_axes_wrap', 'Pad', {'x': x, 'pads': None, 'value': None, 'axes': None}, {'y': np.pad(x, ((0, 0), (2, 1)), mode='wrap')}, 19,
     attrs={'mode': 'wrap'}, initializers={'pads': np.array([2, 1], np.int64), 'axes': np.array([1], np.int64)})
a, b = rng.integers(-100, 100, (3, 4)).astype(np.int32), rng.integers(-100, 100, (4,)).astype(np.int32)
case('bitwise_and', 'BitwiseAnd', {'a': a, 'b': b}, {'y': a & b}, 18)
case('bitwise_or', 'BitwiseOr', {'a': a, 'b': b}, {'y': a | b}, 18)
case('bitwise_xor', 'BitwiseXor', {'a': a, 'b': b}, {'y': a ^ b}, 18)
case('bitwise_not', 'BitwiseNot', {'a': a}, {'y': ~a}, 18)
x = f32(2, 5)
case('mish', 'Mish', {'x': x}, {'y': F.mish(t(x)).numpy()}, 18)
x, scale, bias = f32(2, 6, 3, 3), f32(3), f32(3)
y = F.group_norm(t(x), 3, t(np.repeat(scale, 2)), t(np.repeat(bias, 2)), eps=1e-5).numpy()
case('group_norm_18', 'GroupNormalization', {'x': x, 'scale': scale, 'bias': bias}, {'y': y}, 18, attrs={'num_groups': 3})
x = f32(2, 5)
case('gelu_tanh', 'Gelu', {'x': x}, {'y': F.gelu(t(x), approximate='tanh').numpy()}, 20, attrs={'approximate': 'tanh'})
case('gelu', 'Gelu', {'x': x}, {'y': F.gelu(t(x)).numpy()}, 20)
x = f32(1, 3, 2, 2)
data, idx = f32(3, 4), np.array([[1, 0, 1, 1], [0, 1, 0, 2]], np.int64)
upd = f32(2, 4)
want = data.copy()
for i in range(2):
    for j in range(4):
        want[idx[i, j], j] = max(want[idx[i, j], j], upd[i, j])
case('scatter_elements_max', 'ScatterElements', {'data': data, 'idx': idx, 'upd': upd}, {'y': want}, 18, attrs={'reduction': 'max', 'axis': 0})

# Resize (18): axes, keep_aspect_ratio_policy, antialiased linear downsampling (as PyTorch's antialias).
x = f32(1, 2, 8, 8)
y = F.interpolate(t(x), size=(3, 5), mode='bilinear', align_corners=False, antialias=True).numpy()
case('resize_antialias_linear', 'Resize', {'x': x, 'roi': None, 'scales': None, 'sizes': None}, {'y': y}, 18,
     attrs={'mode': 'linear', 'antialias': 1}, initializers={'sizes': np.array([1, 2, 3, 5], np.int64)})
y = F.interpolate(t(x), size=(4, 4), mode='nearest').numpy()
case('resize_axes_not_larger', 'Resize', {'x': x, 'roi': None, 'scales': None, 'sizes': None}, {'y': y}, 18,
     attrs={'mode': 'nearest', 'axes': [2, 3], 'keep_aspect_ratio_policy': 'not_larger', 'nearest_mode': 'floor', 'coordinate_transformation_mode': 'asymmetric'},
     initializers={'sizes': np.array([4, 6], np.int64)})

# DFT (20): the axis as an input; NumPy's fft.
x = f32(2, 6, 5, 1)
y = np.fft.fft(x[..., 0], axis=2)
case('dft_axis_input', 'DFT', {'x': x, 'n': None, 'axis': None}, {'y': np.stack([y.real, y.imag], -1).astype(np.float32)}, 20,
     initializers={'axis': np.array(2, np.int64)})

with open(out, 'w') as f:
    json.dump(cases, f)
print(f'wrote {os.path.relpath(out)}: {len(cases)} cases, {os.path.getsize(out)} bytes')
