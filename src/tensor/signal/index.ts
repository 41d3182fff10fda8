/**
 * Signal processing over Float tensors (Burn's `burn::tensor::signal`): the real and complex
 * discrete Fourier transforms `rfft`, `irfft` and `cfft` along any dim (power-of-two lengths,
 * differentiable, on every device), the short-time transform `stft` and its inverse `istft`, and
 * the Hann, Hamming and Blackman windows.
 *
 * ```ts
 * import { signal, Tensor } from 'burn-ts';
 * const [re, im] = signal.rfft(Tensor.fromFloats([1, 2, 3, 4]), 0); // re [10, -2, -2], im [0, 2, 0]
 * const x = signal.irfft(re, im, 0); // [1, 2, 3, 4]
 * const w = signal.hannWindow(8, true);
 * ```
 */
export { rfft, irfft, cfft } from './fft.js';
export { hannWindow, hammingWindow, blackmanWindow } from './window.js';
export { stft, istft, type StftOptions } from './stft.js';
