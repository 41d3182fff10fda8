// The inference core a page needs, for the bundle budget of test/web/bundle.test.ts: the tensor
// API, the wasm engine, nn layers (Burn's MNIST model: convolutions, pooling, linear layers) and
// burnpack loading from a URL. Built with Vite's production build against the package by name;
// not run (plain JavaScript, like bundle-page/main.js).
import { Device, Module, Tensor } from 'burn-ts';
import { AdaptiveAvgPool2dConfig, Conv2dConfig, LinearConfig, Relu } from 'burn-ts/nn';
import { fetchModule } from 'burn-ts/store';

class Model extends Module {
  constructor(device) {
    super();
    this.conv1 = new Conv2dConfig({ channels: [1, 8], kernelSize: [3, 3] }).init(device);
    this.conv2 = new Conv2dConfig({ channels: [8, 16], kernelSize: [3, 3] }).init(device);
    this.pool = new AdaptiveAvgPool2dConfig({ outputSize: [8, 8] }).init();
    this.linear1 = new LinearConfig({ dInput: 16 * 8 * 8, dOutput: 512 }).init(device);
    this.linear2 = new LinearConfig({ dInput: 512, dOutput: 10 }).init(device);
    this.activation = new Relu();
  }

  forward(images) {
    const [batch, height, width] = images.dims();
    let x = images.reshape([batch, 1, height, width]);
    x = this.activation.forward(this.conv1.forward(x));
    x = this.activation.forward(this.conv2.forward(x));
    x = this.pool.forward(x).reshape([batch, 16 * 8 * 8]);
    return this.linear2.forward(this.activation.forward(this.linear1.forward(x))).softmax(1);
  }
}

const device = await Device.cpuAsync({ engine: 'wasm' });
const model = await fetchModule(new Model(device), new URL('model.bpk', location.href));
const probabilities = await model.forward(Tensor.zeros([1, 28, 28], device)).toData();
document.body.textContent = Array.from(probabilities.values).join(' ');
