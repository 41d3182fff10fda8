/** Where the `burn-ts` command writes: the process's streams, or a test's buffers. */
export interface CliIo {
  out(line: string): void;
  err(line: string): void;
}
