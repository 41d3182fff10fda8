// Reads test/fixtures/onnx/node-tests.tar.gz (written by scripts/onnx/gen_node_tests.py) into
// memory: a gzip'd USTAR archive of <test>/model.onnx and <test>/test_data_set_N/{input,output}_K.pb.
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'fflate';
import type { NodeTest } from './conformance-harness.js';

/** Path of the committed bundle. */
export const BUNDLE = new URL('../fixtures/onnx/node-tests.tar.gz', import.meta.url);

function text(bytes: Uint8Array, start: number, length: number): string {
  const end = bytes.indexOf(0, start);
  return new TextDecoder().decode(bytes.subarray(start, end >= 0 && end < start + length ? end : start + length));
}

/** The files of a USTAR archive by path. */
export function untar(tar: Uint8Array): Map<string, Uint8Array> {
  const files = new Map<string, Uint8Array>();
  let off = 0;
  while (off + 512 <= tar.length) {
    const name = text(tar, off, 100);
    if (name === '') break;
    const prefix = text(tar, off + 345, 155);
    const size = parseInt(text(tar, off + 124, 12).trim() || '0', 8);
    const type = String.fromCharCode(tar[off + 156]!);
    const path = prefix ? `${prefix}/${name}` : name;
    if (type === '0' || type === '\0') files.set(path, tar.subarray(off + 512, off + 512 + size));
    off += 512 + Math.ceil(size / 512) * 512;
  }
  return files;
}

/** Every node test of the bundle, sorted by name (optionally only names containing `filter`). */
export function loadNodeTests(filter?: string): NodeTest[] {
  const files = untar(gunzipSync(readFileSync(BUNDLE)));
  const byTest = new Map<string, Map<string, Uint8Array>>();
  for (const [path, bytes] of files) {
    const slash = path.indexOf('/');
    const test = path.slice(0, slash);
    if (filter && !test.includes(filter)) continue;
    let m = byTest.get(test);
    if (!m) byTest.set(test, (m = new Map()));
    m.set(path.slice(slash + 1), bytes);
  }
  const num = (s: string) => Number(/(\d+)\.pb$/.exec(s)?.[1] ?? 0);
  return [...byTest.keys()].sort().map((name) => {
    const m = byTest.get(name)!;
    const setNames = [
      ...new Set([...m.keys()].filter((k) => k.startsWith('test_data_set_')).map((k) => k.split('/')[0]!)),
    ].sort();
    const sets = setNames.map((s) => {
      const pick = (kind: string) =>
        [...m.keys()]
          .filter((k) => k.startsWith(`${s}/${kind}_`))
          .sort((a, b) => num(a) - num(b))
          .map((k) => m.get(k)!);
      return { inputs: pick('input'), outputs: pick('output') };
    });
    return { name, model: m.get('model.onnx')!, sets };
  });
}
