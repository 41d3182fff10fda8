import type { Device } from '../../device/device.js';
import { Module } from '../../module/module.js';
import { Param, RunningState } from '../../module/param.js';
import * as nn from '../../nn/index.js';
import type { TensorData } from '../../core/data.js';
import { BurnError, fmt } from '../../core/errors.js';
import { Tensor } from '../../tensor/tensor.js';
import type { LayerSpec } from './context.js';
import type { Field } from './emit.js';

const OP = 'generateOnnxModule';

/** The fields of a generated model, built at generation time: the `.bpk` is this module's record. */
class GeneratedWeights extends Module {}

type ConfigClass = new (options: Readonly<Record<string, unknown>>) => { init(device?: Device): Module };

/** The layer of a spec, made exactly as the generated constructor makes it (same config class, same options). */
function makeLayer(spec: LayerSpec, device: Device): Module {
  const Cfg = (nn as unknown as Record<string, ConfigClass | undefined>)[spec.configCls];
  if (!Cfg) throw new BurnError(OP, `internal: burn-ts/nn has no ${spec.configCls}`);
  return spec.device ? new Cfg(spec.config).init(device) : new Cfg(spec.config).init();
}

/** Puts `data` at `path` inside `layer` (a parameter or a running state), checking the shape the layer made. */
function setLeaf(layer: Module, path: string, data: TensorData, device: Device): void {
  const parts = path.split('.');
  let node = layer as unknown as Record<string, unknown>;
  for (const p of parts.slice(0, -1)) node = node[p] as Record<string, unknown>;
  const key = parts[parts.length - 1]!;
  const current = node[key];
  const tensor = Tensor.fromData(data, device);
  const dims =
    current instanceof Param ? current.dims() : current instanceof RunningState ? current.value().dims() : undefined;
  if (!dims) throw new BurnError(OP, `internal: ${layer.constructor.name} has no parameter '${path}'`);
  if (dims.length !== data.shape.length || dims.some((d: number, i: number) => d !== data.shape[i])) {
    throw new BurnError(
      OP,
      `internal: ${layer.constructor.name}.${path} has shape ${fmt(dims)}; the ONNX weight has ${fmt(data.shape)}`,
    );
  }
  node[key] = current instanceof Param ? current.withTensor(tensor) : (current as RunningState).update(tensor);
}

/**
 * The generated model's fields with the ONNX weights in place, as a module whose record has the
 * generated class's paths (`conv1.weight`, `lstm.inputGate.inputTransform.bias`, …): its bytes are
 * the `.bpk` the generated `load` reads.
 */
export function weightsModule(fields: readonly Field[], device: Device): Module {
  const m = new GeneratedWeights() as unknown as Record<string, unknown>;
  for (const f of fields) {
    if ('layer' in f) {
      const layer = makeLayer(f.layer, device);
      for (const [path, data] of f.layer.weights) setLeaf(layer, path, data, device);
      m[f.name] = layer;
    } else {
      m[f.name] = new Param(Tensor.fromData(f.param.data, device), { requireGrad: f.param.trainable });
    }
  }
  return m as unknown as Module;
}
