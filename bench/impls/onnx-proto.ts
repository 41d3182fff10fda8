/**
 * A minimal protobuf encoder for the parts of ONNX's `ModelProto` the benchmark needs (one-node
 * graphs: ModelProto, OperatorSetIdProto, GraphProto, NodeProto, AttributeProto, ValueInfoProto,
 * TypeProto, TensorShapeProto, TensorProto). Field numbers follow onnx/onnx.proto3.
 */

/** Protobuf wire types used here. */
const VARINT = 0;
const FIXED32 = 5;
const LEN = 2;

/** Appends protobuf fields to a growing byte buffer. */
export class ProtoWriter {
  private chunks: Uint8Array[] = [];
  private length = 0;

  private push(bytes: Uint8Array): void {
    this.chunks.push(bytes);
    this.length += bytes.length;
  }

  private rawVarint(value: bigint): void {
    // Negative int64 values are written as their 64-bit two's complement (10 bytes).
    let v = BigInt.asUintN(64, value);
    const out: number[] = [];
    do {
      let byte = Number(v & 0x7fn);
      v >>= 7n;
      if (v !== 0n) byte |= 0x80;
      out.push(byte);
    } while (v !== 0n);
    this.push(Uint8Array.from(out));
  }

  private tag(field: number, wire: number): void {
    this.rawVarint(BigInt((field << 3) | wire));
  }

  /** An int32/int64/enum field. */
  int(field: number, value: number): this {
    this.tag(field, VARINT);
    this.rawVarint(BigInt(value));
    return this;
  }

  /** A float field. */
  float(field: number, value: number): this {
    this.tag(field, FIXED32);
    const b = new Uint8Array(4);
    new DataView(b.buffer).setFloat32(0, value, true);
    this.push(b);
    return this;
  }

  /** A bytes field. */
  bytes(field: number, value: Uint8Array): this {
    this.tag(field, LEN);
    this.rawVarint(BigInt(value.length));
    this.push(value);
    return this;
  }

  /** A string field (UTF-8). */
  string(field: number, value: string): this {
    return this.bytes(field, new TextEncoder().encode(value));
  }

  /** An embedded message field. */
  message(field: number, value: ProtoWriter): this {
    return this.bytes(field, value.finish());
  }

  /** A packed repeated int64 field. */
  packedInts(field: number, values: readonly number[]): this {
    const inner = new ProtoWriter();
    for (const v of values) inner.rawVarint(BigInt(v));
    return this.bytes(field, inner.finish());
  }

  /** A packed repeated float field. */
  packedFloats(field: number, values: ArrayLike<number>): this {
    const b = new Uint8Array(4 * values.length);
    const view = new DataView(b.buffer);
    for (let i = 0; i < values.length; i++) view.setFloat32(4 * i, values[i]!, true);
    return this.bytes(field, b);
  }

  /** The encoded bytes. */
  finish(): Uint8Array {
    const out = new Uint8Array(this.length);
    let at = 0;
    for (const c of this.chunks) {
      out.set(c, at);
      at += c.length;
    }
    return out;
  }
}

/** ONNX `TensorProto.DataType.FLOAT`. */
const ONNX_FLOAT = 1;

/** An attribute of a node. */
export type OnnxAttr =
  | { readonly name: string; readonly int: number }
  | { readonly name: string; readonly ints: readonly number[] }
  | { readonly name: string; readonly float: number };

/** A one-op graph: named f32 inputs (with shapes), f32 initializers, one output `y`. */
export interface OneOpModel {
  readonly opType: string;
  readonly inputs: readonly { readonly name: string; readonly shape: readonly number[] }[];
  readonly initializers?: readonly {
    readonly name: string;
    readonly shape: readonly number[];
    readonly values: ArrayLike<number>;
  }[];
  /** Node inputs in order (graph inputs and initializers by name). */
  readonly nodeInputs: readonly string[];
  readonly attrs?: readonly OnnxAttr[];
  readonly opset: number;
}

function attribute(a: OnnxAttr): ProtoWriter {
  const w = new ProtoWriter().string(1, a.name);
  if ('int' in a) return w.int(3, a.int).int(20, 2);
  if ('ints' in a) return w.packedInts(8, a.ints).int(20, 7);
  return w.float(2, a.float).int(20, 1);
}

function valueInfo(name: string, shape: readonly number[] | undefined): ProtoWriter {
  const tensorType = new ProtoWriter().int(1, ONNX_FLOAT);
  if (shape) {
    const shapeProto = new ProtoWriter();
    for (const d of shape) shapeProto.message(1, new ProtoWriter().int(1, d));
    tensorType.message(2, shapeProto);
  }
  return new ProtoWriter().string(1, name).message(2, new ProtoWriter().message(1, tensorType));
}

/** Encodes a `ModelProto` (IR version 8) holding one node whose output is `y`. */
export function encodeOneOpModel(m: OneOpModel): Uint8Array {
  const node = new ProtoWriter();
  for (const i of m.nodeInputs) node.string(1, i);
  node.string(2, 'y').string(3, 'node').string(4, m.opType);
  for (const a of m.attrs ?? []) node.message(5, attribute(a));

  const graph = new ProtoWriter().message(1, node).string(2, 'bench');
  for (const init of m.initializers ?? []) {
    const t = new ProtoWriter();
    if (init.shape.length > 0) t.packedInts(1, init.shape);
    t.int(2, ONNX_FLOAT).packedFloats(4, init.values).string(8, init.name);
    graph.message(5, t);
  }
  for (const i of m.inputs) graph.message(11, valueInfo(i.name, i.shape));
  graph.message(12, valueInfo('y', undefined));

  return new ProtoWriter()
    .int(1, 8)
    .string(2, 'burn-ts-bench')
    .message(7, graph)
    .message(8, new ProtoWriter().string(1, '').int(2, m.opset))
    .finish();
}
