/**
 * The engine's worker threads: `threads - 1` workers (Node `worker_threads`, or Web Workers in a
 * cross-origin-isolated page) each instantiate the module over the same shared memory and run jobs
 * of the task the calling thread publishes. The calling thread runs jobs too, so a task always
 * completes, even before any worker has started.
 *
 * Protocol, over a small SharedArrayBuffer: one 64-bit `state` word holds the task's tag (32
 * bits), its job count (16) and the next job to hand out (16); a thread takes a job with a
 * compare-exchange on that word, so a job is taken only while its task is current. The task's
 * kind and argument address are written before its state word and read after a successful take
 * (the task cannot change while one of its jobs is unfinished). Each finished job increments
 * `DONE`; the caller waits (spinning briefly, then `Atomics.wait` where the platform allows) until
 * it equals the count. Idle workers sleep on the `WAKE` counter. A worker also stamps each of the
 * first {@link WATCHED_JOBS} jobs it finishes with the task's tag, so the caller can hand finished
 * jobs' results on (copy them out) while other jobs still run.
 */
import { isNode, nodeBuiltin } from './loader.js';
import type { WasmMemory, WasmModule } from './wasm-api.js';

/**
 * How long an idle worker polls for the next task before it sleeps, in ms. Engine calls are often
 * separated by the calling thread's copies (50 µs for a 256³ matmul's operands); a worker that
 * slept through them pays a futex wake-up per task, which costs tens of µs on a virtual machine.
 * Polling 20 µs costs 256³ products about 4% against 0.5 ms; 2 ms gains nothing more.
 */
const WORKER_SPIN_MS = 0.5;

/** The most jobs one task may have (the width of the job fields of the state word). */
export const MAX_JOBS = 0xffff;
/** Jobs of a task whose completion is reported one by one ({@link TaskHooks.jobDone}). */
const WATCHED_JOBS = 256;

// Int32 slots of the control buffer (the 64-bit state word takes slots 0 and 1); from FINISHED on,
// the tag of the task whose job of that index last finished; from JOBS on, one counter per thread
// of the jobs it ran.
const WAKE = 2,
  DONE = 3,
  KIND = 4,
  ARGS = 5,
  ERROR = 6,
  STOP = 7,
  FINISHED = 8,
  JOBS = FINISHED + WATCHED_JOBS;

/** Work the calling thread does around a task's jobs. */
export interface TaskHooks {
  /** Runs on the calling thread once the workers are woken, before it takes jobs (e.g. a copy the later jobs need, overlapping the first ones). */
  readonly beforeJobs?: () => void;
  /** Called on the calling thread once per job, after that job finished (its own right away, the workers' as it sees them), before `run` returns; any order. */
  readonly jobDone?: (job: number) => void;
}

/** The worker's code, the same in Node and browsers (only the bootstrap differs). */
const WORKER_MAIN = `
function burnWasmWorker(module, memory, sab, tid, spin) {
  const run = new WebAssembly.Instance(module, { env: { memory } }).exports.run;
  const ctrl = new Int32Array(sab), state = new BigInt64Array(sab, 0, 1);
  let seen = Atomics.load(ctrl, ${WAKE});
  for (;;) {
    for (;;) {
      const v = Atomics.load(state, 0);
      const next = Number(v & 0xffffn), count = Number((v >> 16n) & 0xffffn);
      if (next >= count) break;
      if (Atomics.compareExchange(state, 0, v, v + 1n) !== v) continue;
      try { run(Atomics.load(ctrl, ${KIND}), Atomics.load(ctrl, ${ARGS}), next, tid); } catch (e) { Atomics.store(ctrl, ${ERROR}, 1); }
      if (next < ${WATCHED_JOBS}) Atomics.store(ctrl, ${FINISHED} + next, Number(v >> 32n) | 0);
      Atomics.add(ctrl, ${JOBS} + tid, 1);
      if (Atomics.add(ctrl, ${DONE}, 1) + 1 === count) Atomics.notify(ctrl, ${DONE});
    }
    if (Atomics.load(ctrl, ${STOP}) !== 0) return;
    const until = performance.now() + spin;
    for (let s = 1; Atomics.load(ctrl, ${WAKE}) === seen; s++) if ((s & 255) === 0 && performance.now() > until) break;
    if (Atomics.load(ctrl, ${WAKE}) === seen) Atomics.wait(ctrl, ${WAKE}, seen);
    seen = Atomics.load(ctrl, ${WAKE});
  }
}
`;

