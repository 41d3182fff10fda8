/** Most labels kept for commands whose outcome is unknown; older ones are forgotten (their failures keep the server's op name). */
const MAX_LABELS = 1 << 16;
/** Most failed commands whose op is kept for later reads of what they spoiled. */
const MAX_FAILED = 256;

/**
 * The user op (`currentUserOp`, e.g. `take`) of each command sent while one ran, kept until the
 * command's outcome is known. The server reports a failed command by its sequence number, later,
 * with the error of the command that failed (a `select`, whose error on the server's CPU says
 * `gather`); the client renames it to the op the user called. Commands sent outside any user op
 * cost nothing here. A reply to command `n` means every command before `n` has run, so their
 * labels are dropped then (failures come before later replies).
 */
export class CommandLabels {
  private seqs: number[] = [];
  private ops: string[] = [];
  private head = 0;
  private readonly failed = new Map<number, string>();

  /** Records that command `seq` (the latest sent) ran for the user op `op`. */
  add(seq: number, op: string): void {
    // Past the bound the oldest label is forgotten: a failure of that command keeps the server's op name.
    if (this.seqs.length - this.head >= MAX_LABELS) this.head++;
    this.seqs.push(seq);
    this.ops.push(op);
  }

  /** A reply to command `seq` came: every command before it has run. */
  settle(seq: number): void {
    while (this.head < this.seqs.length && this.seqs[this.head]! < seq) this.head++;
    if (this.head === this.seqs.length) {
      this.seqs = [];
      this.ops = [];
      this.head = 0;
    } else if (this.head > 4096 && this.head * 2 > this.seqs.length) {
      this.seqs = this.seqs.slice(this.head);
      this.ops = this.ops.slice(this.head);
      this.head = 0;
    }
  }

  /** Command `seq` failed: the user op it ran for, if any (kept for {@link failedOp}). */
  fail(seq: number): string | undefined {
    this.settle(seq);
    if (this.seqs[this.head] !== seq) return undefined;
    const op = this.ops[this.head]!;
    this.settle(seq + 1);
    if (this.failed.size >= MAX_FAILED) this.failed.delete(this.failed.keys().next().value!);
    this.failed.set(seq, op);
    return op;
  }

  /** The user op of the failed command `seq` (a later read of what it spoiled names it again). */
  failedOp(seq: number): string | undefined {
    return this.failed.get(seq);
  }
}
