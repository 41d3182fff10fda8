import { Device, Tensor } from '../../src/index.js';
import { remoteServer, webgpu } from '../helpers/devices.js';
const d = process.argv[2] === 'webgpu' ? webgpu.device! : Device.remote(remoteServer.url);
const x = Tensor.zeros([2, 3], d);
for (const [name, f] of [
  ['A scatterNd oob + bad values', () => x.scatterNd(Tensor.fromInts([[7]], d), Tensor.zeros([5, 5], d), 'add')],
  ['B unrelated', () => Tensor.ones([2], d)],
  ['C unrelated', () => Tensor.ones([3], d)],
] as const) {
  try { const t = f(); console.log(name, 'op ok', Array.from((await t.toData()).toArray())); } catch (e) { console.log(name, 'THREW', (e as Error).message.slice(0, 160)); }
}
process.exit(0);
