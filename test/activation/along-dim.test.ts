// softmax, softmin, logSoftmax, quietSoftmax and glu against PyTorch (gen_activation.py; quietSoftmax
// uses Burn's formula computed from torch ops), and prelu against F.prelu, on every conformance
// device: every dim (positive and negative), f64, transposed inputs, large values and -inf.
import { describe } from 'node:test';
import { activation, type Tensor } from '../../src/index.js';
import { conformanceDevices, itOn } from '../helpers/devices.js';
import { expectClose, fxTensor, loadFixture } from '../helpers/fixtures.js';
import { ALONG_DIM, tolFor, view } from './helpers.js';

const all = Object.entries(loadFixture('activation'));
const alongDim = all.filter(([, c]) => c.params?.['dim'] !== undefined);
const prelu = all.filter(([, c]) => c.params?.['fn'] === 'prelu');

for (const entry of conformanceDevices()) {
  const { name, device } = entry;
  // On WebGPU the f64 cases stop at the BurnError refusing f64 (see itOn).
  const it = itOn(entry);
  describe(`activation (along a dim) on ${name}`, () => {
    for (const [caseName, c] of alongDim) {
      it(caseName, async () => {
        const p = c.params!;
        const x = view(fxTensor(c.inputs['x']!, device()), p['view']);
        const y = ALONG_DIM[p['fn'] as string]!(x, p['dim'] as number);
        await expectClose(y, c.outputs['y']!, tolFor(c.outputs['y']!.dtype), caseName);
      });
    }
    for (const [caseName, c] of prelu) {
      it(caseName, async () => {
        const x = fxTensor(c.inputs['x']!, device());
        const alpha = fxTensor<1>(c.inputs['alpha']!, device());
        await expectClose(activation.prelu(x, alpha), c.outputs['y']!, tolFor(c.outputs['y']!.dtype), caseName);
      });
    }
    it('prelu keeps the input rank and broadcasts one weight per channel over the other dims', async () => {
      const x = fxTensor<3>(prelu[0]![1].inputs['x']!, device());
      const y: Tensor<3> = activation.prelu(x, fxTensor<1>(prelu[1]![1].inputs['alpha']!, device()));
      if (y.dims().join() !== '2,3,4') throw new Error(`shape ${y.dims()}`);
    });
  });
}
