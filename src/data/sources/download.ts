import { createHash } from 'node:crypto';
import { createReadStream, mkdirSync, statSync } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { BurnError } from '../../core/errors.js';

/** Progress of a download, reported to a callback. */
export interface DownloadProgress {
  /** Bytes in the file so far (including those of a resumed earlier attempt). */
  readonly received: number;
  /** Total size, when the server says. */
  readonly total: number | undefined;
  /** Bytes already present from an interrupted earlier attempt. */
  readonly resumedFrom: number;
}

/** Options of {@link downloadFile}. */
export interface DownloadOptions {
  /** Expected MD5 of the file (hex); a mismatch deletes the download and throws. */
  readonly md5?: string;
  /** Expected SHA-256 of the file (hex). */
  readonly sha256?: string;
  /** A progress bar on stderr (default: when stderr is a TTY), or a callback. */
  readonly progress?: boolean | ((progress: DownloadProgress) => void);
  /** Name shown in the progress bar; default: the file name of the URL. */
  readonly label?: string;
  /** Cancels the download (what was received is kept for a later resume). */
  readonly signal?: AbortSignal;
  /**
   * The largest file accepted, in bytes; default {@link DEFAULT_DOWNLOAD_MAX_BYTES}. A server
   * announcing more is refused before anything is written, and a response that goes on past it
   * is cut and deleted.
   */
  readonly maxBytes?: number;
}

/** The default of {@link DownloadOptions.maxBytes}: 1 GiB. */
export const DEFAULT_DOWNLOAD_MAX_BYTES = 2 ** 30;

/** The outcome of {@link downloadFile}. */
export interface DownloadResult {
  readonly path: string;
  readonly bytes: number;
  /** Bytes that came from an earlier, interrupted attempt (0 when the download started afresh). */
  readonly resumedFrom: number;
}

function formatBytes(n: number): string {
  if (n >= 1048576) return `${(n / 1048576).toFixed(1)} MB`;
  if (n >= 1024) return `${(n / 1024).toFixed(1)} kB`;
  return `${n} B`;
}

/** One line of the progress bar: `label [=====>    ]  45%  4.5 MB / 9.9 MB`. */
export function renderProgressBar(label: string, received: number, total: number | undefined, width = 30): string {
  if (total === undefined || total <= 0) return `${label} ${formatBytes(received)}`;
  const fraction = Math.min(1, received / total);
  const filled = Math.floor(fraction * width);
  const bar = '='.repeat(filled) + (filled < width ? '>' + ' '.repeat(width - filled - 1) : '');
  return `${label} [${bar}] ${String(Math.floor(fraction * 100)).padStart(3)}%  ${formatBytes(received)} / ${formatBytes(total)}`;
}

