/**
 * PyTorch (Debian's python3-torch) through bench/torch_bench.py, a long-lived subprocess that
 * measures each case when asked (one JSON line per request and per answer), with the same inputs,
 * timing method and checksum as the Node side. `BENCH_PYTHON` overrides `/usr/bin/python3`.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { NotAvailable, type Impl, type Outcome } from '../lib/types.js';

const SCRIPT = fileURLToPath(new URL('../torch_bench.py', import.meta.url));

interface Hello {
  readonly hello: boolean;
  readonly detail?: string;
  readonly reason?: string;
}

/** Environment variables that override OpenBLAS's own CPU detection, removed from PyTorch's environment. */
const OPENBLAS_OVERRIDES = ['OPENBLAS_CORETYPE', 'OPENBLAS_L2_SIZE'] as const;

/** The PyTorch column; `readback` makes the timed body call `.numpy()` (zero-copy on the CPU). */
export function torchImpl(options: { readback: boolean }): Impl {
  const python = process.env['BENCH_PYTHON'] || '/usr/bin/python3';
  let child: ChildProcessWithoutNullStreams | undefined;
  const waiting: ((line: string | undefined) => void)[] = [];
  const lines: string[] = [];
  let ended = false;

  function nextLine(): Promise<string | undefined> {
    const line = lines.shift();
    if (line !== undefined || ended) return Promise.resolve(line);
    return new Promise((resolve) => waiting.push(resolve));
  }

  return {
    name: 'torch',
    isBurn: false,
    async init() {
      // OpenBLAS's kernel choice and cache size are its own (OPENBLAS_CORETYPE and
      // OPENBLAS_L2_SIZE unset for PyTorch's command only; a forced Haswell core type costs it a third).
      const env = { ...process.env };
      const unset = OPENBLAS_OVERRIDES.filter((name) => env[name] !== undefined);
      for (const name of unset) delete env[name];
      const proc = spawn(python, [SCRIPT], { stdio: ['pipe', 'pipe', 'pipe'], env });
      child = proc;
      let stderr = '';
      proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const failed = new Promise<never>((_, reject) => {
        proc.on('error', (e) => reject(new NotAvailable(`cannot start ${python} (${e.message})`)));
      });
      const rl = createInterface({ input: proc.stdout });
      rl.on('line', (line) => {
        const w = waiting.shift();
        if (w) w(line);
        else lines.push(line);
      });
      rl.on('close', () => {
        ended = true;
        for (const w of waiting.splice(0)) w(undefined);
      });
      const first = await Promise.race([nextLine(), failed]);
      if (first === undefined) throw new NotAvailable(`${python} exited: ${stderr.trim().split('\n').pop() ?? ''}`);
      const hello = JSON.parse(first) as Hello;
      if (!hello.hello) throw new NotAvailable(hello.reason ?? 'python3-torch is not installed');
      return `${hello.detail ?? 'PyTorch'}${unset.length > 0 ? ` (${unset.join(', ')} unset for this process)` : ''}`;
    },
    async measure(c, _inputs, config): Promise<Outcome> {
      if (!child || ended) return { ok: false, reason: 'the PyTorch process has exited' };
      child.stdin.write(`${JSON.stringify({ case: c, config, readback: options.readback })}\n`);
      const line = await nextLine();
      if (line === undefined) return { ok: false, reason: 'the PyTorch process exited' };
      return JSON.parse(line) as Outcome;
    },
    async close() {
      if (!child) return;
      const proc = child;
      child = undefined;
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => proc.on('exit', () => resolve()));
      proc.stdin.end();
      await exited;
    },
  };
}
