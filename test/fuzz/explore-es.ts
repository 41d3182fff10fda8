import { Device, Tensor } from '../../src/index.js';
import { remoteServer, webgpu } from '../helpers/devices.js';
const devs: [string, Device][] = [['js', Device.cpu({ engine: 'js' })], ['native', Device.cpu({ engine: 'native' })], ['remote', Device.remote(remoteServer.url + '/es')], ['webgpu', webgpu.device!]];
for (const [dn, d] of devs) {
  const out: string[] = [];
  for (const [name, f] of [
    ['select', () => Tensor.zeros([3, 0], d).select(0, Tensor.fromInts([5], d))],
    ['take', () => Tensor.zeros([3, 0], d).take(0, Tensor.fromInts([5], d))],
    ['gather', () => Tensor.zeros([3, 0], d).gather(0, Tensor.zeros([1, 0], { device: d, dtype: 'i32' }) as never)],
    ['gatherNd', () => Tensor.zeros([3, 0], d).gatherNd(Tensor.fromInts([[5]], d))],
    ['scatterNd', () => Tensor.zeros([3, 0], d).scatterNd(Tensor.fromInts([[5]], d), Tensor.zeros([1, 0], d), 'add')],
    ['selectAssign', () => Tensor.zeros([3, 0], d).selectAssign(0, Tensor.fromInts([5], d), Tensor.zeros([1, 0], d), 'add')],
    ['embedding-like take 2d', () => Tensor.zeros([3, 0], d).take(0, Tensor.fromInts([[5, 1]], d))],
  ] as const) {
    try { await (f() as Tensor<number>).toData(); out.push(`${name}:ok`); } catch (e) { out.push(`${name}:ERR`); }
  }
  console.log(dn.padEnd(8), out.join('  '));
}
process.exit(0);
