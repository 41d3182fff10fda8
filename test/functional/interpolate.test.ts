// functional.interpolate (4 modes x alignCorners, up and down) and Tensor.gridSample2d (modes,
// padding modes, alignCorners) against PyTorch. Burn's alignCorners defaults to true (PyTorch:
// false); the nearest modes ignore it in both.
import { describe, it } from 'node:test';
import { functional, type InterpolateMode } from '../../src/index.js';
import { conformanceDevices } from '../helpers/devices.js';
import { expectClose } from '../helpers/fixtures.js';
import { fcase, input, output } from './helpers.js';

const TOL = { rtol: 1e-5, atol: 1e-5 };
const SIZES: [number, number][] = [
  [7, 8],
  [3, 2],
  [1, 1],
];

for (const { name, device } of conformanceDevices()) {
  describe(`functional interpolate / gridSample2d on ${name}`, () => {
    const c = fcase('interpolate');
    for (const [h, w] of SIZES) {
      const tag = `${h}x${w}`;
      for (const mode of ['nearest', 'nearest-exact'] as InterpolateMode[]) {
        it(`${mode} to ${tag} (alignCorners ignored)`, async () => {
          const x = input<4>(c, 'x', device());
          for (const alignCorners of [true, false]) {
            await expectClose(functional.interpolate(x, [h, w], { mode, alignCorners }), output(c, `${mode}_${tag}`), {
              rtol: 0,
              atol: 0,
            });
          }
        });
      }
      for (const mode of ['bilinear', 'bicubic'] as InterpolateMode[]) {
        for (const alignCorners of [true, false]) {
          it(`${mode} alignCorners=${alignCorners} to ${tag}`, async () => {
            const y = functional.interpolate(input<4>(c, 'x', device()), [h, w], { mode, alignCorners });
            await expectClose(y, output(c, `${mode}_${alignCorners ? 'align' : 'noalign'}_${tag}`), TOL);
          });
        }
      }
    }
    it("defaults to mode 'nearest' and Burn's alignCorners = true", async () => {
      const x = input<4>(c, 'x', device());
      await expectClose(functional.interpolate(x, [7, 8]), output(c, 'nearest_7x8'), { rtol: 0, atol: 0 });
      await expectClose(functional.interpolate(x, [7, 8], { mode: 'bilinear' }), output(c, 'bilinear_align_7x8'), TOL);
    });

    const g = fcase('grid_sample');
    for (const mode of ['bilinear', 'nearest'] as const) {
      for (const paddingMode of ['zeros', 'border', 'reflection'] as const) {
        for (const alignCorners of [true, false]) {
          it(`gridSample2d ${mode} ${paddingMode} alignCorners=${alignCorners}`, async () => {
            const dev = device();
            const y = input<4>(g, 'x', dev).gridSample2d(input<4>(g, 'grid', dev), { mode, paddingMode, alignCorners });
            await expectClose(y, output(g, `${mode}_${paddingMode}_${alignCorners ? 'align' : 'noalign'}`), TOL);
          });
        }
      }
    }
  });
}
