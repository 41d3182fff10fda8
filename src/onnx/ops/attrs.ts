import { BurnError } from '../../core/errors.js';
import type { Attribute, ConstTensor, Graph, Node } from '../ir/types.js';

/**
 * Typed access to a node's attributes with ONNX defaults. A present attribute of the wrong type is
 * a BurnError naming the node, the attribute and both types.
 */
export class Attrs {
  constructor(private readonly node: Node) {}

  /** True when the attribute is present. */
  has(name: string): boolean {
    return this.node.attributes.has(name);
  }

  private get(
    name: string,
    kinds: readonly Attribute['kind'][],
  ): { readonly kind: Attribute['kind']; readonly value: unknown } | undefined {
    const a = this.node.attributes.get(name);
    if (a === undefined) return undefined;
    if (!kinds.includes(a.kind)) {
      throw new BurnError(
        'onnx',
        `node '${this.node.name}' (${this.node.opType}) has attribute '${name}' of type ${a.kind}; expected ${kinds.join(' or ')}`,
      );
    }
    return a as { readonly kind: Attribute['kind']; readonly value: unknown };
  }

  /** An INT attribute. */
  int(name: string, fallback: number): number;
  int(name: string): number | undefined;
  int(name: string, fallback?: number): number | undefined {
    const a = this.get(name, ['int']);
    return a ? (a.value as number) : fallback;
  }

  /** A FLOAT attribute (an INT is accepted, as some exporters write `alpha: 1`). */
  float(name: string, fallback: number): number;
  float(name: string): number | undefined;
  float(name: string, fallback?: number): number | undefined {
    const a = this.get(name, ['float', 'int']);
    return a ? (a.value as number) : fallback;
  }

  /** A STRING attribute. */
  string(name: string, fallback: string): string;
  string(name: string): string | undefined;
  string(name: string, fallback?: string): string | undefined {
    const a = this.get(name, ['string']);
    return a ? (a.value as string) : fallback;
  }

  /** An INTS attribute. */
  ints(name: string, fallback: readonly number[]): readonly number[];
  ints(name: string): readonly number[] | undefined;
  ints(name: string, fallback?: readonly number[]): readonly number[] | undefined {
    const a = this.get(name, ['ints', 'int']);
    if (!a) return fallback;
    return a.kind === 'int' ? [a.value as number] : (a.value as readonly number[]);
  }

  /** A FLOATS attribute. */
  floats(name: string, fallback: readonly number[]): readonly number[];
  floats(name: string): readonly number[] | undefined;
  floats(name: string, fallback?: readonly number[]): readonly number[] | undefined {
    const a = this.get(name, ['floats', 'ints']);
    return a ? (a.value as readonly number[]) : fallback;
  }

  /** A STRINGS attribute. */
  strings(name: string): readonly string[] | undefined {
    return this.get(name, ['strings'])?.value as readonly string[] | undefined;
  }

  /** A TENSOR attribute. */
  tensor(name: string): ConstTensor | undefined {
    return this.get(name, ['tensor'])?.value as ConstTensor | undefined;
  }

  /** A GRAPH attribute. */
  graph(name: string): Graph | undefined {
    return this.get(name, ['graph'])?.value as Graph | undefined;
  }

  /** A required GRAPH attribute. */
  requireGraph(name: string): Graph {
    const g = this.graph(name);
    if (!g)
      throw new BurnError('onnx', `node '${this.node.name}' (${this.node.opType}) has no graph attribute '${name}'`);
    return g;
  }
}
