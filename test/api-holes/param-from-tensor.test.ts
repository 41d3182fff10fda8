// Param.fromTensor, Burn's name (Param::from_tensor) for Param.from.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Device, Param, Tensor } from '../../src/index.js';

describe('Param.fromTensor', () => {
  const d = Device.cpu({ engine: 'js' }).autodiff();
  it('holds the tensor with a new id and requires grad for a float tensor', async () => {
    const t = Tensor.fromFloats(
      [
        [1, 2],
        [3, 4],
      ],
      d,
    );
    const p = Param.fromTensor(t);
    const q = Param.fromTensor(t);
    assert.ok(p instanceof Param);
    assert.notEqual(p.id, q.id);
    assert.match(p.id, /^[0-9a-f]{16}$/);
    assert.equal(p.requireGrad, true);
    assert.deepEqual(Array.from((await p.val().toData()).toArray()), [1, 2, 3, 4]);
    // A leaf of the graph: its gradient comes back.
    const grads = p.val().mul(3).sum().backward();
    assert.deepEqual(Array.from((await p.val().grad(grads)!.toData()).toArray()), [3, 3, 3, 3]);
  });
  it('takes the options of Param.from (id, requireGrad)', () => {
    const p = Param.fromTensor(Tensor.fromFloats([1], d), { id: '00000000000000ab', requireGrad: false });
    assert.equal(p.id, '00000000000000ab');
    assert.equal(p.requireGrad, false);
    assert.equal(p.val().isRequireGrad(), false);
    assert.equal(Param.fromTensor(Tensor.fromInts([1], d)).requireGrad, false, 'an int tensor never requires grad');
  });
});
