# Writes test/fixtures/onnx/opset23-cases.json: inputs, attributes and expected outputs for the
# opset-23 operators onnx 1.12 cannot build or check (Attention, RMSNormalization,
# RotaryEmbedding). The expected values are computed with PyTorch 1.13 straight from the operator
# definitions (written out, no ONNX code involved); test/onnx/opset23.test.ts builds the one-node
# models with test/onnx/builder.ts.
# Run: /usr/bin/python3 scripts/onnx/gen_opset23_cases.py
import json
import math
import os

import torch

here = os.path.dirname(os.path.abspath(__file__))
out = os.path.join(here, '..', '..', 'test', 'fixtures', 'onnx', 'opset23-cases.json')
g = torch.Generator().manual_seed(0)
cases = []


def randn(*shape):
    return torch.randn(*shape, generator=g)


def enc(t):
    dtype = {torch.float32: 'float32', torch.int64: 'int64', torch.bool: 'bool'}[t.dtype]
    # JSON has no infinities: they are written as the strings 'inf' / '-inf'.
    data = [v if math.isfinite(v) else ('inf' if v > 0 else '-inf') for v in t.double().flatten().tolist()]
    return {'dtype': dtype, 'shape': list(t.shape), 'data': data}


def case(name, op, inputs, outputs, attrs=None):
    """`inputs`: (name, tensor or None for an omitted slot) in input order; `outputs` likewise (None: not requested)."""
    cases.append({
        'name': name, 'op': op, 'attrs': attrs or {},
        'inputs': [[n, enc(t) if t is not None else None] for n, t in inputs],
        'outputs': [[n, enc(t) if t is not None else None] for n, t in outputs],
    })


# --- RMSNormalization: x / sqrt(mean(x^2 over axis..last) + eps) * scale ---
def rms(x, scale, axis=-1, eps=1e-5):
    axes = list(range(axis % x.dim(), x.dim()))
    return x / torch.sqrt((x * x).mean(dim=axes, keepdim=True) + eps) * scale


x, s = randn(2, 3, 8), randn(8)
case('rms_norm_last_axis', 'RMSNormalization', [('X', x), ('scale', s)], [('Y', rms(x, s))])
x, s = randn(2, 3, 4, 5), randn(4, 5)
case('rms_norm_axis2_eps', 'RMSNormalization', [('X', x), ('scale', s)], [('Y', rms(x, s, 2, 1e-2))], {'axis': 2, 'epsilon': {'float': 1e-2}})


