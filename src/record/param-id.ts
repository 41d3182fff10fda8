/**
 * Parameter ids in files. burn-ts ids are a u64 as 16 hex digits (Burn's `ParamId` is a u64):
 * burnpack stores the u64, Burn's older recorders its base32 text (`BASE32_DNSSEC` of the
 * little-endian bytes, 13 characters).
 */

const MASK = (1n << 64n) - 1n;

/** The u64 of an id: its hex value, or a 64-bit FNV-1a hash for ids not written by burn-ts. */
export function paramIdToU64(id: string): bigint {
  if (/^[0-9a-f]{1,16}$/.test(id)) return BigInt(`0x${id}`);
  let h = 0xcbf29ce484222325n;
  for (const b of new TextEncoder().encode(id)) h = ((h ^ BigInt(b)) * 0x100000001b3n) & MASK;
  return h;
}

/** The id of a u64: 16 hex digits. */
export function u64ToParamId(value: bigint): string {
  return (value & MASK).toString(16).padStart(16, '0');
}

const ALPHABET = '0123456789abcdefghijklmnopqrstuv';

/** Burn's text form of a u64 id (base32, DNSSEC alphabet, no padding, of the 8 little-endian bytes). */
export function paramIdToBase32(id: string): string {
  let v = paramIdToU64(id);
  const bytes: number[] = [];
  for (let i = 0; i < 8; i++) {
    bytes.push(Number(v & 0xffn));
    v >>= 8n;
  }
  let bits = 0;
  let acc = 0;
  let out = '';
  for (const b of bytes) {
    acc = (acc << 8) | b;
    bits += 8;
    while (bits >= 5) {
      out += ALPHABET[(acc >> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += ALPHABET[(acc << (5 - bits)) & 31];
  return out;
}

/** Parses Burn's base32 id text (or a burn-ts hex id); undefined when it is neither. */
export function paramIdFromText(text: string): string | undefined {
  if (/^[0-9a-f]{16}$/.test(text)) return text;
  if (!/^[0-9a-v]{1,13}$/.test(text)) return undefined;
  let acc = 0n;
  let bits = 0n;
  const bytes: number[] = [];
  for (const c of text) {
    acc = (acc << 5n) | BigInt(ALPHABET.indexOf(c));
    bits += 5n;
    if (bits >= 8n) {
      bytes.push(Number((acc >> (bits - 8n)) & 0xffn));
      bits -= 8n;
    }
  }
  let v = 0n;
  bytes.slice(0, 8).forEach((b, i) => (v |= BigInt(b) << BigInt(8 * i)));
  return u64ToParamId(v);
}

/** A fresh random id (16 hex digits), for tensors saved without one. */
export function newIdText(): string {
  const w = new Uint32Array(2);
  globalThis.crypto.getRandomValues(w);
  return `${w[0]!.toString(16).padStart(8, '0')}${w[1]!.toString(16).padStart(8, '0')}`;
}
