// Burn's "modern" LSTM, written from scratch with burn-ts layers: combined gate weights, layer
// normalization, forget-gate bias 1, stacked layers with dropout between them, and an optional
// reverse direction. burn-ts/nn's Lstm/BiLstm are the library's own; this shows building one.
import { Config, Device, Module, Param, Tensor, z } from 'burn-ts';
import { Dropout, DropoutConfig, Initializer, LayerNorm, LayerNormConfig, Linear, LinearConfig } from 'burn-ts/nn';

/** Hidden and cell state of one layer, each `[batch, hidden]`. */
export interface LstmState {
  hidden: Tensor<2>;
  cell: Tensor<2>;
}

/** A linear layer `dIn → 4·hidden` (the gates i, f, g, o) whose forget-gate bias starts at 1. */
function gateLinear(dInput: number, hidden: number, device: Device): Linear {
  const layer = new LinearConfig({
    dInput,
    dOutput: 4 * hidden,
    initializer: Initializer.XavierNormal({ gain: 1 }),
  }).init(device);
  const bias = layer.bias!;
  // Forget-gate bias 1 keeps the cell's memory early in training (the same parameter id, still trainable).
  layer.bias = new Param(
    bias
      .val()
      .detach()
      .sliceAssign([[hidden, 2 * hidden]], Tensor.ones([hidden], device)),
    { id: bias.id },
  );
  return layer;
}

/**
 * One LSTM cell with layer normalization:
 *   i, f, g, o = split(norm(W_ih·x) + W_hh·h)      c' = norm(σ(f)⊙c + σ(i)⊙tanh(g))      h' = norm(σ(o)⊙tanh(c'))
 */
export class LstmCell extends Module {
  weightIh: Linear;
  weightHh: Linear;
  normX: LayerNorm;
  normH: LayerNorm;
  normC: LayerNorm;
  dropout: Dropout;

  constructor(
    inputSize: number,
    readonly hiddenSize: number,
    dropout: number,
    device: Device,
  ) {
    super();
    this.weightIh = gateLinear(inputSize, hiddenSize, device);
    this.weightHh = gateLinear(hiddenSize, hiddenSize, device);
    this.normX = new LayerNormConfig({ dModel: 4 * hiddenSize }).init(device);
    this.normH = new LayerNormConfig({ dModel: hiddenSize }).init(device);
    this.normC = new LayerNormConfig({ dModel: hiddenSize }).init(device);
    this.dropout = new DropoutConfig({ prob: dropout }).init();
  }

  /** One time step: input `[batch, input]` and the previous state → the new state. */
  forward(x: Tensor<2>, state: LstmState): LstmState {
    const gates = this.normX.forward(this.weightIh.forward(x)).add(this.weightHh.forward(state.hidden));
    const [i, f, g, o] = gates.chunk(4, 1) as [Tensor<2>, Tensor<2>, Tensor<2>, Tensor<2>];
    const cell = this.normC.forward(f.sigmoid().mul(state.cell).add(i.sigmoid().mul(g.tanh())));
    const hidden = this.dropout.forward(this.normH.forward(o.sigmoid().mul(cell.tanh())));
    return { hidden, cell };
  }

  /** Zero state for a batch. */
  initState(batchSize: number, device: Device): LstmState {
    return {
      hidden: Tensor.zeros([batchSize, this.hiddenSize], device),
      cell: Tensor.zeros([batchSize, this.hiddenSize], device),
    };
  }
}

/** Layers of cells; each layer reads the hidden states of the one below. No dropout after the last. */
export class StackedLstm extends Module {
  layers: LstmCell[];

  constructor(inputSize: number, hiddenSize: number, numLayers: number, dropout: number, device: Device) {
    super();
    this.layers = Array.from(
      { length: numLayers },
      (_, l) => new LstmCell(l === 0 ? inputSize : hiddenSize, hiddenSize, l < numLayers - 1 ? dropout : 0, device),
    );
  }

  /** Sequences `[batch, seq, input]` → the top layer's hidden states `[batch, seq, hidden]` and every layer's last state. */
  forward(x: Tensor<3>, states?: LstmState[]): [Tensor<3>, LstmState[]] {
    const [batchSize, seqLength] = x.dims();
    const current = states ?? this.layers.map((layer) => layer.initState(batchSize, x.device()));
    const outputs: Tensor<2>[] = [];
    for (let t = 0; t < seqLength; t++) {
      let input = x.sliceDim(1, [t, t + 1]).squeezeDim(1);
      this.layers.forEach((layer, l) => {
        current[l] = layer.forward(input, current[l]!);
        input = current[l]!.hidden;
      });
      outputs.push(input);
    }
    return [Tensor.stack(outputs, 1), current];
  }
}

export class LstmNetworkConfig extends Config.define({
  inputSize: z.number().int().positive().default(1),
  hiddenSize: z.number().int().positive().default(32),
  numLayers: z.number().int().positive().default(2),
  outputSize: z.number().int().positive().default(1),
  dropout: z.number().min(0).max(1).default(0.1),
  bidirectional: z.boolean().default(true),
}) {
  static override readonly schema = LstmNetworkConfig.nested();

  /** Creates the network on `device`. */
  init(device: Device): LstmNetwork {
    return new LstmNetwork(this, device);
  }
}

/** Stacked LSTM (optionally bidirectional), dropout, and a linear head on the last time step. */
export class LstmNetwork extends Module {
  stackedLstm: StackedLstm;
  reverseLstm: StackedLstm | undefined;
  dropout: Dropout;
  fc: Linear;

  constructor(config: LstmNetworkConfig, device: Device) {
    super();
    const { inputSize, hiddenSize, numLayers, dropout } = config;
    this.stackedLstm = new StackedLstm(inputSize, hiddenSize, numLayers, dropout, device);
    this.reverseLstm = config.bidirectional
      ? new StackedLstm(inputSize, hiddenSize, numLayers, dropout, device)
      : undefined;
    this.fc = new LinearConfig({
      dInput: (config.bidirectional ? 2 : 1) * hiddenSize,
      dOutput: config.outputSize,
    }).init(device);
    this.dropout = new DropoutConfig({ prob: dropout }).init();
  }

  /** Sequences `[batch, seq, input]` → predictions `[batch, output]`. */
  forward(x: Tensor<3>): Tensor<2> {
    let [output] = this.stackedLstm.forward(x);
    if (this.reverseLstm) {
      // The reverse direction reads the sequence backwards; its outputs are flipped back into place.
      const [reversed] = this.reverseLstm.forward(x.flip([1]));
      output = Tensor.cat([output, reversed.flip([1])], 2);
    }
    output = this.dropout.forward(output);
    return this.fc.forward(output.sliceDim(1, -1).squeezeDim(1));
  }
}
