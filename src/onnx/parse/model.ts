import { fromBinary } from '@bufbuild/protobuf';
import { TensorData } from '../../core/data.js';
import { BurnError, fmt } from '../../core/errors.js';
import {
  AttributeProto_AttributeType as AT,
  ModelProtoSchema,
  type AttributeProto,
  type GraphProto,
  type ModelProto,
  type NodeProto,
  type SparseTensorProto,
  type TypeProto,
  type ValueInfoProto,
} from '../proto/onnx/onnx-ml_pb.js';
import type {
  Attribute,
  ConstTensor,
  Dim,
  Graph,
  Model,
  ModelFunction,
  Node,
  ValueInfo,
  ValueType,
} from '../ir/types.js';
import { elemTypeOfCode, isSupportedElem } from './dtype.js';
import { readTensorProto, tensorDims } from './tensor.js';

const OP = 'loadOnnx';
/** Subgraphs nest (If inside Loop inside If…); a depth past this is a malformed or hostile file. */
const MAX_GRAPH_DEPTH = 64;

/** File signatures of formats that are often confused with ONNX, for a clearer "wrong file" message. */
function sniffOtherFormat(bytes: Uint8Array): string | undefined {
  const ascii = (n: number) => String.fromCharCode(...bytes.subarray(0, n));
  if (bytes.length >= 4 && ascii(4) === 'PK\x03\x04') return 'a zip archive (a PyTorch .pt/.pth file?)';
  if (bytes.length >= 2 && bytes[0] === 0x80 && bytes[1]! >= 2 && bytes[1]! <= 5) return 'a Python pickle';
  if (bytes.length >= 8 && ascii(8) === '\x89HDF\r\n\x1a\n') return 'an HDF5 file';
  if (bytes.length >= 9 && bytes[8] === 0x7b && bytes.length >= 10 && bytes[9] === 0x22) return 'a SafeTensors file';
  if (bytes.length >= 4 && ascii(4) === 'BURN') return 'a burnpack file';
  if (bytes.length >= 1 && (bytes[0] === 0x7b || bytes[0] === 0x5b)) return 'JSON text';
  return undefined;
}

/**
 * Parses ONNX model bytes (a serialized `ModelProto`) into the IR. Truncated or corrupt protobuf,
 * files of another format, models without a graph, malformed tensors and attributes all raise a
 * BurnError that says what is wrong; nothing is executed and no external file is read here.
 */
export function parseModel(bytes: Uint8Array): Model {
  if (bytes.length === 0)
    throw new BurnError(OP, 'the model is empty (0 bytes); expected a serialized ONNX ModelProto');
  const other = sniffOtherFormat(bytes);
  if (other)
    throw new BurnError(
      OP,
      `the bytes look like ${other}, not an ONNX model (wrong magic); expected a serialized ONNX ModelProto`,
    );
  let proto: ModelProto;
  try {
    proto = fromBinary(ModelProtoSchema, bytes);
  } catch (e) {
    throw new BurnError(OP, `the model is not valid ONNX protobuf (truncated or corrupt): ${(e as Error).message}`);
  }
  if (!proto.graph)
    throw new BurnError(
      OP,
      `the bytes decode as protobuf but hold no graph (ir_version ${proto.irVersion}); expected an ONNX ModelProto (wrong file?)`,
    );
  if (proto.irVersion <= 0n)
    throw new BurnError(OP, `the model has ir_version ${proto.irVersion}; expected a positive ONNX IR version`);
  const opsets = new Map<string, number>();
  for (const o of proto.opsetImport) {
    const domain = o.domain === 'ai.onnx' ? '' : o.domain;
    opsets.set(domain, Number(o.version));
  }
  // IR version 3 and later list their opsets; older files default to the ONNX domain, opset 1.
  if (!opsets.has('')) opsets.set('', proto.opsetImport.length === 0 ? 1 : 0);
  const functions = new Map<string, ModelFunction>();
  for (const f of proto.functions) {
    const fo = new Map<string, number>(
      f.opsetImport.map((o) => [o.domain === 'ai.onnx' ? '' : o.domain, Number(o.version)]),
    );
    functions.set(`${f.domain}:${f.name}`, {
      name: f.name,
      domain: f.domain,
      inputs: f.input,
      outputs: f.output,
      attributeNames: f.attribute,
      nodes: f.node.map((n, i) => convertNode(n, i, 1)),
      opsets: fo,
    });
  }
  return {
    irVersion: Number(proto.irVersion),
    opsets,
    producer: `${proto.producerName} ${proto.producerVersion}`.trim(),
    graph: convertGraph(proto.graph, 0),
    functions,
  };
}

