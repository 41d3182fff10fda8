// The text classifier of Burn's example: token and position embeddings, a transformer encoder, and
// a linear head on the encoding of the first (classification) token.
import { Config, Module, Tensor, z, type Bool, type Device, type Float, type Int } from 'burn-ts';
import {
  CrossEntropyLossConfig,
  Embedding,
  EmbeddingConfig,
  Linear,
  LinearConfig,
  TransformerEncoder,
  TransformerEncoderConfig,
  TransformerEncoderInput,
} from 'burn-ts/nn';
import type { TextBatch } from './data.ts';

/** Configuration of {@link TextClassificationModel} (Burn's `TextClassificationModelConfig`). */
export class TextClassificationModelConfig extends Config.define({
  transformer: TransformerEncoderConfig.nested(),
  nClasses: z.number().int().positive(),
  vocabSize: z.number().int().positive(),
  maxSeqLength: z.number().int().positive(),
}) {
  /** Creates the model on `device`. */
  init(device: Device): TextClassificationModel {
    return new TextClassificationModel(this, device);
  }
}

/** Logits and loss of a batch. */
export interface ClassificationOutput {
  readonly loss: Tensor<1, Float>;
  readonly logits: Tensor<2, Float>;
}

/** A transformer-encoder text classifier (Burn's `TextClassificationModel`). */
export class TextClassificationModel extends Module {
  transformer: TransformerEncoder;
  embeddingToken: Embedding;
  embeddingPos: Embedding;
  output: Linear;
  nClasses: number;

  constructor(config: TextClassificationModelConfig, device: Device) {
    super();
    const dModel = config.transformer.dModel;
    this.transformer = config.transformer.init(device);
    this.embeddingToken = new EmbeddingConfig({ nEmbedding: config.vocabSize, dModel }).init(device);
    this.embeddingPos = new EmbeddingConfig({ nEmbedding: config.maxSeqLength, dModel }).init(device);
    this.output = new LinearConfig({ dInput: dModel, dOutput: config.nClasses }).init(device);
    this.nClasses = config.nClasses;
  }

  /** Logits `[batch, nClasses]` of a batch of tokens. */
  logits(tokens: Tensor<2, Int>, maskPad: Tensor<2, Bool>): Tensor<2, Float> {
    const [batch, seq] = tokens.dims() as [number, number];
    const device = tokens.device();
    const positions = Tensor.arange(0, seq, device).reshape([1, seq]).repeatDim(0, batch);
    // Burn's example averages the two embeddings.
    const embedding = this.embeddingPos.forward(positions).add(this.embeddingToken.forward(tokens)).div(2);
    const encoded = this.transformer.forward(new TransformerEncoderInput(embedding).maskPad(maskPad));
    const first = encoded.narrow(1, 0, 1).reshape([batch, encoded.dims()[2]!]);
    return this.output.forward(first);
  }

  /** Logits and cross-entropy loss of a labelled batch. */
  forward(batch: TextBatch): ClassificationOutput {
    const logits = this.logits(batch.tokens, batch.maskPad);
    const loss = new CrossEntropyLossConfig({}).init(logits.device()).forward(logits, batch.labels);
    return { loss, logits };
  }

  /**
   * The same model with a fresh, trainable head for `nClasses` classes (Burn's `reset_head`), to
   * fine-tune on a task with other labels.
   */
  resetHead(nClasses: number): this {
    const copy = this.clone();
    copy.output = new LinearConfig({ dInput: this.output.weight.dims()[0]!, dOutput: nClasses }).init(
      this.output.weight.device(),
    );
    copy.nClasses = nClasses;
    return copy;
  }
}