async function hashFile(path: string, algorithm: 'md5' | 'sha256'): Promise<string> {
  const hash = createHash(algorithm);
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

function sizeOf(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

/**
 * Downloads `url` to `dest`: into `dest.part`, then renamed to `dest` once complete and verified
 * (an interrupted or failed download never leaves a partial `dest`). When `dest.part` exists from
 * an interrupted attempt, the download resumes with an HTTP `Range` request (and starts over if
 * the server ignores it). With `md5`/`sha256`, the checksum is verified before the rename; a
 * mismatch deletes the download and throws a `BurnError`. A file over `maxBytes` (default 1 GiB)
 * is refused (see {@link DownloadOptions.maxBytes}). Shows a progress bar on a TTY.
 */
export async function downloadFile(url: string, dest: string, options: DownloadOptions = {}): Promise<DownloadResult> {
  const op = 'downloadFile';
  const maxBytes = options.maxBytes ?? DEFAULT_DOWNLOAD_MAX_BYTES;
  if (!Number.isSafeInteger(maxBytes) || maxBytes < 1)
    throw new BurnError(op, `maxBytes ${maxBytes}; expected a positive integer`);
  const tooBig = (what: string): BurnError =>
    new BurnError(
      op,
      `${url}: ${what}, over the limit of ${maxBytes} bytes; pass a larger maxBytes option to download it`,
    );
  const part = `${dest}.part`;
  const label = options.label ?? url.split('/').pop() ?? url;
  mkdirSync(dirname(dest), { recursive: true });
  const report = typeof options.progress === 'function' ? options.progress : undefined;
  const bar = options.progress === true || (options.progress === undefined && process.stderr.isTTY === true);

  let start = sizeOf(part);
  let response: Response;
  try {
    response = await fetch(url, {
      headers: start > 0 ? { Range: `bytes=${start}-` } : {},
      ...(options.signal ? { signal: options.signal } : {}),
    });
  } catch (e) {
    throw new BurnError(
      op,
      `cannot download ${url}: ${(e as Error).message}${(e as { cause?: Error }).cause ? ` (${(e as { cause: Error }).cause.message})` : ''}`,
    );
  }
  if (response.status === 416 && start > 0) {
    // The part file is already complete (or longer than the file): verify it below, or start over.
    await response.body?.cancel();
  } else if (!response.ok) {
    await response.body?.cancel();
    throw new BurnError(op, `cannot download ${url}: HTTP ${response.status} ${response.statusText}`);
  }
  let total: number | undefined;
  let resumed = 0;
  if (response.status === 206) {
    const range = /^bytes (\d+)-(\d+)\/(\d+|\*)$/.exec(response.headers.get('content-range') ?? '');
    if (!range || Number(range[1]) !== start) {
      await response.body?.cancel();
      throw new BurnError(
        op,
        `cannot resume ${url}: asked for bytes ${start}-, the server sent Content-Range '${response.headers.get('content-range')}'`,
      );
    }
    resumed = start;
    total = range[3] === '*' ? undefined : Number(range[3]);
  } else if (response.status === 200) {
    start = 0;
    const length = response.headers.get('content-length');
    total = length === null ? undefined : Number(length);
  }
  if (total !== undefined && total > maxBytes) {
    await response.body?.cancel();
    throw tooBig(`the server announces ${total} bytes`);
  }

  if (response.status !== 416) {
    const file = await open(part, resumed > 0 ? 'a' : 'w');
    let received = resumed;
    let lastDraw = 0;
    const draw = (final: boolean): void => {
      report?.({ received, total, resumedFrom: resumed });
      const now = Date.now();
      if (bar && (final || now - lastDraw > 100)) {
        lastDraw = now;
        process.stderr.write(`\r${renderProgressBar(label, received, total)}${final ? '\n' : ''}`);
      }
    };
    let overflow = false;
    try {
      if (response.body) {
        for await (const chunk of response.body) {
          const bytes = chunk as Uint8Array;
          if (received + bytes.byteLength > maxBytes) {
            // Leaving the loop cancels the body: the rest is never read.
            overflow = true;
            break;
          }
          await file.write(bytes);
          received += bytes.byteLength;
          draw(false);
        }
      }
    } catch (e) {
      throw new BurnError(
        op,
        `download of ${url} interrupted after ${received} bytes (${(e as Error).message}); they are kept in ${part} and the next download resumes from there`,
      );
    } finally {
      await file.close();
    }
    if (overflow) {
      await rm(part, { force: true });
      throw tooBig(`the response goes on past ${maxBytes} bytes`);
    }
    draw(true);
    if (total !== undefined && received !== total) {
      throw new BurnError(
        op,
        `download of ${url} ended after ${received} of ${total} bytes; they are kept in ${part} and the next download resumes from there`,
      );
    }
  }

  for (const [algorithm, expected] of [
    ['md5', options.md5],
    ['sha256', options.sha256],
  ] as const) {
    if (expected === undefined) continue;
    const actual = await hashFile(part, algorithm);
    if (actual !== expected.toLowerCase()) {
      await rm(part, { force: true });
      throw new BurnError(
        op,
        `${url}: ${algorithm} checksum mismatch: expected ${expected}, got ${actual}; the download was deleted`,
      );
    }
  }
  await rename(part, dest);
  return { path: dest, bytes: sizeOf(dest), resumedFrom: resumed };
}
