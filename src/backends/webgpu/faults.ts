import type { GPUBuffer } from './gpu-types.js';

/**
 * Attribution of asynchronous GPU errors to the tensors they spoil.
 *
 * WebGPU reports errors late: a rejected command batch (validation, out of memory) or an
 * out-of-range index a kernel flagged is known only once the batch's error scopes and flag words
 * come back, and by then later batches may already have read what the bad one wrote. So the
 * runtime logs, for every batch whose outcome is still unknown, each command's buffers (which
 * it wrote, which it read), each buffer returned to the pool, and each read. When a fault
 * arrives, the log is walked forward from the faulty command (or the whole rejected batch):
 * what it wrote is tainted, a command reading a tainted buffer taints what it writes, a buffer
 * returned to the pool is clean again, and a read of a tainted buffer (or any read inside a
 * rejected batch, whose copy never ran) fails with the fault. Tensors computed elsewhere, earlier
 * or later, are untouched. Once a fault is known, later commands taint their outputs as they are
 * encoded, and reads of tainted buffers throw at once. Logging costs one small record per command;
 * nothing is read back per command.
 */

/** One asynchronous failure (a BurnError) and whether a read has thrown it yet (`sync()` throws unreported ones). */
export class GpuFault {
  reported = false;
  constructor(readonly error: Error) {}
}

/** A pending read: its fault, when the data it copies is spoiled. */
export interface ReadTicket {
  fault: GpuFault | undefined;
}

type Entry =
  | { readonly kind: 'cmd'; readonly buffers: readonly GPUBuffer[]; readonly writes: number }
  | { readonly kind: 'release'; readonly buffer: GPUBuffer }
  | { readonly kind: 'read'; readonly buffer: GPUBuffer; readonly ticket: ReadTicket };

/** Entries kept before the oldest are dropped (a long run of commands with no await in between). */
const MAX_LOG = 1 << 18;

/** The command log of unsettled batches and the tainted buffers (see the file comment). */
export class FaultTracker {
  private log: Entry[] = [];
  /** Absolute position of `log[0]`. */
  private base = 0;
  private readonly tainted = new Map<GPUBuffer, GpuFault>();
  private unreported: GpuFault[] = [];
  /** Set when entries of unsettled batches had to be dropped and a fault then reached them. */
  private blind: GpuFault | undefined;

  /** Absolute position of the next entry. */
  get position(): number {
    return this.base + this.log.length;
  }

  /**
   * Logs a command over `buffers`; bit k of `writes` marks `buffers[k]` as written. Returns its
   * position. Under a known fault, its outputs are tainted when an input is.
   */
  command(buffers: readonly GPUBuffer[], writes: number): number {
    if (this.tainted.size > 0) {
      let fault: GpuFault | undefined;
      for (const b of buffers) if ((fault = this.tainted.get(b))) break;
      if (fault)
        buffers.forEach((b, k) => {
          if (writes & (1 << k)) this.tainted.set(b, fault!);
        });
    }
    return this.push({ kind: 'cmd', buffers, writes });
  }

  /** Logs that `buffer` went back to the pool: its next contents are a new tensor's. */
  release(buffer: GPUBuffer): void {
    this.tainted.delete(buffer);
    this.push({ kind: 'release', buffer });
  }

  /** Logs a read of `buffer`; its ticket carries the fault once one reaches it. */
  read(buffer: GPUBuffer): ReadTicket {
    const ticket: ReadTicket = { fault: this.blind ?? this.tainted.get(buffer) };
    this.push({ kind: 'read', buffer, ticket });
    return ticket;
  }

  /** The fault already known to spoil `buffer`, if any. */
  faultOf(buffer: GPUBuffer): GpuFault | undefined {
    return this.blind ?? this.tainted.get(buffer);
  }

  /** A fault in the command at `at`: what it wrote, and everything computed from that, is spoiled. */
  failCommand(at: number, fault: GpuFault): void {
    this.walk(at, at + 1, fault, false);
  }

  /** A rejected batch (entries `[start, end)`): none of its commands or reads ran. */
  failBatch(start: number, end: number, fault: GpuFault): void {
    this.walk(start, end, fault, true);
  }

  /** Drops the entries before `position` (their batches are settled). */
  settle(position: number): void {
    const n = Math.min(position - this.base, this.log.length);
    if (n <= 0) return;
    this.log = this.log.slice(n);
    this.base += n;
  }

  /** Marks `fault` reported (a read threw it). */
  report(fault: GpuFault): Error {
    fault.reported = true;
    return fault.error;
  }

  /** The first fault no read has thrown yet, marking every pending one reported. */
  takeUnreported(): GpuFault | undefined {
    const first = this.unreported.find((f) => !f.reported);
    for (const f of this.unreported) f.reported = true;
    this.unreported = [];
    return first;
  }

  private push(e: Entry): number {
    if (this.log.length >= MAX_LOG) {
      const drop = this.log.length >> 1;
      this.log = this.log.slice(drop);
      this.base += drop;
    }
    this.log.push(e);
    return this.base + this.log.length - 1;
  }

  /**
   * Taints what the entries in `[from, until)` write (all their reads fail when `wholeBatch`),
   * then propagates forward to the end of the log.
   */
  private walk(from: number, until: number, fault: GpuFault, wholeBatch: boolean): void {
    this.unreported.push(fault);
    if (from < this.base) {
      // The log no longer reaches back to the fault: nothing read from now on can be trusted.
      this.blind = fault;
      return;
    }
    const bad = new Set<GPUBuffer>();
    for (let i = from - this.base; i < this.log.length; i++) {
      const e = this.log[i]!;
      const inFault = i < until - this.base;
      if (e.kind === 'release') bad.delete(e.buffer);
      else if (e.kind === 'read') {
        if (inFault ? wholeBatch : bad.has(e.buffer)) e.ticket.fault ??= fault;
      } else if (inFault || e.buffers.some((b) => bad.has(b))) {
        e.buffers.forEach((b, k) => {
          if (e.writes & (1 << k)) bad.add(b);
        });
      }
    }
    for (const b of bad) if (!this.tainted.has(b)) this.tainted.set(b, fault);
  }
}
