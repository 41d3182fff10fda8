// Runs the ONNX backend node tests of test/fixtures/onnx/node-tests.tar.gz and prints each test
// that does not pass, with the reason, then the totals.
//   node --import tsx scripts/onnx/node-tests.ts [name filter] [-v]
//   BURN_ONNX_DEVICE=webgpu runs them on WebGPU (needs the webgpu package and an adapter).
import { Device } from '../../src/index.js';
import { runNodeTest } from '../../test/onnx/conformance-harness.js';
import { loadNodeTests } from '../../test/onnx/node-tests-bundle.js';

const device = process.env.BURN_ONNX_DEVICE === 'webgpu' ? await Device.webgpu() : Device.cpu();
const tests = loadNodeTests(process.argv[2]);
const counts = { pass: 0, fail: 0, unsupported: 0 };
for (const t of tests) {
  const start = performance.now();
  const r = await runNodeTest(t, device);
  counts[r.status]++;
  const ms = performance.now() - start;
  if (r.status !== 'pass' || process.argv[3] === '-v')
    console.log(`${r.status.padEnd(11)} ${r.name} (${ms.toFixed(0)} ms) ${r.detail ?? ''}`);
}
console.log(
  `pass ${counts.pass}, fail ${counts.fail}, unsupported ${counts.unsupported} of ${tests.length} (${((100 * counts.pass) / Math.max(1, tests.length)).toFixed(1)}%)`,
);
