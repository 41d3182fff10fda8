import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { crc32, crc32Js } from '../../src/store/pytorch/zip.js';

describe('ZIP CRC-32', () => {
  it('gives the standard check value and the known values of short inputs', () => {
    const ascii = (s: string) => new TextEncoder().encode(s);
    for (const f of [crc32, crc32Js]) {
      assert.equal(f(ascii('123456789')), 0xcbf43926);
      assert.equal(f(new Uint8Array(0)), 0);
      assert.equal(f(ascii('a')), 0xe8b7be43);
      assert.equal(f(ascii('The quick brown fox jumps over the lazy dog')), 0x414fa339);
    }
  });

  it('the JavaScript fallback (slicing by 8) equals the bytewise definition at every length and offset, chained or not', () => {
    const table = Array.from({ length: 256 }, (_, n) => {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      return c >>> 0;
    });
    const bytewise = (d: Uint8Array, crc = 0) => {
      let c = ~crc >>> 0;
      for (const b of d) c = (table[(c ^ b) & 0xff]! ^ (c >>> 8)) >>> 0;
      return ~c >>> 0;
    };
    const data = Uint8Array.from({ length: 4099 }, (_, i) => (i * 2654435761) >>> 13);
    for (const offset of [0, 1, 3, 7]) {
      for (const n of [0, 1, 7, 8, 9, 15, 16, 17, 63, 64, 65, 1000, 4090]) {
        const part = data.subarray(offset, offset + n);
        assert.equal(crc32Js(part), bytewise(part), `n=${n} offset=${offset}`);
        assert.equal(crc32(part), bytewise(part), `n=${n} offset=${offset} (zlib where Node has it)`);
        assert.equal(
          crc32Js(data.subarray(offset + n, offset + n + 5), crc32Js(part)),
          bytewise(data.subarray(offset, offset + n + 5)),
          `chained n=${n}`,
        );
      }
    }
  });
});
