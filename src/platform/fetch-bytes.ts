import { BurnError } from '../core/errors.js';

/**
 * The body of `url` as bytes through `fetch` (browsers, Node >= 18); a failed request or an HTTP
 * error is a BurnError of `op` naming the URL and the status.
 */
export async function fetchBytes(url: string | URL, op: string): Promise<Uint8Array> {
  const href = typeof url === 'string' ? url : url.href;
  let response: Response;
  try {
    response = await fetch(url);
  } catch (e) {
    throw new BurnError(op, `cannot fetch '${href}': ${(e as Error).message}`);
  }
  if (!response.ok)
    throw new BurnError(
      op,
      `cannot fetch '${href}': HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`,
    );
  return new Uint8Array(await response.arrayBuffer());
}
