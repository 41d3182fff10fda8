// Builds small ONNX models in tests with the generated protobuf code (no Python needed in CI).
import { create, toBinary } from '@bufbuild/protobuf';
import {
  AttributeProto_AttributeType as AT,
  AttributeProtoSchema,
  GraphProtoSchema,
  ModelProtoSchema,
  NodeProtoSchema,
  OperatorSetIdProtoSchema,
  TensorProtoSchema,
  TensorShapeProto_DimensionSchema,
  TensorShapeProtoSchema,
  TypeProto_TensorSchema,
  TypeProtoSchema,
  ValueInfoProtoSchema,
  type AttributeProto,
  type GraphProto,
  type TensorProto,
  type ValueInfoProto,
} from '../../src/onnx/proto/onnx/onnx-ml_pb.js';

/** ONNX element type codes used in tests. */
export const T = {
  f32: 1,
  u8: 2,
  i8: 3,
  u16: 4,
  i16: 5,
  i32: 6,
  i64: 7,
  string: 8,
  bool: 9,
  f16: 10,
  f64: 11,
  u32: 12,
  u64: 13,
  bf16: 16,
} as const;

/** A graph input/output: name, element type code, dims (numbers, symbolic names, or null for unknown). */
export function value(name: string, elem: number, dims?: readonly (number | string | null)[]): ValueInfoProto {
  const shape =
    dims &&
    create(TensorShapeProtoSchema, {
      dim: dims.map((d) =>
        create(TensorShapeProto_DimensionSchema, {
          value:
            typeof d === 'number'
              ? { case: 'dimValue', value: BigInt(d) }
              : typeof d === 'string'
                ? { case: 'dimParam', value: d }
                : { case: undefined },
        }),
      ),
    });
  return create(ValueInfoProtoSchema, {
    name,
    type: create(TypeProtoSchema, {
      value: { case: 'tensorType', value: create(TypeProto_TensorSchema, { elemType: elem, shape }) },
    }),
  });
}

/** A tensor from raw little-endian bytes. */
export function rawTensor(name: string, elem: number, dims: readonly number[], raw: Uint8Array): TensorProto {
  return create(TensorProtoSchema, { name, dataType: elem, dims: dims.map(BigInt), rawData: raw });
}

/** An f32 tensor (raw_data). */
export function floats(name: string, dims: readonly number[], values: readonly number[]): TensorProto {
  return rawTensor(name, T.f32, dims, new Uint8Array(Float32Array.from(values).buffer));
}

/** An i64 tensor (int64_data). */
export function int64s(name: string, dims: readonly number[], values: readonly number[]): TensorProto {
  return create(TensorProtoSchema, { name, dataType: T.i64, dims: dims.map(BigInt), int64Data: values.map(BigInt) });
}

type AttrValue =
  | number
  | string
  | readonly number[]
  | readonly string[]
  | TensorProto
  | GraphProto
  | { readonly floats: readonly number[] }
  | { readonly float: number };

/** An attribute: integers and integer lists are INT/INTS; `{ float }` and `{ floats }` mark floats. */
export function attr(name: string, v: AttrValue): AttributeProto {
  if (typeof v === 'number') return create(AttributeProtoSchema, { name, type: AT.INT, i: BigInt(v) });
  if (typeof v === 'string')
    return create(AttributeProtoSchema, { name, type: AT.STRING, s: new TextEncoder().encode(v) });
  if (Array.isArray(v)) {
    if (typeof v[0] === 'string')
      return create(AttributeProtoSchema, {
        name,
        type: AT.STRINGS,
        strings: (v as string[]).map((s) => new TextEncoder().encode(s)),
      });
    return create(AttributeProtoSchema, { name, type: AT.INTS, ints: (v as number[]).map(BigInt) });
  }
  const o = v as { $typeName?: string; floats?: readonly number[]; float?: number };
  if (o.$typeName === 'onnx.TensorProto')
    return create(AttributeProtoSchema, { name, type: AT.TENSOR, t: v as TensorProto });
  if (o.$typeName === 'onnx.GraphProto')
    return create(AttributeProtoSchema, { name, type: AT.GRAPH, g: v as GraphProto });
  if (o.floats) return create(AttributeProtoSchema, { name, type: AT.FLOATS, floats: [...o.floats] });
  return create(AttributeProtoSchema, { name, type: AT.FLOAT, f: o.float! });
}

/** A node. */
export function node(
  opType: string,
  inputs: readonly string[],
  outputs: readonly string[],
  attrs: Readonly<Record<string, AttrValue>> = {},
  name = '',
  domain = '',
) {
  return create(NodeProtoSchema, {
    opType,
    input: [...inputs],
    output: [...outputs],
    name,
    domain,
    attribute: Object.entries(attrs).map(([k, v]) => attr(k, v)),
  });
}

/** A graph. */
export function graph(spec: {
  nodes: ReturnType<typeof node>[];
  inputs: ValueInfoProto[];
  outputs: ValueInfoProto[];
  initializers?: TensorProto[];
  name?: string;
}): GraphProto {
  return create(GraphProtoSchema, {
    name: spec.name ?? 'g',
    node: spec.nodes,
    input: spec.inputs,
    output: spec.outputs,
    initializer: spec.initializers ?? [],
  });
}

/** Serialized model bytes (IR version 8, the default domain at `opset`, plus `extraOpsets`). */
export function model(g: GraphProto, opset = 17, extraOpsets: Readonly<Record<string, number>> = {}): Uint8Array {
  const opsetImport = [
    create(OperatorSetIdProtoSchema, { domain: '', version: BigInt(opset) }),
    ...Object.entries(extraOpsets).map(([domain, v]) =>
      create(OperatorSetIdProtoSchema, { domain, version: BigInt(v) }),
    ),
  ];
  return toBinary(
    ModelProtoSchema,
    create(ModelProtoSchema, { irVersion: 8n, producerName: 'burn-ts tests', opsetImport, graph: g }),
  );
}
