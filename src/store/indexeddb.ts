import type { Device } from '../device/device.js';
import type { Module } from '../module/module.js';
import { DefaultRecorder } from '../record/burnpack-recorder.js';
import type { Recorder } from '../record/recorder.js';
import { BurnError } from '../core/errors.js';

// The parts of the IndexedDB API used here (the project compiles without the DOM library).
interface IdbRequest<T> {
  result: T;
  error: { message: string } | null;
  onsuccess: (() => void) | null;
  onerror: (() => void) | null;
}
interface IdbOpenRequest extends IdbRequest<IdbDatabase> {
  onupgradeneeded: (() => void) | null;
  onblocked: (() => void) | null;
}
interface IdbStore {
  put(value: unknown, key: string): IdbRequest<unknown>;
  get(key: string): IdbRequest<unknown>;
  delete(key: string): IdbRequest<unknown>;
  getAllKeys(): IdbRequest<unknown[]>;
}
interface IdbTransaction {
  objectStore(name: string): IdbStore;
  oncomplete: (() => void) | null;
  onerror: (() => void) | null;
  onabort: (() => void) | null;
  error: { message: string } | null;
}
interface IdbDatabase {
  createObjectStore(name: string): unknown;
  objectStoreNames: { contains(name: string): boolean };
  transaction(store: string, mode: 'readonly' | 'readwrite'): IdbTransaction;
  close(): void;
}
interface IdbFactory {
  open(name: string, version?: number): IdbOpenRequest;
  deleteDatabase(name: string): IdbRequest<unknown>;
}

const STORE = 'bytes';

function idb(op: string): IdbFactory {
  const factory = (globalThis as { indexedDB?: IdbFactory }).indexedDB;
  if (!factory)
    throw new BurnError(
      op,
      'IndexedDB is not available here (browsers and workers have it; in Node use files: saveFile/loadFile)',
    );
  return factory;
}

function settle<T>(request: IdbRequest<T>, op: string, what: string): Promise<T> {
  return new Promise((resolve, reject) => {
    request.onsuccess = () => resolve(request.result);
    request.onerror = () =>
      reject(new BurnError(op, `${what} failed: ${request.error?.message ?? 'unknown IndexedDB error'}`));
  });
}

/**
 * Bytes by key in the browser's IndexedDB (one database, one object store): where a page keeps
 * saved models and checkpoints across reloads. `saveModule`/`loadModule` store a module's burnpack
 * bytes (`module.toBytesAsync()` / `module.loadBytes()`), so what a page saves loads in Node too.
 *
 * ```ts fragment
 * const storage = await IndexedDbStorage.open('my-app');
 * await storage.saveModule(model, 'mnist');
 * await storage.loadModule(new Model(device), 'mnist');
 * ```
 */
export class IndexedDbStorage {
  private constructor(
    private readonly db: IdbDatabase,
    readonly name: string,
  ) {}

  /** Opens (creating when needed) the database `name` (default `burn-ts`). */
  static async open(name = 'burn-ts'): Promise<IndexedDbStorage> {
    const request = idb('IndexedDbStorage.open').open(name, 1);
    request.onupgradeneeded = () => {
      if (!request.result.objectStoreNames.contains(STORE)) request.result.createObjectStore(STORE);
    };
    request.onblocked = () => undefined;
    return new IndexedDbStorage(
      await settle(request, 'IndexedDbStorage.open', `opening IndexedDB database '${name}'`),
      name,
    );
  }

  /** Deletes the database `name` and everything in it. */
  static async deleteDatabase(name = 'burn-ts'): Promise<void> {
    await settle(
      idb('IndexedDbStorage.deleteDatabase').deleteDatabase(name),
      'IndexedDbStorage.deleteDatabase',
      `deleting IndexedDB database '${name}'`,
    );
  }

  private async run<T>(
    mode: 'readonly' | 'readwrite',
    op: string,
    what: string,
    act: (store: IdbStore) => IdbRequest<T>,
  ): Promise<T> {
    const tx = this.db.transaction(STORE, mode);
    const result = settle(act(tx.objectStore(STORE)), op, what);
    const done = new Promise<void>((resolve, reject) => {
      tx.oncomplete = () => resolve();
      tx.onerror = tx.onabort = () =>
        reject(new BurnError(op, `${what} failed: ${tx.error?.message ?? 'the transaction was aborted'}`));
    });
    const [value] = await Promise.all([result, done]);
    return value;
  }

  /** Stores a copy of `bytes` under `key` (replacing what was there). */
  async put(key: string, bytes: Uint8Array): Promise<void> {
    if (!(bytes instanceof Uint8Array))
      throw new BurnError(
        'IndexedDbStorage.put',
        `bytes of '${key}': ${Object.prototype.toString.call(bytes)}; expected a Uint8Array`,
      );
    // A standalone copy: a view into a larger (or shared, wasm) buffer would store all of it.
    await this.run('readwrite', 'IndexedDbStorage.put', `storing '${key}' in '${this.name}'`, (s) =>
      s.put(bytes.slice(), key),
    );
  }

  /** The bytes stored under `key`, or undefined. */
  async get(key: string): Promise<Uint8Array | undefined> {
    const value = await this.run('readonly', 'IndexedDbStorage.get', `reading '${key}' from '${this.name}'`, (s) =>
      s.get(key),
    );
    if (value === undefined) return undefined;
    if (value instanceof Uint8Array) return value;
    if (value instanceof ArrayBuffer) return new Uint8Array(value);
    throw new BurnError(
      'IndexedDbStorage.get',
      `'${key}' in '${this.name}' holds ${Object.prototype.toString.call(value)}; expected bytes`,
    );
  }

  /** Removes `key` (nothing happens when it is absent). */
  async delete(key: string): Promise<void> {
    await this.run('readwrite', 'IndexedDbStorage.delete', `deleting '${key}' from '${this.name}'`, (s) =>
      s.delete(key),
    );
  }

  /** The stored keys, sorted. */
  async keys(): Promise<string[]> {
    const keys = await this.run('readonly', 'IndexedDbStorage.keys', `listing '${this.name}'`, (s) => s.getAllKeys());
    return keys.map(String).sort();
  }

  /** Saves `module` (its burnpack bytes by default) under `key`. */
  async saveModule(module: Module, key: string, recorder: Recorder = new DefaultRecorder()): Promise<void> {
    await this.put(key, await module.toBytesAsync(recorder));
  }

  /**
   * Loads the module saved under `key` into `module`, in place, on `device` (default: the
   * module's), and returns it; a missing key is a BurnError naming the keys that exist.
   */
  async loadModule<M extends Module>(
    module: M,
    key: string,
    device?: Device,
    recorder: Recorder = new DefaultRecorder(),
  ): Promise<M> {
    const bytes = await this.get(key);
    if (bytes === undefined) {
      const keys = await this.keys();
      throw new BurnError(
        'IndexedDbStorage.loadModule',
        `no '${key}' in IndexedDB database '${this.name}' (stored: ${keys.length > 0 ? keys.map((k) => `'${k}'`).join(', ') : 'nothing'})`,
      );
    }
    return module.loadBytes(bytes, device, recorder);
  }

  /** Closes the connection. */
  close(): void {
    this.db.close();
  }
}