function convertGraph(g: GraphProto, depth: number): Graph {
  if (depth > MAX_GRAPH_DEPTH)
    throw new BurnError(OP, `subgraphs nest deeper than ${MAX_GRAPH_DEPTH} levels; expected a well-formed model`);
  const initializers = new Map<string, ConstTensor>();
  g.initializer.forEach((t, i) => {
    const c = readTensorProto(t, `initializer_${i}`);
    initializers.set(c.name, c);
  });
  for (const s of g.sparseInitializer) {
    const c = densify(s);
    initializers.set(c.name, c);
  }
  const types = new Map<string, ValueType>();
  const info = (v: ValueInfoProto): ValueInfo => {
    const type = v.type ? convertType(v.type) : undefined;
    if (type) types.set(v.name, type);
    return { name: v.name, type };
  };
  // Since IR version 4 an initializer need not be a graph input; when it is, it is a default, not an input.
  const inputs = g.input.map(info).filter((v) => !initializers.has(v.name));
  const outputs = g.output.map(info);
  g.valueInfo.forEach(info);
  return { name: g.name, nodes: g.node.map((n, i) => convertNode(n, i, depth)), inputs, outputs, initializers, types };
}

function convertNode(n: NodeProto, index: number, depth: number): Node {
  const attributes = new Map<string, Attribute>();
  const name = n.name || `${n.opType}_${index}`;
  for (const a of n.attribute) attributes.set(a.name, convertAttribute(a, name, depth));
  return {
    name,
    opType: n.opType,
    domain: n.domain === 'ai.onnx' ? '' : n.domain,
    inputs: n.input,
    outputs: n.output,
    attributes,
  };
}

function safeInt(v: bigint): number {
  // INT64_MAX/MIN are common sentinels ("to the end" in Slice): they stay huge, not exact.
  return Number(v);
}

function convertAttribute(a: AttributeProto, node: string, depth: number): Attribute {
  if (a.refAttrName) return { kind: 'ref', name: a.refAttrName };
  const dec = new TextDecoder();
  // Files from before IR version 2 may leave `type` unset: infer it from the field that is filled.
  let type = a.type;
  if (type === AT.UNDEFINED) {
    type = a.t
      ? AT.TENSOR
      : a.g
        ? AT.GRAPH
        : a.floats.length
          ? AT.FLOATS
          : a.ints.length
            ? AT.INTS
            : a.strings.length
              ? AT.STRINGS
              : a.tensors.length
                ? AT.TENSORS
                : a.graphs.length
                  ? AT.GRAPHS
                  : a.s.length
                    ? AT.STRING
                    : a.f !== 0
                      ? AT.FLOAT
                      : AT.INT;
  }
  switch (type) {
    case AT.FLOAT:
      return { kind: 'float', value: a.f };
    case AT.INT:
      return { kind: 'int', value: safeInt(a.i) };
    case AT.STRING:
      return { kind: 'string', value: dec.decode(a.s) };
    case AT.TENSOR:
      if (!a.t) throw new BurnError(OP, `attribute '${a.name}' of node '${node}' is a TENSOR without a tensor`);
      return { kind: 'tensor', value: readTensorProto(a.t, `${node}.${a.name}`) };
    case AT.GRAPH:
      if (!a.g) throw new BurnError(OP, `attribute '${a.name}' of node '${node}' is a GRAPH without a graph`);
      return { kind: 'graph', value: convertGraph(a.g, depth + 1) };
    case AT.FLOATS:
      return { kind: 'floats', value: a.floats };
    case AT.INTS:
      return { kind: 'ints', value: a.ints.map(safeInt) };
    case AT.STRINGS:
      return { kind: 'strings', value: a.strings.map((s) => dec.decode(s)) };
    case AT.TENSORS:
      return { kind: 'tensors', value: a.tensors.map((t, i) => readTensorProto(t, `${node}.${a.name}.${i}`)) };
    case AT.GRAPHS:
      return { kind: 'graphs', value: a.graphs.map((g) => convertGraph(g, depth + 1)) };
    case AT.TYPE_PROTO:
      return { kind: 'type', value: a.tp ? convertType(a.tp) : undefined };
    case AT.SPARSE_TENSOR:
      if (!a.sparseTensor)
        throw new BurnError(OP, `attribute '${a.name}' of node '${node}' is a SPARSE_TENSOR without a tensor`);
      return { kind: 'tensor', value: densify(a.sparseTensor) };
    default:
      return { kind: 'other', what: `attribute type ${AT[type] ?? type}` };
  }
}

