// How items travel from worker threads: nested number arrays packed into one transferred
// Float64Array, everything else by structured clone — the items must come back equal.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeItems, encodeItems } from '../../src/data/dataloader/item-codec.js';

describe('item codec', () => {
  it('round-trips items of every shape through a structured clone', () => {
    const image = Array.from({ length: 28 }, (_, y) => Array.from({ length: 28 }, (_, x) => (x * y) % 256));
    const items: unknown[] = [
      { image, label: 7 },
      { features: [1.5, -0, NaN, Infinity, 2 ** 60, -3, 0.1, 5, 6, 7, 8, 9, 10, 11, 12, 13], name: 'x' },
      { ragged: [[1, 2], [3]], mixed: [1, 'a', 2], short: [1, 2, 3], empty: [], nested: { deep: [image, image] } },
      [image[0], image[1]],
      'just a string',
      42,
      null,
      { bytes: new Uint8Array([1, 2, 3]), date: new Date(0), u: undefined },
      Array.from({ length: 2 }, () => Array.from({ length: 3 }, () => [1, 2, 3])),
    ];
    const expected = structuredClone(items); // encoding transfers (detaches) the typed arrays' buffers
    const { encoded, transfer } = encodeItems(items);
    assert.ok(transfer.includes(encoded.numbers.buffer as ArrayBuffer));
    assert.equal(
      encoded.numbers.length,
      784 + 16 + 2 * 784 + 2 * 28 + 18,
      'the image, the features, the two nested images, the two rows, the 2×3×3 block',
    );
    const back = decodeItems(structuredClone(encoded, { transfer }));
    assert.deepEqual(back, expected);
    assert.equal((items[7] as { bytes: Uint8Array }).bytes.length, 0, 'an owned typed array was moved, not copied');
    assert.ok(Object.is((back[1] as { features: number[] }).features[1], -0));
  });
});