const NODE_WORKER = `${WORKER_MAIN}
const { workerData: d } = require('node:worker_threads');
burnWasmWorker(d.module, d.memory, d.ctrl, d.tid, d.spin);
`;

const BROWSER_WORKER = `${WORKER_MAIN}
self.onmessage = (e) => { const d = e.data; burnWasmWorker(d.module, d.memory, d.ctrl, d.tid, d.spin); };
`;

/** The minimal shape of a Node `Worker` / DOM `Worker` the pool uses. */
interface WorkerHandle {
  terminate(): unknown;
}

/** Runs one job on the calling thread. */
export type JobRunner = (kind: number, args: number, job: number, tid: number) => void;

/** Worker threads sharing one WebAssembly memory. */
export class ThreadPool {
  private readonly ctrl: Int32Array;
  private readonly state: BigInt64Array;
  private workers: WorkerHandle[] | undefined;
  private tag = 0;
  /** Jobs of the current task already reported to {@link TaskHooks.jobDone}. */
  private readonly reported = new Uint8Array(WATCHED_JOBS);
  /** Whether this thread may block in `Atomics.wait` (not on a browser's main thread). */
  private canBlock = true;
  /** Why workers could not be started (the pool then runs everything on the calling thread). */
  failure: string | undefined;

  /** `threads`: the total including the calling thread. */
  constructor(
    private readonly module: WasmModule,
    private readonly memory: WasmMemory,
    readonly threads: number,
    private readonly runJob: JobRunner,
  ) {
    const sab = new SharedArrayBuffer(4 * (JOBS + threads));
    this.ctrl = new Int32Array(sab);
    this.state = new BigInt64Array(sab, 0, 1);
  }

  /** Starts the workers (once; they start asynchronously and join the tasks as they come up). */
  private start(): void {
    if (this.workers) return;
    this.workers = [];
    const spin = WORKER_SPIN_MS;
    try {
      for (let tid = 1; tid < this.threads; tid++) {
        const data = { module: this.module, memory: this.memory, ctrl: this.ctrl.buffer, tid, spin };
        this.workers.push(isNode() ? startNodeWorker(data) : startBrowserWorker(data));
      }
    } catch (e) {
      this.failure = (e instanceof Error ? e.message : String(e)).split('\n')[0];
    }
  }