/** Converts a `TypeProto`: tensors keep their dims (sizes, symbolic names, or unknown). */
export function convertType(t: TypeProto): ValueType | undefined {
  const v = t.value;
  switch (v.case) {
    case 'tensorType': {
      const elem = elemTypeOfCode(v.value.elemType) ?? 'undefined';
      const shape = v.value.shape?.dim.map(
        (d): Dim =>
          d.value.case === 'dimValue'
            ? Number(d.value.value)
            : d.value.case === 'dimParam' && d.value.value !== ''
              ? d.value.value
              : undefined,
      );
      return { kind: 'tensor', elem, shape };
    }
    case 'sequenceType':
      return { kind: 'sequence', elem: v.value.elemType ? convertType(v.value.elemType) : undefined };
    case 'optionalType':
      return { kind: 'optional', elem: v.value.elemType ? convertType(v.value.elemType) : undefined };
    case 'mapType':
      return { kind: 'other', what: 'map' };
    case 'sparseTensorType':
      return { kind: 'other', what: 'sparse tensor' };
    case 'opaqueType':
      return { kind: 'other', what: 'opaque' };
    default:
      return undefined;
  }
}

/** A sparse tensor as a dense constant (indices linearized `[NNZ]` or per-dim `[NNZ, rank]`). */
function densify(s: SparseTensorProto): ConstTensor {
  if (!s.values) throw new BurnError(OP, 'a sparse tensor has no values');
  const values = readTensorProto(s.values);
  const name = values.name;
  const shape = tensorDims(s.dims, `sparse tensor '${name}'`);
  if (!values.data || !isSupportedElem(values.elem)) return { name, elem: values.elem, shape, data: undefined };
  const n = shape.reduce((a, b) => a * b, 1);
  const nnz = values.data.numElements();
  const out = TensorData.zeros(shape, values.data.dtype);
  const idx = s.indices ? readTensorProto(s.indices) : undefined;
  const flat = idx?.data?.toArray();
  if (!flat || !(flat.length === nnz || flat.length === nnz * shape.length)) {
    throw new BurnError(
      OP,
      `sparse tensor '${name}' of dims ${fmt(shape)} has ${flat?.length ?? 0} indices for ${nnz} values; expected [NNZ] or [NNZ, rank]`,
    );
  }
  const strides = shape.map((_, i) => shape.slice(i + 1).reduce((a, b) => a * b, 1));
  const src = values.data.values as ArrayLike<number | bigint>;
  const dst = out.values as unknown as (number | bigint)[];
  for (let k = 0; k < nnz; k++) {
    let pos = 0;
    if (flat.length === nnz) pos = flat[k]!;
    else for (let d = 0; d < shape.length; d++) pos += flat[k * shape.length + d]! * strides[d]!;
    if (!(pos >= 0 && pos < n))
      throw new BurnError(OP, `sparse tensor '${name}' has index ${pos} outside its ${n} elements`);
    dst[pos] = src[k]!;
  }
  return { name, elem: values.elem, shape, data: out };
}
