import type { SliceSpecs } from '../../src/backend/backend.js';
import { BaseBackend } from '../../src/backend/base.js';
import type {
  ArgOp,
  BinaryOp,
  CompareOp,
  PredicateOp,
  ReduceOp,
  ScanOp,
  ScatterOp,
  UnaryOp,
} from '../../src/backend/ops.js';
import { CpuBackend } from '../../src/backends/cpu/backend.js';
import type { CpuTensor } from '../../src/backends/cpu/storage.js';
import { Device, type DType, type TensorData } from '../../src/index.js';

/**
 * A backend that implements only the required op set (each op delegated to the CPU backend) and
 * overrides nothing else: every composite op runs through BaseBackend's defaults. The conformance
 * suite passing on it shows that a new backend needs only this list.
 */
export class RequiredOnlyBackend extends BaseBackend<CpuTensor> {
  readonly name = 'required-only';
  private readonly cpu = new CpuBackend();

  fromData(data: TensorData): CpuTensor {
    return this.cpu.fromData(data);
  }
  toData(p: CpuTensor): Promise<TensorData> {
    return this.cpu.toData(p);
  }
  toDataSync(p: CpuTensor): TensorData | undefined {
    return this.cpu.toDataSync(p);
  }
  fill(shape: readonly number[], value: number, dtype: DType): CpuTensor {
    return this.cpu.fill(shape, value, dtype);
  }
  reshape(p: CpuTensor, shape: readonly number[]): CpuTensor {
    return this.cpu.reshape(p, shape);
  }
  permute(p: CpuTensor, axes: readonly number[]): CpuTensor {
    return this.cpu.permute(p, axes);
  }
  expand(p: CpuTensor, shape: readonly number[]): CpuTensor {
    return this.cpu.expand(p, shape);
  }
  slice(p: CpuTensor, specs: SliceSpecs): CpuTensor {
    return this.cpu.slice(p, specs);
  }
  sliceAssign(p: CpuTensor, specs: SliceSpecs, values: CpuTensor): CpuTensor {
    return this.cpu.sliceAssign(p, specs, values);
  }
  cat(ps: readonly CpuTensor[], dim: number): CpuTensor {
    return this.cpu.cat(ps, dim);
  }
  unary(op: UnaryOp, p: CpuTensor): CpuTensor {
    return this.cpu.unary(op, p);
  }
  predicate(op: PredicateOp, p: CpuTensor): CpuTensor {
    return this.cpu.predicate(op, p);
  }
  binary(op: BinaryOp, a: CpuTensor, b: CpuTensor): CpuTensor {
    return this.cpu.binary(op, a, b);
  }
  compare(op: CompareOp, a: CpuTensor, b: CpuTensor): CpuTensor {
    return this.cpu.compare(op, a, b);
  }
  where(cond: CpuTensor, a: CpuTensor, b: CpuTensor): CpuTensor {
    return this.cpu.where(cond, a, b);
  }
  cast(p: CpuTensor, dtype: DType): CpuTensor {
    return this.cpu.cast(p, dtype);
  }
  reduce(op: ReduceOp, p: CpuTensor, dims: readonly number[]): CpuTensor {
    return this.cpu.reduce(op, p, dims);
  }
  argReduce(op: ArgOp, p: CpuTensor, dim: number): CpuTensor {
    return this.cpu.argReduce(op, p, dim);
  }
  scan(op: ScanOp, p: CpuTensor, dim: number): CpuTensor {
    return this.cpu.scan(op, p, dim);
  }
  gather(p: CpuTensor, dim: number, indices: CpuTensor): CpuTensor {
    return this.cpu.gather(p, dim, indices);
  }
  scatter(op: ScatterOp, p: CpuTensor, dim: number, indices: CpuTensor, values: CpuTensor): CpuTensor {
    return this.cpu.scatter(op, p, dim, indices, values);
  }
  matmul(a: CpuTensor, b: CpuTensor): CpuTensor {
    return this.cpu.matmul(a, b);
  }
  sort(p: CpuTensor, dim: number, descending: boolean): [CpuTensor, CpuTensor] {
    return this.cpu.sort(p, dim, descending);
  }
}

let requiredDevice: Device | undefined;

/** The device running on {@link RequiredOnlyBackend}. */
export function requiredOnlyDevice(): Device {
  requiredDevice ??= new Device(new RequiredOnlyBackend(), 'required-only');
  return requiredDevice;
}
