import { openFileReader } from '../config/files.js';
import type { TensorData } from '../core/data.js';
import { BurnError } from '../core/errors.js';
import { handOver } from '../core/ownership.js';

/**
 * Where a reader takes its bytes from: an in-memory buffer (reads are zero-copy views) or a file
 * read by ranges (only the bytes asked for are read, so files larger than memory or than 2 GB
 * work).
 */
export interface ByteSource {
  /** A file path, or a name such as `<bytes>` for errors. */
  readonly name: string;
  /** Total size in bytes. */
  readonly size: number;
  /** `length` bytes at `offset`; a view for in-memory sources. Out of range is a BurnError naming the source. */
  read(offset: number, length: number): Uint8Array;
  /**
   * Whether `read` returns new memory the caller alone holds (a file), rather than a view of
   * someone's bytes; then loaded tensors keep that memory instead of copying it. Default false.
   */
  readonly fresh?: boolean;
  /** Releases the file, if any. */
  close(): void;
}

/** A source over bytes in memory. */
export function bytesSource(bytes: Uint8Array, name = '<bytes>', op = 'read'): ByteSource {
  return {
    name,
    size: bytes.byteLength,
    fresh: false,
    read(offset, length) {
      if (offset < 0 || length < 0 || offset + length > bytes.byteLength) {
        throw new BurnError(
          op,
          `${name}: cannot read ${length} bytes at byte offset ${offset}; there are ${bytes.byteLength} bytes (truncated?)`,
        );
      }
      return bytes.subarray(offset, offset + length);
    },
    close() {},
  };
}

/** Options of {@link fileSource}. */
export interface FileSourceOptions {
  /** Largest single read call in bytes (default 1 GiB); tests force a small value to exercise chunking. */
  readonly chunkSize?: number;
}

/**
 * A source over a file, read by ranges. Each read opens the file, reads the range and closes it,
 * so snapshots can be read long after the source was made without holding a file open.
 */
export function fileSource(path: string, op: string, options: FileSourceOptions = {}): ByteSource {
  const probe = openFileReader(path, op, options.chunkSize);
  const size = probe.size;
  probe.close();
  return {
    name: path,
    size,
    fresh: true,
    read(offset, length) {
      const r = openFileReader(path, op, options.chunkSize);
      try {
        if (r.size !== size)
          throw new BurnError(op, `${path} changed size while being read (${size} → ${r.size} bytes)`);
        return r.read(offset, length);
      } finally {
        r.close();
      }
    },
    close() {},
  };
}

/** @internal `data` read from `source`, handed over to the backend when the source's reads are fresh memory (files). */
export function owned(source: ByteSource, data: TensorData): TensorData {
  return source.fresh === true ? handOver(data) : data;
}
