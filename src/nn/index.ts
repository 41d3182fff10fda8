/**
 * `burn-ts/nn`: layers (each an `XConfig` with `init(device)` → `X` with `forward`), losses and
 * initializers, as Burn's `burn::nn`.
 */
export { Initializer, initializerSchema, initTensor, type Fans } from './init.js';
export { PaddingConfig1d, PaddingConfig2d, PaddingConfig3d, paddingSchema, type Padding } from './padding.js';
export { Linear, LinearConfig } from './linear.js';
export { Conv2d, Conv2dConfig } from './conv2d.js';
export { MaxPool2d, MaxPool2dConfig, AdaptiveAvgPool2d, AdaptiveAvgPool2dConfig } from './pool2d.js';
export { Dropout, DropoutConfig } from './dropout.js';
export { Relu } from './activation.js';
export { Reduction } from './loss/reduction.js';
export { MseLoss } from './loss/mse.js';
export { CrossEntropyLoss, CrossEntropyLossConfig } from './loss/cross-entropy.js';
