// The custom-op example (examples/custom-op) as `npm run example custom-op -- --smoke` runs it,
// against the built package: the fused op equals the composite on every device it found, and the
// model with the fused hidden layer learns.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runExample } from '../helpers/example-run.js';

describe('examples/custom-op (smoke run)', () => {
  it('the fused op equals the composite (values and gradients) and trains a small model', () => {
    const r = runExample('custom-op', ['--smoke']);
    assert.equal(r.steps, 30);
    const devices = ['cpu', 'webgpu'].filter((k) => r[k] !== undefined);
    assert.ok(devices.includes('cpu'), JSON.stringify(r));
    for (const key of devices) {
      const d = r[key] as { forwardDiff: number; gradientDiff: number; firstLoss: number; lastLoss: number };
      assert.ok(d.forwardDiff < 1e-4 && d.gradientDiff < 1e-4, `${key}: ${JSON.stringify(d)}`);
      assert.ok(d.lastLoss < d.firstLoss * 0.5, `${key}: loss ${d.firstLoss} -> ${d.lastLoss}`);
    }
  });
});
