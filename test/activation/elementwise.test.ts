// Every elementwise activation against PyTorch (test/fixtures/gen_activation.py), on every
// conformance device: f32 and f64 inputs, edge values (0, tiny, ±20, ±40, ±100, ±1000, NaN) and
// non-contiguous views (transposed, strided slices). Burn's formulas are used where it differs
// from PyTorch (hardSigmoid defaults, shrink's argument order; see the generator).
import { describe } from 'node:test';
import { conformanceDevices, itOn } from '../helpers/devices.js';
import { expectClose, fxTensor, loadFixture } from '../helpers/fixtures.js';
import { ELEMENTWISE, tolFor, view } from './helpers.js';

const cases = Object.entries(loadFixture('activation')).filter(
  ([, c]) => c.params?.['dim'] === undefined && c.params?.['fn'] !== 'prelu',
);

for (const entry of conformanceDevices()) {
  const { name, device } = entry;
  // On WebGPU the f64 cases stop at the BurnError refusing f64 (see itOn).
  const it = itOn(entry);
  describe(`activation (elementwise) on ${name}`, () => {
    it('covers all 24 elementwise functions', () => {
      const fns = new Set(cases.map(([, c]) => c.params!['fn'] as string));
      if (fns.size !== Object.keys(ELEMENTWISE).length) throw new Error(`fixtures cover ${fns.size} functions`);
    });
    for (const [caseName, c] of cases) {
      it(caseName, async () => {
        const p = c.params!;
        const fn = ELEMENTWISE[p['fn'] as string]!;
        const x = view(fxTensor(c.inputs['x']!, device()), p['view']);
        const y = fn(x, p['args'] as number[]);
        if (y.dtype() !== c.outputs['y']!.dtype) throw new Error(`dtype ${y.dtype()} != ${c.outputs['y']!.dtype}`);
        await expectClose(y, c.outputs['y']!, tolFor(c.outputs['y']!.dtype), caseName);
      });
    }
  });
}
