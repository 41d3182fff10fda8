/**
 * A stop request shared with the training loop (Burn's `Interrupter`): `stop()` makes the loop
 * finish the current step, write its checkpoint and return. Ctrl-C and the dashboard's `q` call it.
 */
export class TrainingInterrupter {
  private stopped = false;
  private reasonText: string | undefined;

  /** Requests a graceful stop. */
  stop(reason = 'stop requested'): void {
    this.stopped = true;
    this.reasonText ??= reason;
  }

  /** True once a stop was requested. */
  shouldStop(): boolean {
    return this.stopped;
  }

  /** Why training stopped early, if it did. */
  reason(): string | undefined {
    return this.reasonText;
  }
}
