import { BurnError } from '../../../core/errors.js';

/**
 * The elementwise expressions of the `js` kernels (../js/expressions.ts: `Math.exp(x)`,
 * `(y === 0 ? 0 : Math.trunc(x / y))`, `H.saturate(x, -128, 127)`, …) compiled without `eval`
 * into steps over blocks of values: each operator of the expression becomes one tight loop over a
 * block of registers (Float64Arrays). The interpreter (interpreter.ts) uses it where a page's
 * Content-Security-Policy forbids `new Function`; since it parses the very expressions the
 * generated kernels paste into their source, both paths compute the same values.
 *
 * The grammar is the small subset of JavaScript those tables use: numbers, the operand names,
 * `Infinity`/`NaN`, member calls on `Math` and `H`, unary `- + ~ !`, the binary arithmetic, bit,
 * comparison and logical operators, `?:` and parentheses. Every operand is evaluated (the
 * expressions are pure), and a boolean result is held as 1/0, which every use of it (a `?:` test,
 * `||`) reads the same way.
 */

/** A register: one value per element of the block. */
export type Reg = Float64Array;
/** One compiled step: computes its output register for the first `n` elements of the block. */
export type Step = (n: number) => void;

type Node =
  | { readonly t: 'num'; readonly v: number }
  | { readonly t: 'id'; readonly name: string }
  | { readonly t: 'member'; readonly obj: Node; readonly prop: string }
  | { readonly t: 'call'; readonly callee: Node; readonly args: readonly Node[] }
  | { readonly t: 'un'; readonly op: string; readonly a: Node }
  | { readonly t: 'bin'; readonly op: string; readonly a: Node; readonly b: Node }
  | { readonly t: 'cond'; readonly c: Node; readonly a: Node; readonly b: Node };

