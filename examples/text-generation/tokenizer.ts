// The tokenizer: GPT-2's byte-pair encoding (gpt-tokenizer's `r50k_base`, the encoding Burn's
// example gets from the `tokenizers` crate), with its 50,257-token vocabulary compacted to the
// tokens that occur in the training text plus one unknown token. A corpus of a few license texts
// uses about two thousand distinct GPT-2 tokens, so the embedding and the output layer are ~24×
// smaller than with the full vocabulary — most of the model's parameters otherwise.
import { readFileSync, writeFileSync } from 'node:fs';
import { decode as gpt2Decode, encode as gpt2Encode } from 'gpt-tokenizer/encoding/r50k_base';

/** What `vocab.json` holds. */
interface VocabJson {
  readonly tokenizer: string;
  readonly unknownToken: string;
  /** The GPT-2 id of each compact id from 1 (compact id 0 is the unknown token). */
  readonly gpt2Ids: readonly number[];
}

/** The name written into vocab.json, checked when it is read back. */
const TOKENIZER = 'gpt-tokenizer r50k_base (GPT-2 BPE)';

/** The text an unknown token decodes to. */
export const UNKNOWN_TEXT = '<unk>';

/** GPT-2 token ids of `text`. */
export function gpt2Tokens(text: string): number[] {
  return gpt2Encode(text);
}

/**
 * GPT-2's BPE over a compact vocabulary: compact id 0 is the unknown token, ids 1… the GPT-2
 * tokens seen when the vocabulary was built, in increasing GPT-2 id order.
 */
export class CompactTokenizer {
  /** GPT-2 id → compact id. */
  private readonly toCompact = new Map<number, number>();

  /** The unknown token's id. */
  static readonly UNKNOWN = 0;

  private constructor(private readonly gpt2Ids: readonly number[]) {
    gpt2Ids.forEach((id, i) => this.toCompact.set(id, i + 1));
  }

  /** The vocabulary of the GPT-2 tokens in `tokens` (the training text's). */
  static fromTokens(tokens: readonly number[]): CompactTokenizer {
    return new CompactTokenizer([...new Set(tokens)].sort((a, b) => a - b));
  }

  /** Reads a vocabulary written by {@link save}. */
  static load(path: string): CompactTokenizer {
    const json = JSON.parse(readFileSync(path, 'utf8')) as Partial<VocabJson>;
    if (
      json.tokenizer !== TOKENIZER ||
      !Array.isArray(json.gpt2Ids) ||
      !json.gpt2Ids.every((id) => Number.isInteger(id) && id >= 0)
    ) {
      throw new Error(
        `${path} is not a vocabulary of this example (expected {"tokenizer": "${TOKENIZER}", "gpt2Ids": [...]})`,
      );
    }
    return new CompactTokenizer(json.gpt2Ids);
  }

  /** Writes the vocabulary as JSON. */
  save(path: string): void {
    const json: VocabJson = { tokenizer: TOKENIZER, unknownToken: UNKNOWN_TEXT, gpt2Ids: this.gpt2Ids };
    writeFileSync(path, `${JSON.stringify(json)}\n`);
  }

  /** The number of ids (the unknown token included). */
  get vocabSize(): number {
    return this.gpt2Ids.length + 1;
  }

  /** Compact ids of GPT-2 ids; those outside the vocabulary become {@link UNKNOWN}. */
  fromGpt2(tokens: readonly number[]): number[] {
    return tokens.map((t) => this.toCompact.get(t) ?? CompactTokenizer.UNKNOWN);
  }

  /** Compact ids of `text`. */
  encode(text: string): number[] {
    return this.fromGpt2(gpt2Tokens(text));
  }

  /** The text of compact ids (runs of known tokens decode together: a character may span tokens). */
  decode(ids: readonly number[]): string {
    let out = '';
    let run: number[] = [];
    const flush = () => {
      if (run.length > 0) out += gpt2Decode(run);
      run = [];
    };
    for (const id of ids) {
      if (!Number.isInteger(id) || id < 0 || id >= this.vocabSize)
        throw new Error(`token id ${id} outside the vocabulary [0, ${this.vocabSize})`);
      if (id === CompactTokenizer.UNKNOWN) {
        flush();
        out += UNKNOWN_TEXT;
      } else {
        run.push(this.gpt2Ids[id - 1]!);
      }
    }
    flush();
    return out;
  }
}
