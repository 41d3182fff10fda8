/// <reference lib="dom" />
// The two ways the page runs the same Fashion-MNIST model: the ONNX file interpreted by
// `loadOnnx` (burn-ts/onnx), and the TypeScript module `burn-ts onnx` generated from it with its
// burnpack weights. Both are fetched as bytes, so nothing here needs a file system.
import { Device, Tensor, TensorData } from 'burn-ts';
import { loadOnnx, type OnnxModel } from 'burn-ts/onnx';
import { FashionCnn } from './generated/fashion_cnn.js';

/** Fashion-MNIST's classes, in label order. */
export const CLASSES = [
  'T-shirt/top',
  'Trouser',
  'Pullover',
  'Dress',
  'Coat',
  'Sandal',
  'Shirt',
  'Sneaker',
  'Bag',
  'Ankle boot',
] as const;

/** The image side the model takes. */
export const SIDE = 28;

/** The engines the page offers. */
export type Backend = 'wasm' | 'js' | 'webgpu';

/** One path's answer for one image. */
export interface PathResult {
  /** The model's logits, one per class. */
  readonly logits: number[];
  /** softmax(logits). */
  readonly probabilities: number[];
  /** Milliseconds from the input tensor to the read-back probabilities. */
  readonly ms: number;
}

/** Both models on one device. */
export interface Classifiers {
  readonly device: Device;
  readonly runtime: OnnxModel;
  readonly generated: FashionCnn;
}

async function bytes(url: URL): Promise<Uint8Array> {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`fetching ${url.href} failed: HTTP ${response.status}`);
  return new Uint8Array(await response.arrayBuffer());
}

/** The device of a backend: WebGPU needs an adapter; wasm compiles its module asynchronously, as browsers require. */
export async function deviceOf(backend: Backend): Promise<Device> {
  if (backend === 'webgpu') return Device.webgpu();
  return Device.cpuAsync({ engine: backend });
}

/** Loads both paths on `device`: the .onnx through `loadOnnx`, the generated class with its .bpk. */
export async function loadClassifiers(device: Device): Promise<Classifiers> {
  // Literal `new URL(…, import.meta.url)`: Vite copies both files into the build and rewrites the URLs.
  const [onnx, weights] = await Promise.all([
    bytes(new URL('./fashion_cnn.onnx', import.meta.url)),
    bytes(new URL('./generated/fashion_cnn.bpk', import.meta.url)),
  ]);
  const runtime = await loadOnnx(onnx, device);
  const generated = new FashionCnn(device).loadBytes(weights, device);
  return { device, runtime, generated };
}

/** Runs one path on `pixels` (SIDE × SIDE values in [0, 1]) and reads the result back. */
async function timed(
  device: Device,
  pixels: Float32Array,
  forward: (image: Tensor<4>) => Tensor<2>,
): Promise<PathResult> {
  const start = performance.now();
  const image = Tensor.fromData(new TensorData(pixels, [1, 1, SIDE, SIDE], 'f32'), device) as Tensor<4>;
  const logits = forward(image);
  const [l, p] = await Promise.all([logits.toData(), logits.softmax(1).toData()]);
  const ms = performance.now() - start;
  return { logits: Array.from(l.values as Float32Array), probabilities: Array.from(p.values as Float32Array), ms };
}

/** Classifies `pixels` with both paths. */
export async function classify(
  models: Classifiers,
  pixels: Float32Array,
): Promise<{ runtime: PathResult; generated: PathResult }> {
  const runtime = await timed(models.device, pixels, (image) => models.runtime.run({ image })['logits'] as Tensor<2>);
  // In a scope, the forward's intermediates go back to the engine's memory pool at once (loadOnnx's
  // executor scopes each op itself).
  const generated = await timed(models.device, pixels, (image) => Tensor.scope(() => models.generated.forward(image)));
  return { runtime, generated };
}

/**
 * Turns any picture into the model's input: SIDE × SIDE gray values in [0, 1], a light garment on
 * a dark background as in Fashion-MNIST. The picture is fitted into the square (aspect kept); a
 * picture whose border is light (a photo on a white table) is inverted.
 */
export function toPixels(source: CanvasImageSource, width: number, height: number): Float32Array {
  const gray = (data: Uint8ClampedArray, i: number) =>
    (0.299 * data[i]! + 0.587 * data[i + 1]! + 0.114 * data[i + 2]!) / 255;
  const canvas = document.createElement('canvas');
  canvas.width = canvas.height = SIDE;
  const ctx = canvas.getContext('2d', { willReadFrequently: true })!;
  // First pass: the picture stretched over the square, to see its border's brightness.
  ctx.drawImage(source, 0, 0, SIDE, SIDE);
  let data = ctx.getImageData(0, 0, SIDE, SIDE).data;
  let border = 0;
  for (let k = 0; k < SIDE; k++)
    border +=
      gray(data, 4 * k) +
      gray(data, 4 * ((SIDE - 1) * SIDE + k)) +
      gray(data, 4 * k * SIDE) +
      gray(data, 4 * (k * SIDE + SIDE - 1));
  const light = border / (4 * SIDE) > 0.5;
  // Second pass: fitted, the margins filled with the background's shade.
  const scale = Math.min(SIDE / width, SIDE / height);
  const w = width * scale,
    h = height * scale;
  ctx.fillStyle = light ? '#fff' : '#000';
  ctx.fillRect(0, 0, SIDE, SIDE);
  ctx.drawImage(source, (SIDE - w) / 2, (SIDE - h) / 2, w, h);
  data = ctx.getImageData(0, 0, SIDE, SIDE).data;
  const pixels = new Float32Array(SIDE * SIDE);
  for (let i = 0; i < pixels.length; i++) {
    const v = gray(data, 4 * i);
    pixels[i] = Math.fround(light ? 1 - v : v);
  }
  return pixels;
}
