// A worker thread that runs fuzz cases for a test, so that a case that hangs (synchronous code
// cannot be interrupted in the test's own thread) or exhausts memory takes the worker down, not
// the test process: the test gets a `crashed` reply naming the cause and the worker restarts.
import { Worker } from 'node:worker_threads';

/** A request to a fuzz worker: anything structured-cloneable, with an id. */
export interface WorkerRequest {
  readonly id: number;
}

/** What a fuzz worker's entry module must do: post `{ ready: true }`, then answer each request with `{ id, ... }`. */
export class FuzzWorker<Req extends object, Reply extends { readonly id: number }> {
  private worker: Worker | undefined;
  private ready: Promise<void> | undefined;
  private nextId = 0;
  private readonly pending = new Map<number, (r: Reply | { crashed: string }) => void>();

  /** `entry` is the worker's TypeScript module; `hangMs` how long a reply may take. */
  constructor(
    private readonly entry: URL,
    private readonly hangMs: number,
  ) {}

  private start(): Promise<void> {
    const tsx = import.meta.resolve('tsx/esm/api');
    // A worker does not inherit tsx's loader: register it before importing the TypeScript entry.
    const boot = `(async () => { (await import(${JSON.stringify(tsx)})).register(); await import(${JSON.stringify(this.entry.href)}); })().catch((e) => { setImmediate(() => { throw e; }); });`;
    const worker = new Worker(boot, { eval: true, resourceLimits: { maxOldGenerationSizeMb: 1024 } });
    this.worker = worker;
    return new Promise<void>((resolve, reject) => {
      worker.on('message', (m: Reply | { ready: true }) => {
        if ('ready' in m) resolve();
        else this.pending.get(m.id)?.(m);
      });
      const died = (why: string) => {
        if (this.worker === worker) this.worker = this.ready = undefined;
        reject(new Error(why));
        for (const done of this.pending.values()) done({ crashed: why });
        this.pending.clear();
      };
      worker.on('error', (e) => died(`the fuzz worker crashed: ${e.message}`));
      worker.on('exit', (code) => died(`the fuzz worker exited with code ${code}`));
    });
  }

  /** Runs one request; a crash or a hang (no reply within hangMs) comes back as `{ crashed }`. */
  async run(request: Req): Promise<Reply | { crashed: string }> {
    this.ready ??= this.start();
    await this.ready;
    const id = this.nextId++;
    const worker = this.worker!;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        resolve({ crashed: `no reply within ${this.hangMs} ms (a hang)` });
        if (this.worker === worker) this.worker = this.ready = undefined;
        void worker.terminate();
      }, this.hangMs);
      this.pending.set(id, (r) => {
        clearTimeout(timer);
        this.pending.delete(id);
        resolve(r);
      });
      worker.postMessage({ ...request, id });
    });
  }

  /** Stops the worker. */
  async close(): Promise<void> {
    const w = this.worker;
    this.worker = this.ready = undefined;
    await w?.terminate();
  }
}