const TOKEN =
  /\s*(?:(\d+(?:\.\d*)?(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)|([A-Za-z_$][\w$]*)|(>>>|===|!==|<<|>>|<=|>=|&&|\|\||[-+*/%&|^~!<>?:(),.]))/y;

function tokenize(src: string): string[] {
  const out: string[] = [];
  TOKEN.lastIndex = 0;
  let at = 0;
  while (at < src.length) {
    if (/^\s*$/.test(src.slice(at))) break;
    TOKEN.lastIndex = at;
    const m = TOKEN.exec(src);
    if (m === null) throw new BurnError('fusion', `cannot parse the kernel expression ${JSON.stringify(src)} at ${at}`);
    out.push((m[1] ?? m[2] ?? m[3])!);
    at = TOKEN.lastIndex;
  }
  return out;
}

// Binary precedence, loosest first (JavaScript's).
const BINARY_LEVELS: readonly (readonly string[])[] = [
  ['||'],
  ['&&'],
  ['|'],
  ['^'],
  ['&'],
  ['===', '!=='],
  ['<', '<=', '>', '>='],
  ['<<', '>>', '>>>'],
  ['+', '-'],
  ['*', '/', '%'],
];

/** Parses an expression of the kernels' tables. */
export function parseExpr(src: string): Node {
  const toks = tokenize(src);
  let i = 0;
  const peek = () => toks[i];
  const expect = (t: string) => {
    if (toks[i] !== t) throw new BurnError('fusion', `expected ${t} in the kernel expression ${JSON.stringify(src)}`);
    i++;
  };
  const cond = (): Node => {
    const c = binary(0);
    if (peek() !== '?') return c;
    i++;
    const a = cond();
    expect(':');
    const b = cond();
    return { t: 'cond', c, a, b };
  };
  const binary = (level: number): Node => {
    if (level === BINARY_LEVELS.length) return unary();
    let a = binary(level + 1);
    while (BINARY_LEVELS[level]!.includes(peek() ?? '')) {
      const op = toks[i++]!;
      a = { t: 'bin', op, a, b: binary(level + 1) };
    }
    return a;
  };
  const unary = (): Node => {
    const t = peek();
    if (t === '-' || t === '+' || t === '~' || t === '!') {
      i++;
      return { t: 'un', op: t, a: unary() };
    }
    return postfix();
  };
  const postfix = (): Node => {
    let node = primary();
    for (;;) {
      if (peek() === '.') {
        i++;
        node = { t: 'member', obj: node, prop: toks[i++]! };
      } else if (peek() === '(') {
        i++;
        const args: Node[] = [];
        if (peek() !== ')')
          for (;;) {
            args.push(cond());
            if (peek() === ',') i++;
            else break;
          }
        expect(')');
        node = { t: 'call', callee: node, args };
      } else return node;
    }
  };
  const primary = (): Node => {
    const t = toks[i++];
    if (t === undefined)
      throw new BurnError('fusion', `unexpected end of the kernel expression ${JSON.stringify(src)}`);
    if (t === '(') {
      const e = cond();
      expect(')');
      return e;
    }
    if (/^[\d.]/.test(t)) return { t: 'num', v: Number(t) };
    if (/^[A-Za-z_$]/.test(t)) return { t: 'id', name: t };
    throw new BurnError('fusion', `unexpected ${t} in the kernel expression ${JSON.stringify(src)}`);
  };
  const e = cond();
  if (i !== toks.length)
    throw new BurnError('fusion', `trailing ${toks[i]} in the kernel expression ${JSON.stringify(src)}`);
  return e;
}

type BinLoop = (o: Reg, a: Reg, b: Reg) => Step;
type UnLoop = (o: Reg, a: Reg) => Step;

// One loop per operator: each closure's code is specialized to its operator.
const BIN: Record<string, BinLoop> = {
  '+': (o, a, b) => (n) => {
    const O = o,
      A = a,
      B = b;
    for (let i = 0; i < n; i++) O[i] = A[i]! + B[i]!;
  },
  '-': (o, a, b) => (n) => {
    const O = o,
      A = a,
      B = b;
    for (let i = 0; i < n; i++) O[i] = A[i]! - B[i]!;
  },
  '*': (o, a, b) => (n) => {
    const O = o,
      A = a,
      B = b;
    for (let i = 0; i < n; i++) O[i] = A[i]! * B[i]!;
  },
  '/': (o, a, b) => (n) => {
    const O = o,
      A = a,
      B = b;
    for (let i = 0; i < n; i++) O[i] = A[i]! / B[i]!;
  },
  '%': (o, a, b) => (n) => {
    const O = o,
      A = a,
      B = b;
    for (let i = 0; i < n; i++) O[i] = A[i]! % B[i]!;
  },
  '&': (o, a, b) => (n) => {
    const O = o,
      A = a,
      B = b;
    for (let i = 0; i < n; i++) O[i] = A[i]! & B[i]!;
  },
  '|': (o, a, b) => (n) => {
    const O = o,
      A = a,
      B = b;
    for (let i = 0; i < n; i++) O[i] = A[i]! | B[i]!;
  },
  '^': (o, a, b) => (n) => {
    const O = o,
      A = a,
      B = b;
    for (let i = 0; i < n; i++) O[i] = A[i]! ^ B[i]!;
  },
  '<<': (o, a, b) => (n) => {
    const O = o,
      A = a,
      B = b;
    for (let i = 0; i < n; i++) O[i] = A[i]! << B[i]!;
  },
  '>>': (o, a, b) => (n) => {
    const O = o,
      A = a,
      B = b;
    for (let i = 0; i < n; i++) O[i] = A[i]! >> B[i]!;
  },
  '>>>': (o, a, b) => (n) => {
    const O = o,
      A = a,
      B = b;
    for (let i = 0; i < n; i++) O[i] = A[i]! >>> B[i]!;
  },
  '===': (o, a, b) => (n) => {
    const O = o,
      A = a,
      B = b;
    for (let i = 0; i < n; i++) O[i] = A[i] === B[i] ? 1 : 0;
  },
  '!==': (o, a, b) => (n) => {
    const O = o,
      A = a,
      B = b;
    for (let i = 0; i < n; i++) O[i] = A[i] !== B[i] ? 1 : 0;
  },
  '<': (o, a, b) => (n) => {
    const O = o,
      A = a,
      B = b;
    for (let i = 0; i < n; i++) O[i] = A[i]! < B[i]! ? 1 : 0;
  },
  '<=': (o, a, b) => (n) => {
    const O = o,
      A = a,
      B = b;
    for (let i = 0; i < n; i++) O[i] = A[i]! <= B[i]! ? 1 : 0;
  },
  '>': (o, a, b) => (n) => {
    const O = o,
      A = a,
      B = b;
    for (let i = 0; i < n; i++) O[i] = A[i]! > B[i]! ? 1 : 0;
  },
  '>=': (o, a, b) => (n) => {
    const O = o,
      A = a,
      B = b;
    for (let i = 0; i < n; i++) O[i] = A[i]! >= B[i]! ? 1 : 0;
  },
  '&&': (o, a, b) => (n) => {
    const O = o,
      A = a,
      B = b;
    for (let i = 0; i < n; i++) O[i] = A[i]! && B[i]!;
  },
  '||': (o, a, b) => (n) => {
    const O = o,
      A = a,
      B = b;
    for (let i = 0; i < n; i++) O[i] = A[i]! || B[i]!;
  },
};

const UN: Record<string, UnLoop> = {
  '-': (o, a) => (n) => {
    const O = o,
      A = a;
    for (let i = 0; i < n; i++) O[i] = -A[i]!;
  },
  '+': (o, a) => (n) => {
    const O = o,
      A = a;
    for (let i = 0; i < n; i++) O[i] = +A[i]!;
  },
  '~': (o, a) => (n) => {
    const O = o,
      A = a;
    for (let i = 0; i < n; i++) O[i] = ~A[i]!;
  },
  '!': (o, a) => (n) => {
    const O = o,
      A = a;
    for (let i = 0; i < n; i++) O[i] = A[i] ? 0 : 1;
  },
};

// Calls of the hottest functions get loops of their own (a shared loop calling `f` is megamorphic).
const CALL1 = new Map<Function, UnLoop>([
  [
    Math.exp,
    (o, a) => (n) => {
      const O = o,
        A = a;
      for (let i = 0; i < n; i++) O[i] = Math.exp(A[i]!);
    },
  ],
  [
    Math.fround,
    (o, a) => (n) => {
      const O = o,
        A = a;
      for (let i = 0; i < n; i++) O[i] = Math.fround(A[i]!);
    },
  ],
  [
    Math.sqrt,
    (o, a) => (n) => {
      const O = o,
        A = a;
      for (let i = 0; i < n; i++) O[i] = Math.sqrt(A[i]!);
    },
  ],
  [
    Math.tanh,
    (o, a) => (n) => {
      const O = o,
        A = a;
      for (let i = 0; i < n; i++) O[i] = Math.tanh(A[i]!);
    },
  ],
  [
    Math.log,
    (o, a) => (n) => {
      const O = o,
        A = a;
      for (let i = 0; i < n; i++) O[i] = Math.log(A[i]!);
    },
  ],
  [
    Math.abs,
    (o, a) => (n) => {
      const O = o,
        A = a;
      for (let i = 0; i < n; i++) O[i] = Math.abs(A[i]!);
    },
  ],
]);
const CALL2 = new Map<Function, BinLoop>([
  [
    Math.max,
    (o, a, b) => (n) => {
      const O = o,
        A = a,
        B = b;
      for (let i = 0; i < n; i++) O[i] = Math.max(A[i]!, B[i]!);
    },
  ],
  [
    Math.min,
    (o, a, b) => (n) => {
      const O = o,
        A = a,
        B = b;
      for (let i = 0; i < n; i++) O[i] = Math.min(A[i]!, B[i]!);
    },
  ],
  [
    Math.imul,
    (o, a, b) => (n) => {
      const O = o,
        A = a,
        B = b;
      for (let i = 0; i < n; i++) O[i] = Math.imul(A[i]!, B[i]!);
    },
  ],
]);

// `Math.fround(a op b)`: the f32 rounding in the same loop as the arithmetic (f32 programs' common case).
const FROUND_BIN: Record<string, BinLoop> = {
  '+': (o, a, b) => (n) => {
    const O = o,
      A = a,
      B = b;
    for (let i = 0; i < n; i++) O[i] = Math.fround(A[i]! + B[i]!);
  },
  '-': (o, a, b) => (n) => {
    const O = o,
      A = a,
      B = b;
    for (let i = 0; i < n; i++) O[i] = Math.fround(A[i]! - B[i]!);
  },
  '*': (o, a, b) => (n) => {
    const O = o,
      A = a,
      B = b;
    for (let i = 0; i < n; i++) O[i] = Math.fround(A[i]! * B[i]!);
  },
  '/': (o, a, b) => (n) => {
    const O = o,
      A = a,
      B = b;
    for (let i = 0; i < n; i++) O[i] = Math.fround(A[i]! / B[i]!);
  },
};
const FROUND_CALL2 = new Map<Function, BinLoop>([
  [
    Math.max,
    (o, a, b) => (n) => {
      const O = o,
        A = a,
        B = b;
      for (let i = 0; i < n; i++) O[i] = Math.fround(Math.max(A[i]!, B[i]!));
    },
  ],
  [
    Math.min,
    (o, a, b) => (n) => {
      const O = o,
        A = a,
        B = b;
      for (let i = 0; i < n; i++) O[i] = Math.fround(Math.min(A[i]!, B[i]!));
    },
  ],
]);

type Fn = (...args: number[]) => number;

/** What an expression compiles against: its operand registers and the objects its calls name. */
export interface BlockEnv {
  /** Registers of the operand names (`x`, `y`, `c`). */
  readonly operands: Readonly<Record<string, Reg>>;
  /** Objects member calls resolve in (`Math`, `H`). */
  readonly globals: Readonly<Record<string, unknown>>;
  /** Block length: every register this compile makes has it. */
  readonly block: number;
}

/**
 * Compiles `src` into steps appended to `steps`; returns the register holding the result after
 * they ran, and whether one of those steps writes it (else it is an operand's register or a
 * filled constant, which its user must not overwrite).
 */
export function compileBlockExpr(src: string, env: BlockEnv, steps: Step[]): { reg: Reg; fresh: boolean } {
  const written = new Set<Reg>();
  const constant = (v: number): Reg => new Float64Array(env.block).fill(v);
  // A subexpression is a constant (folded at compile time) or a register filled by the steps.
  type Value = { readonly k: number } | { readonly r: Reg };
  const resolve = (node: Node): unknown => {
    if (node.t === 'id') {
      if (!(node.name in env.globals))
        throw new BurnError('fusion', `unknown name ${node.name} in a kernel expression`);
      return env.globals[node.name];
    }
    if (node.t === 'member') return (resolve(node.obj) as Record<string, unknown>)[node.prop];
    throw new BurnError('fusion', `cannot call a ${node.t} in a kernel expression`);
  };
  const reg = (v: Value): Reg => ('r' in v ? v.r : constant(v.k));
  const visit = (node: Node): Value => {
    switch (node.t) {
      case 'num':
        return { k: node.v };
      case 'id': {
        const r = env.operands[node.name];
        if (r !== undefined) return { r };
        if (node.name === 'Infinity') return { k: Infinity };
        if (node.name === 'NaN') return { k: NaN };
        throw new BurnError('fusion', `unknown operand ${node.name} in a kernel expression`);
      }
      case 'member':
        throw new BurnError('fusion', 'a member that is not called in a kernel expression');
      case 'un': {
        const a = visit(node.a);
        const loop = UN[node.op]!;
        if ('k' in a) {
          const o = new Float64Array(1);
          loop(o, Float64Array.of(a.k))(1);
          return { k: o[0]! };
        }
        const o = new Float64Array(env.block);
        written.add(o);
        steps.push(loop(o, a.r));
        return { r: o };
      }
      case 'bin': {
        const a = visit(node.a),
          b = visit(node.b);
        const loop = BIN[node.op];
        if (loop === undefined) throw new BurnError('fusion', `operator ${node.op} in a kernel expression`);
        if ('k' in a && 'k' in b) {
          const o = new Float64Array(1);
          loop(o, Float64Array.of(a.k), Float64Array.of(b.k))(1);
          return { k: o[0]! };
        }
        const o = new Float64Array(env.block);
        written.add(o);
        steps.push(loop(o, reg(a), reg(b)));
        return { r: o };
      }
      case 'cond': {
        const c = visit(node.c),
          a = visit(node.a),
          b = visit(node.b);
        if ('k' in c) return c.k ? a : b;
        const o = new Float64Array(env.block);
        written.add(o);
        const [cr, ar, br] = [c.r, reg(a), reg(b)];
        steps.push((n) => {
          const O = o,
            C = cr,
            A = ar,
            B = br;
          for (let i = 0; i < n; i++) O[i] = C[i] ? A[i]! : B[i]!;
        });
        return { r: o };
      }
      case 'call': {
        const f = resolve(node.callee);
        if (typeof f !== 'function') throw new BurnError('fusion', 'a call of a non-function in a kernel expression');
        const fn = f as Fn;
        // f32 rounding of an arithmetic result: one loop for both (half the passes over the block).
        const inner = node.args[0];
        if (fn === Math.fround && node.args.length === 1 && inner !== undefined) {
          const fused =
            inner.t === 'bin'
              ? FROUND_BIN[inner.op]
              : inner.t === 'call' && inner.args.length === 2
                ? FROUND_CALL2.get(resolve(inner.callee) as Function)
                : undefined;
          if (fused !== undefined) {
            const [x, y] = inner.t === 'bin' ? [inner.a, inner.b] : (inner as { args: readonly Node[] }).args;
            const a = visit(x!),
              b = visit(y!);
            if (!('k' in a && 'k' in b)) {
              const o = new Float64Array(env.block);
              written.add(o);
              steps.push(fused(o, reg(a), reg(b)));
              return { r: o };
            }
          }
        }
        const args = node.args.map(visit);
        if (args.every((a) => 'k' in a)) return { k: fn(...args.map((a) => (a as { k: number }).k)) };
        const o = new Float64Array(env.block);
        written.add(o);
        const rs = args.map(reg);
        const special = rs.length === 1 ? CALL1.get(fn) : rs.length === 2 ? CALL2.get(fn) : undefined;
        if (special !== undefined) steps.push((special as (o: Reg, ...a: Reg[]) => Step)(o, ...rs));
        else if (rs.length === 1) {
          const a = rs[0]!;
          steps.push((n) => {
            const O = o,
              A = a;
            for (let i = 0; i < n; i++) O[i] = fn(A[i]!);
          });
        } else if (rs.length === 2) {
          const [a, b] = [rs[0]!, rs[1]!];
          steps.push((n) => {
            const O = o,
              A = a,
              B = b;
            for (let i = 0; i < n; i++) O[i] = fn(A[i]!, B[i]!);
          });
        } else if (rs.length === 3) {
          const [a, b, c] = [rs[0]!, rs[1]!, rs[2]!];
          steps.push((n) => {
            const O = o,
              A = a,
              B = b,
              C = c;
            for (let i = 0; i < n; i++) O[i] = fn(A[i]!, B[i]!, C[i]!);
          });
        } else throw new BurnError('fusion', `a call with ${rs.length} arguments in a kernel expression`);
        return { r: o };
      }
    }
  };
  const result = reg(visit(parseExpr(src)));
  return { reg: result, fresh: written.has(result) };
}
