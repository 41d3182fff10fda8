import { requireNodeBuiltin } from '../../platform/node-builtin.js';
import { TensorData } from '../../core/data.js';
import { dtypeSize } from '../../core/dtype.js';
import { BurnError, fmt } from '../../core/errors.js';
import type { ConstTensor } from '../ir/types.js';
import { isSupportedElem, onnxTypeName } from './dtype.js';

const OP = 'loadOnnx';

/**
 * Checks an external-data location: a relative path that stays inside the model's folder. ONNX
 * writes plain file names; `..` segments, absolute paths and drive letters could read any file of
 * the machine, so they are refused before anything is opened.
 */
export function checkLocation(location: string, tensor: string): void {
  const parts = location.split(/[\\/]/);
  if (
    location.startsWith('/') ||
    /^[a-zA-Z]:/.test(location) ||
    location.startsWith('\\') ||
    parts.includes('..') ||
    location.includes('\0')
  ) {
    throw new BurnError(
      OP,
      `tensor '${tensor}' names external data '${location}'; expected a relative path inside the model's folder (no '..', no absolute path)`,
    );
  }
}

/**
 * Reads the externally stored tensors of a model that lives in `dir`: each tensor is read on its
 * own, at its offset, into a buffer of its own size — a model of any size never sits in one buffer.
 * Files are opened once each. The real path of every file must stay inside `dir` (symbolic links
 * leading out are refused too).
 */
export function readExternalTensors(dir: string, tensors: readonly ConstTensor[]): void {
  if (tensors.length === 0) return;
  type Fs = typeof import('node:fs');
  const { closeSync, fstatSync, openSync, readSync, realpathSync } = requireNodeBuiltin<Fs>(
    'node:fs',
    OP,
    'reading external tensor data from files',
  );
  const { join, sep } = requireNodeBuiltin<typeof import('node:path')>(
    'node:path',
    OP,
    'reading external tensor data from files',
  );
  const root = realpathSync(dir);
  const fds = new Map<string, { fd: number; size: number }>();
  try {
    for (const t of tensors) {
      const ref = t.external!;
      checkLocation(ref.location, t.name);
      if (!isSupportedElem(t.elem)) continue; // reported as an unsupported dtype where it is used
      let file = fds.get(ref.location);
      if (!file) {
        let real: string;
        try {
          real = realpathSync(join(root, ref.location));
        } catch {
          throw new BurnError(
            OP,
            `tensor '${t.name}' is stored in '${ref.location}', which does not exist beside the model (in ${root})`,
          );
        }
        if (!real.startsWith(root + sep))
          throw new BurnError(
            OP,
            `tensor '${t.name}' names external data '${ref.location}', which resolves outside the model's folder`,
          );
        const fd = openSync(real, 'r');
        file = { fd, size: fstatSync(fd).size };
        fds.set(ref.location, file);
      }
      const n = t.shape.reduce((a, b) => a * b, 1);
      const bytes = n * dtypeSize(t.elem);
      const length = ref.length ?? file.size - ref.offset;
      if (length !== bytes) {
        throw new BurnError(
          OP,
          `tensor '${t.name}' has ${length} bytes of external data for dims ${fmt(t.shape)} of ${onnxTypeName(t.elem)}; expected ${bytes}`,
        );
      }
      if (ref.offset + bytes > file.size) {
        throw new BurnError(
          OP,
          `tensor '${t.name}' reads bytes ${ref.offset}..${ref.offset + bytes} of '${ref.location}', which has ${file.size} bytes`,
        );
      }
      const buf = new Uint8Array(bytes);
      let done = 0;
      while (done < bytes) {
        const got = readSync(file.fd, buf, done, bytes - done, ref.offset + done);
        if (got <= 0)
          throw new BurnError(OP, `tensor '${t.name}': '${ref.location}' ended after ${done} of ${bytes} bytes`);
        done += got;
      }
      t.data = TensorData.fromBytes(buf, t.shape, t.elem);
      delete t.external;
    }
  } finally {
    for (const { fd } of fds.values()) closeSync(fd);
  }
}
