// Hostile SafeTensors headers: a value nested 100k deep where a dtype, shape or
// data_offsets belongs is a BurnError that shows it briefly (JSON.stringify of it overflowed the
// stack and escaped as a raw RangeError).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BurnError } from '../../src/index.js';
import { bytesSource } from '../../src/record/source.js';
import { SafetensorsStore } from '../../src/store/index.js';
import { readSafetensors } from '../../src/store/safetensors/format.js';

const enc = new TextEncoder();

/** A SafeTensors file with tensor `w` whose fields are given as JSON text, plus 4 data bytes. */
function file(fields: { dtype?: string; shape?: string; data_offsets?: string }): Uint8Array {
  const f = { dtype: '"F32"', shape: '[1]', data_offsets: '[0,4]', ...fields };
  const header = enc.encode(`{"w":{"dtype":${f.dtype},"shape":${f.shape},"data_offsets":${f.data_offsets}}}`);
  const out = new Uint8Array(8 + header.length + 4);
  new DataView(out.buffer).setBigUint64(0, BigInt(header.length), true);
  out.set(header, 8);
  return out;
}

describe('SafeTensors: deeply nested header values', () => {
  const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
  for (const field of ['dtype', 'shape', 'data_offsets'] as const) {
    it(`'${field}' nested 100k deep: a BurnError naming the file and the field`, () => {
      const bytes = file({ [field]: deep });
      assert.throws(
        () => readSafetensors(bytesSource(bytes, 'deep.safetensors'), 'SafetensorsStore'),
        (e: Error) =>
          e instanceof BurnError &&
          new RegExp(`deep\\.safetensors: tensor 'w' field '${field}'.*\\[\\[\\[\\[…\\]\\]\\]\\]`).test(e.message) &&
          e.message.length < 400,
      );
      assert.throws(() => new SafetensorsStore(bytes).keys(), BurnError);
    });
  }

  it('a valid header still reads', () => {
    assert.deepEqual(
      readSafetensors(bytesSource(file({})), 'op').tensors.map((t) => [t.name, t.shape]),
      [['w', [1]]],
    );
  });
});