  /** Runs jobs 0..jobs-1 of a task over the calling thread and the workers; returns when all are done. */
  run(kind: number, args: number, jobs: number, hooks?: TaskHooks): void {
    if (jobs > MAX_JOBS) throw new RangeError(`wasm engine: ${jobs} jobs in one task (at most ${MAX_JOBS})`);
    this.start();
    const ctrl = this.ctrl;
    ctrl[KIND] = kind;
    ctrl[ARGS] = args;
    Atomics.store(ctrl, DONE, 0);
    Atomics.store(ctrl, ERROR, 0);
    this.tag = (this.tag + 1) >>> 0;
    const stamp = this.tag | 0;
    Atomics.store(this.state, 0, (BigInt(this.tag) << 32n) | (BigInt(jobs) << 16n));
    Atomics.add(ctrl, WAKE, 1);
    Atomics.notify(ctrl, WAKE);
    const jobDone = hooks?.jobDone;
    const watch = jobDone !== undefined && jobs <= WATCHED_JOBS;
    const reported = this.reported;
    if (watch) reported.fill(0, 0, jobs);
    let pending = jobs;
    let failed: unknown;
    // A hook that throws must not end the call while workers still run this task's jobs.
    const report = (job: number): void => {
      try {
        jobDone?.(job);
      } catch (e) {
        failed ??= e;
      }
    };
    try {
      hooks?.beforeJobs?.();
    } catch (e) {
      failed = e;
    }
    // Take jobs like any worker.
    for (;;) {
      const v = Atomics.load(this.state, 0);
      const next = Number(v & 0xffffn);
      if (next >= jobs) break;
      if (Atomics.compareExchange(this.state, 0, v, v + 1n) !== v) continue;
      try {
        this.runJob(kind, args, next, 0);
      } catch (e) {
        failed ??= e;
      }
      ctrl[JOBS]!++;
      Atomics.add(ctrl, DONE, 1);
      if (watch) {
        reported[next] = 1;
        pending--;
        report(next);
      }
    }
    // Wait for the jobs other threads took, handing on each as it finishes.
    for (let spins = 0; ; spins++) {
      if (watch && pending > 0) {
        for (let j = 0; j < jobs; j++) {
          if (reported[j] === 0 && Atomics.load(ctrl, FINISHED + j) === stamp) {
            reported[j] = 1;
            pending--;
            report(j);
          }
        }
      }
      const done = Atomics.load(ctrl, DONE);
      if (done >= jobs && (!watch || pending === 0)) break;
      if (done >= jobs || spins < 20000 || !this.canBlock) continue;
      try {
        Atomics.wait(ctrl, DONE, done, 50);
      } catch {
        this.canBlock = false; // a browser's main thread may not block: keep spinning
      }
    }
    if (jobDone !== undefined && !watch) for (let j = 0; j < jobs; j++) report(j);
    if (failed !== undefined) throw failed;
    if (Atomics.load(ctrl, ERROR) !== 0)
      throw new Error(`wasm engine: a job of task kind ${kind} failed in a worker thread`);
  }

  /** Jobs each thread has run so far (index 0: the calling thread). */
  jobsRun(): number[] {
    return Array.from(this.ctrl.subarray(JOBS, JOBS + this.threads));
  }

  /** Stops and terminates the workers. */
  close(): void {
    Atomics.store(this.ctrl, STOP, 1);
    Atomics.add(this.ctrl, WAKE, 1);
    Atomics.notify(this.ctrl, WAKE);
    for (const w of this.workers ?? []) w.terminate();
    this.workers = [];
  }
}

interface WorkerData {
  readonly module: WasmModule;
  readonly memory: WasmMemory;
  readonly ctrl: ArrayBufferLike;
  readonly tid: number;
  /** Milliseconds to poll before sleeping. */
  readonly spin: number;
}

function startNodeWorker(data: WorkerData): WorkerHandle {
  const get = nodeBuiltin();
  if (!get) throw new Error('worker_threads needs Node >= 20.16 (process.getBuiltinModule)');
  const { Worker } = get('node:worker_threads') as {
    Worker: new (
      code: string,
      options: object,
    ) => WorkerHandle & { unref(): void; on(event: string, fn: (e: unknown) => void): void };
  };
  // `eval`: no file to resolve, the same in src/ (under tsx) and dist/. Workers never keep the process alive.
  const worker = new Worker(NODE_WORKER, {
    eval: true,
    workerData: data,
    execArgv: [],
    env: {},
    stdout: false,
    stderr: false,
  });
  worker.unref();
  worker.on('error', () => undefined);
  return worker;
}

function startBrowserWorker(data: WorkerData): WorkerHandle {
  const Ctor = (globalThis as { Worker?: new (url: string) => WorkerHandle & { postMessage(data: unknown): void } })
    .Worker;
  if (!Ctor) throw new Error('this environment has no Worker');
  const url = URL.createObjectURL(new Blob([BROWSER_WORKER], { type: 'text/javascript' }));
  const worker = new Ctor(url);
  worker.postMessage(data);
  return worker;
}
