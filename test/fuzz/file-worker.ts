// The worker thread that loads fuzzed files (see file-mutations.test.ts): a load that hangs or
// exhausts memory takes this worker down, not the test process, which then reports the case.
// Each request is one file; the reply says how the load ended and what it allocated.
import { parentPort } from 'node:worker_threads';
import { BurnError, Device } from '../../src/index.js';
import {
  BinBytesRecorder,
  BinGzFileRecorder,
  BurnpackBytesRecorder,
  NamedMpkBytesRecorder,
  NamedMpkGzFileRecorder,
  PrettyJsonFileRecorder,
  type Recorder,
} from '../../src/record/index.js';
import { BurnpackStore, PytorchStore, SafetensorsStore, type ModuleStore } from '../../src/store/index.js';
import { describeThrown } from './arbitraries.js';
import {
  FUZZ_LIMITS,
  FuzzNet,
  PRODUCED_BOUND,
  type FileFormat,
  type LoadReply,
  type LoadRequest,
} from './file-formats.js';

const device = Device.cpu({ engine: 'js' });

function elemBytes(dtype: string): number {
  switch (dtype) {
    case 'f64':
    case 'i64':
      return 8;
    case 'f32':
    case 'i32':
    case 'u32':
      return 4;
    case 'f16':
    case 'bf16':
    case 'i16':
    case 'u16':
      return 2;
    default:
      return 1;
  }
}

class BoundError extends Error {}

function loadFromStore(make: () => ModuleStore): number {
  let produced = 0;
  const snapshots = make().getAllSnapshots();
  for (const [name, s] of snapshots) {
    const declared = s.compactShape.reduce((a, b) => a * b, 1) * elemBytes(s.dtype);
    if (!(declared <= PRODUCED_BOUND))
      throw new BoundError(
        `'${name}' announces ${s.dtype} [${s.shape.join(', ')}] stored as [${s.compactShape.join(', ')}] (${declared} bytes)`,
      );
    const data = s.toCompactData();
    produced += data.bytes.byteLength;
    if (produced > PRODUCED_BOUND) throw new BoundError(`${produced} bytes of tensor data after '${name}'`);
  }
  // And into a module (the path users take): a partial, mismatched load must fail cleanly too.
  const net = new FuzzNet(device);
  try {
    net.loadFrom(make().allowPartial(true));
  } catch (e) {
    if (!(e instanceof BurnError)) throw e;
  }
  return produced;
}

function loadRecord(recorder: Recorder, bytes: Uint8Array): number {
  const record = recorder.withLimits(FUZZ_LIMITS).fromBytes(bytes, '<fuzz>');
  let produced = 0;
  for (const t of record.tensors.values()) produced += t.data.bytes.byteLength;
  if (produced > PRODUCED_BOUND) throw new BoundError(`${produced} bytes of tensor data`);
  return produced;
}

function load(format: FileFormat, bytes: Uint8Array): number {
  switch (format) {
    case 'burnpack': {
      const a = loadFromStore(() => BurnpackStore.fromBytes(bytes).withLimits(FUZZ_LIMITS));
      return a + loadRecord(new BurnpackBytesRecorder(), bytes);
    }
    case 'safetensors':
      return loadFromStore(() => SafetensorsStore.fromBytes(bytes).withLimits(FUZZ_LIMITS));
    case 'pytorch':
      return loadFromStore(() => PytorchStore.fromBytes(bytes).withLimits(FUZZ_LIMITS));
    case 'mpk':
      return loadRecord(new NamedMpkBytesRecorder(), bytes);
    case 'mpk.gz':
      return loadRecord(new NamedMpkGzFileRecorder(), bytes);
    case 'bin':
      return loadRecord(new BinBytesRecorder(), bytes);
    case 'bin.gz':
      return loadRecord(new BinGzFileRecorder(), bytes);
    case 'json':
      return loadRecord(new PrettyJsonFileRecorder(), bytes);
  }
}

parentPort!.on('message', (req: LoadRequest) => {
  const peak0 = process.resourceUsage().maxRSS * 1024;
  const t0 = performance.now();
  let kind: LoadReply['kind'] = 'ok';
  let message = '';
  let produced = 0;
  try {
    produced = load(req.format, req.bytes);
  } catch (e) {
    if (e instanceof BoundError) {
      kind = 'bound';
      message = e.message;
    } else if (e instanceof BurnError) {
      kind = 'burn';
      message = e.message.slice(0, 300);
    } else {
      kind = 'other';
      message = `${describeThrown(e)}\n${e instanceof Error ? (e.stack ?? '').split('\n').slice(1, 6).join('\n') : ''}`;
    }
  }
  const reply: LoadReply = {
    id: req.id,
    kind,
    message,
    produced,
    ms: performance.now() - t0,
    peakGrowth: process.resourceUsage().maxRSS * 1024 - peak0,
  };
  parentPort!.postMessage(reply);
});
parentPort!.postMessage({ ready: true });
