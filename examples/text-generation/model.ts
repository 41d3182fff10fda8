// The model of Burn's text-generation example: a decoder-only transformer built from burn-ts/nn's
// TransformerEncoder with a causal (autoregressive) attention mask, learned token and position
// embeddings, and a linear layer to the vocabulary's logits. One addition to Burn's model: a
// final layer norm before the output layer, which pre-norm stacks need (GPT-2 has one too).
import { Config, Device, Module, Tensor, TensorData, z, type Int } from 'burn-ts';
import {
  Embedding,
  EmbeddingConfig,
  generateAutoregressiveMask,
  LayerNorm,
  LayerNormConfig,
  Linear,
  LinearConfig,
  TransformerEncoder,
  TransformerEncoderConfig,
  TransformerEncoderInput,
  type TransformerEncoderAutoregressiveCache,
} from 'burn-ts/nn';

/** Configuration of {@link TextGenerationModel} (Burn's `TextGenerationModelConfig`). */
export class TextGenerationModelConfig extends Config.define({
  transformer: TransformerEncoderConfig.nested(),
  vocabSize: z.number().int().positive(),
  maxSeqLength: z.number().int().positive(),
}) {
  /** The model on `device`. */
  init(device: Device): TextGenerationModel {
    return new TextGenerationModel(this, device);
  }
}

/** Tokens `[batch, seq]` → next-token logits `[batch, seq, vocab]`, each position seeing only itself and earlier ones. */
export class TextGenerationModel extends Module {
  transformer: TransformerEncoder;
  embeddingToken: Embedding;
  embeddingPos: Embedding;
  norm: LayerNorm;
  output: Linear;
  readonly vocabSize: number;
  readonly maxSeqLength: number;

  constructor(config: TextGenerationModelConfig, device: Device) {
    super();
    const dModel = config.transformer.dModel;
    this.transformer = config.transformer.init(device);
    this.embeddingToken = new EmbeddingConfig({ nEmbedding: config.vocabSize, dModel }).init(device);
    this.embeddingPos = new EmbeddingConfig({ nEmbedding: config.maxSeqLength, dModel }).init(device);
    this.norm = new LayerNormConfig({ dModel }).init(device);
    this.output = new LinearConfig({ dInput: dModel, dOutput: config.vocabSize }).init(device);
    this.vocabSize = config.vocabSize;
    this.maxSeqLength = config.maxSeqLength;
  }

  /** The transformer's input for `tokens`: token plus position embeddings, with the causal mask. */
  private input(tokens: Tensor<2, Int>): TransformerEncoderInput {
    const [batch, seq] = tokens.dims() as [number, number];
    if (seq > this.maxSeqLength)
      throw new Error(`TextGenerationModel: ${seq} tokens; the model was trained on at most ${this.maxSeqLength}`);
    const device = tokens.device();
    const positions = Tensor.arange(0, seq, device).reshape([1, seq]).expand([batch, seq]);
    const embedded = this.embeddingToken.forward(tokens).add(this.embeddingPos.forward(positions));
    return new TransformerEncoderInput(embedded).maskAttn(generateAutoregressiveMask(batch, seq, device));
  }

  /** Logits `[batch, seq, vocab]` for tokens `[batch, seq]`. */
  forward(tokens: Tensor<2, Int>): Tensor<3> {
    return this.output.forward(this.norm.forward(this.transformer.forward(this.input(tokens))));
  }

  /**
   * {@link forward} through the transformer's autoregressive cache: call it with the whole
   * sequence so far at each step; only the newest position is computed. Returns its logits `[batch, vocab]`.
   */
  forwardCached(tokens: Tensor<2, Int>, cache: TransformerEncoderAutoregressiveCache): Tensor<2> {
    const [batch, seq] = tokens.dims() as [number, number];
    const hidden = this.transformer.forwardAutoregressiveInference(this.input(tokens), cache);
    const last = hidden
      .slice([
        [0, batch],
        [seq - 1, seq],
      ])
      .reshape([batch, hidden.dims()[2]]);
    return this.output.forward(this.norm.forward(last));
  }
}

/** Int tokens `[rows, length]` on `device` from flat ids. */
export function tokenTensor(ids: Int32Array, rows: number, length: number, device: Device): Tensor<2, Int> {
  return Tensor.fromData<2, Int>(new TensorData(ids, [rows, length], 'i32'), device);
}