# --- RotaryEmbedding ---
def rotary(x, cos_cache, sin_cache, position_ids=None, interleaved=False, rot=0, num_heads=0):
    shape = x.shape
    if x.dim() == 4:
        t = x.transpose(1, 2)  # [B, S, H, D]
    else:
        t = x.reshape(shape[0], shape[1], num_heads, shape[2] // num_heads)
    d = t.shape[3]
    rot = rot or d
    half = rot // 2
    cos = cos_cache[position_ids] if position_ids is not None else cos_cache
    sin = sin_cache[position_ids] if position_ids is not None else sin_cache
    cos = cos[:, :, :half].unsqueeze(2)
    sin = sin[:, :, :half].unsqueeze(2)
    xr, xp = t[..., :rot], t[..., rot:]
    if interleaved:
        x1, x2 = xr[..., 0::2], xr[..., 1::2]
    else:
        x1, x2 = xr[..., :half], xr[..., half:]
    real = cos * x1 - sin * x2
    imag = sin * x1 + cos * x2
    if interleaved:
        r = torch.stack([real, imag], -1).reshape(xr.shape)
    else:
        r = torch.cat([real, imag], -1)
    o = torch.cat([r, xp], -1)
    return o.transpose(1, 2) if x.dim() == 4 else o.reshape(shape)


def caches(positions, dim):
    inv = 1.0 / (10000 ** (torch.arange(0, dim, 2).float() / dim))
    ang = torch.arange(positions).float()[:, None] * inv[None, :]
    return torch.cos(ang), torch.sin(ang)


x = randn(2, 3, 4, 8)  # [B, H, S, D]
cos, sin = caches(10, 8)
pos = torch.tensor([[0, 1, 2, 3], [5, 6, 7, 8]])
case('rotary_4d_position_ids', 'RotaryEmbedding', [('X', x), ('cos', cos), ('sin', sin), ('pos', pos)], [('Y', rotary(x, cos, sin, pos))])
x = randn(2, 5, 12)  # [B, S, H*D], 2 heads of 6
cos, sin = caches(5, 6)
cb, sb = cos.unsqueeze(0).expand(2, 5, 3).contiguous(), sin.unsqueeze(0).expand(2, 5, 3).contiguous()
case('rotary_3d_interleaved', 'RotaryEmbedding', [('X', x), ('cos', cb), ('sin', sb)], [('Y', rotary(x, cb, sb, None, True, 0, 2))], {'interleaved': 1, 'num_heads': 2})
x = randn(1, 2, 3, 8)
cos, sin = caches(6, 8)
pos = torch.tensor([[1, 3, 5]])
case('rotary_partial_dim', 'RotaryEmbedding', [('X', x), ('cos', cos), ('sin', sin), ('pos', pos)], [('Y', rotary(x, cos, sin, pos, False, 4))], {'rotary_embedding_dim': 4})


# --- Attention ---
def attend(q, k, v, mask=None, past_k=None, past_v=None, scale=None, causal=False, q_heads=None, kv_heads=None, softcap=0.0, mode=0):
    three = q.dim() == 3
    if three:
        def split(t, h):
            b, s, hid = t.shape
            return t.reshape(b, s, h, hid // h).transpose(1, 2)
        q, k, v = split(q, q_heads), split(k, kv_heads), split(v, kv_heads)
    if past_k is not None:
        k = torch.cat([past_k, k], 2)
        v = torch.cat([past_v, v], 2)
    present_k, present_v = k, v
    L, S = q.shape[2], k.shape[2]
    reps = q.shape[1] // k.shape[1]
    k = k.repeat_interleave(reps, 1)
    v = v.repeat_interleave(reps, 1)
    scale = 1 / math.sqrt(q.shape[3]) if scale is None else scale
    raw = (q * scale) @ k.transpose(2, 3)
    s = softcap * torch.tanh(raw / softcap) if softcap > 0 else raw
    capped = s
    bias = torch.zeros(L, S)
    if mask is not None:
        if mask.shape[-1] < S:
            pad = torch.zeros(*mask.shape[:-1], S - mask.shape[-1], dtype=mask.dtype)
            mask = torch.cat([mask, pad if mask.dtype == torch.bool else pad - math.inf], -1)
        bias = bias + (torch.where(mask, 0.0, -math.inf) if mask.dtype == torch.bool else mask)
    if causal:
        offset = past_k.shape[2] if past_k is not None else 0
        j = torch.arange(S)[None, :]
        i = torch.arange(L)[:, None]
        bias = bias + torch.where(j <= i + offset, 0.0, -math.inf)
    s = s + bias
    p = torch.softmax(s, -1)
    y = p @ v
    if three:
        y = y.transpose(1, 2).reshape(y.shape[0], L, -1)
    qk = [raw, s, capped, p][mode]
    return y, present_k, present_v, qk


q, k, v = randn(2, 3, 4, 8), randn(2, 3, 6, 8), randn(2, 3, 6, 5)
y, *_ = attend(q, k, v)
case('attention_4d', 'Attention', [('Q', q), ('K', k), ('V', v)], [('Y', y)])
y, *_ = attend(q, k, v, scale=0.1, softcap=2.0)
case('attention_scale_softcap', 'Attention', [('Q', q), ('K', k), ('V', v)], [('Y', y)], {'scale': {'float': 0.1}, 'softcap': {'float': 2.0}})
q, k, v = randn(2, 4, 16), randn(2, 6, 8), randn(2, 6, 8)  # 4 query heads of 4, 2 key/value heads
y, *_ = attend(q, k, v, q_heads=4, kv_heads=2)
case('attention_3d_gqa', 'Attention', [('Q', q), ('K', k), ('V', v)], [('Y', y)], {'q_num_heads': 4, 'kv_num_heads': 2})
q, k, v = randn(2, 2, 3, 4), randn(2, 2, 5, 4), randn(2, 2, 5, 4)
m = torch.rand(2, 1, 3, 5, generator=g) > 0.3
m[..., 0] = True
y, *_ = attend(q, k, v, mask=m)
case('attention_bool_mask', 'Attention', [('Q', q), ('K', k), ('V', v), ('mask', m)], [('Y', y)])
fm = randn(3, 4)  # float mask over the first 4 of 5 keys: the last is padded as masked
y, *_ = attend(q, k, v, mask=fm)
case('attention_float_mask_padded', 'Attention', [('Q', q), ('K', k), ('V', v), ('mask', fm)], [('Y', y)])
y, *_ = attend(q, k, v, causal=True)
case('attention_causal_upper_left', 'Attention', [('Q', q), ('K', k), ('V', v)], [('Y', y)], {'is_causal': 1})
q, k, v = randn(1, 2, 4, 4), randn(1, 2, 4, 4), randn(1, 2, 4, 4)
y, *_ = attend(q, k, v, causal=True)
case('attention_causal_square', 'Attention', [('Q', q), ('K', k), ('V', v)], [('Y', y)], {'is_causal': 1})
q, k, v, pk, pv = randn(1, 2, 2, 4), randn(1, 2, 2, 4), randn(1, 2, 2, 4), randn(1, 2, 3, 4), randn(1, 2, 3, 4)
y, prk, prv, _ = attend(q, k, v, past_k=pk, past_v=pv, causal=True)
case('attention_kv_cache_causal', 'Attention', [('Q', q), ('K', k), ('V', v), ('mask', None), ('past_key', pk), ('past_value', pv)],
     [('Y', y), ('present_key', prk), ('present_value', prv)], {'is_causal': 1})
q, k, v = randn(1, 2, 3, 4), randn(1, 2, 5, 4), randn(1, 2, 5, 4)
m = torch.rand(1, 1, 3, 5, generator=g) > 0.3
m[..., 0] = True
for mode in (0, 1, 3):
    y, _, _, qk = attend(q, k, v, mask=m, mode=mode)
    case(f'attention_qk_output_mode{mode}', 'Attention', [('Q', q), ('K', k), ('V', v), ('mask', m)],
         [('Y', y), ('present_key', None), ('present_value', None), ('qk', qk)], {'qk_matmul_output_mode': mode})

with open(out, 'w') as f:
    json.dump(cases, f)
print(f'{len(cases)} cases -> {os.path.relpath(out)}')
