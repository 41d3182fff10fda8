import { TensorData } from '../../core/data.js';
import type { AnyTensor, OpContext, OpFamily, Value } from './types.js';
import { fromHost, i64Tensor, tensorAt } from './util.js';

/** A box as [ymin, xmin, ymax, xmax] from either ONNX layout (corners in any order, or center + size). */
function corners(b: ArrayLike<number>, o: number, centered: boolean): [number, number, number, number] {
  if (centered) {
    const [xc, yc, w, h] = [b[o]!, b[o + 1]!, b[o + 2]!, b[o + 3]!];
    return [yc - h / 2, xc - w / 2, yc + h / 2, xc + w / 2];
  }
  const [y1, x1, y2, x2] = [b[o]!, b[o + 1]!, b[o + 2]!, b[o + 3]!];
  return [Math.min(y1, y2), Math.min(x1, x2), Math.max(y1, y2), Math.max(x1, x2)];
}

function iou(a: readonly number[], b: readonly number[]): number {
  const ih = Math.min(a[2]!, b[2]!) - Math.max(a[0]!, b[0]!);
  const iw = Math.min(a[3]!, b[3]!) - Math.max(a[1]!, b[1]!);
  if (ih <= 0 || iw <= 0) return 0;
  const inter = ih * iw;
  const area = (r: readonly number[]) => (r[2]! - r[0]!) * (r[3]! - r[1]!);
  const union = area(a) + area(b) - inter;
  return union > 0 ? inter / union : 0;
}

/**
 * Greedy non-maximum suppression per batch and class, on the host (the output size depends on the
 * values): boxes by descending score (ties by index) above `score_threshold`, each kept unless its
 * IoU with a kept box exceeds `iou_threshold`, at most `max_output_boxes_per_class` per class.
 */
function nms(ctx: OpContext): AnyTensor {
  const boxes = ctx.host(0)!;
  const scores = ctx.host(1)!;
  const maxOut = ctx.ints(2)?.[0] ?? 0;
  const iouThreshold = ctx.floats(3)?.[0] ?? 0;
  const scoreThreshold = ctx.floats(4)?.[0];
  const centered = ctx.attrs.int('center_point_box', 0) === 1;
  const [batches, classes, n] = scores.shape as [number, number, number];
  const b = boxes.toArray();
  const s = scores.toArray();
  const out: number[] = [];
  for (let bi = 0; bi < batches; bi++) {
    const all = Array.from({ length: n }, (_, i) => corners(b, (bi * n + i) * 4, centered));
    for (let c = 0; c < classes; c++) {
      const base = (bi * classes + c) * n;
      const order = Array.from({ length: n }, (_, i) => i)
        .filter((i) => scoreThreshold === undefined || s[base + i]! > scoreThreshold)
        .sort((x, y) => s[base + y]! - s[base + x]! || x - y);
      const kept: number[] = [];
      for (const i of order) {
        if (kept.length >= maxOut) break;
        if (kept.every((k) => iou(all[k]!, all[i]!) <= iouThreshold)) kept.push(i);
      }
      for (const k of kept) out.push(bi, c, k);
    }
  }
  return i64Tensor(out, ctx.device, [out.length / 3, 3]);
}

/** Bilinear sample of one channel plane at (y, x), zero outside [-1, size] (ONNX RoiAlign's rule). */
function bilinear(plane: ArrayLike<number>, off: number, h: number, w: number, y: number, x: number): number[] {
  if (y < -1 || y > h || x < -1 || x > w) return [0, 0, 0, 0];
  let yy = Math.max(y, 0);
  let xx = Math.max(x, 0);
  let y0 = Math.floor(yy);
  let x0 = Math.floor(xx);
  let y1: number, x1: number;
  if (y0 >= h - 1) {
    y0 = y1 = h - 1;
    yy = y0;
  } else y1 = y0 + 1;
  if (x0 >= w - 1) {
    x0 = x1 = w - 1;
    xx = x0;
  } else x1 = x0 + 1;
  const ly = yy - y0,
    lx = xx - x0,
    hy = 1 - ly,
    hx = 1 - lx;
  return [
    hy * hx * plane[off + y0 * w + x0]!,
    hy * lx * plane[off + y0 * w + x1]!,
    ly * hx * plane[off + y1 * w + x0]!,
    ly * lx * plane[off + y1 * w + x1]!,
  ];
}

/** RoiAlign on the host: average (or max) of bilinear samples on a regular grid in each output bin. */
function roiAlign(ctx: OpContext, inputs: readonly (Value | undefined)[]): AnyTensor {
  const x = tensorAt(ctx, inputs, 0);
  const data = ctx.host(0)!.toArray();
  const rois = ctx.host(1)!.toArray();
  const batch = ctx.ints(2)!;
  const [, c, h, w] = x.dims() as [number, number, number, number];
  const oh = ctx.attrs.int('output_height', 1);
  const ow = ctx.attrs.int('output_width', 1);
  const ratio = ctx.attrs.int('sampling_ratio', 0);
  const scale = ctx.attrs.float('spatial_scale', 1);
  const max = ctx.attrs.string('mode', 'avg') === 'max';
  const halfPixel =
    ctx.opset >= 16 && ctx.attrs.string('coordinate_transformation_mode', 'half_pixel') === 'half_pixel';
  const offset = halfPixel ? 0.5 : 0;
  const n = batch.length;
  const out = new Float64Array(n * c * oh * ow);
  for (let r = 0; r < n; r++) {
    const [x1, y1, x2, y2] = [
      rois[r * 4]! * scale - offset,
      rois[r * 4 + 1]! * scale - offset,
      rois[r * 4 + 2]! * scale - offset,
      rois[r * 4 + 3]! * scale - offset,
    ];
    let rw = x2 - x1;
    let rh = y2 - y1;
    if (!halfPixel) {
      rw = Math.max(rw, 1);
      rh = Math.max(rh, 1);
    }
    const bh = rh / oh,
      bw = rw / ow;
    const gh = ratio > 0 ? ratio : Math.ceil(rh / oh);
    const gw = ratio > 0 ? ratio : Math.ceil(rw / ow);
    const count = Math.max(gh * gw, 1);
    for (let ch = 0; ch < c; ch++) {
      const off = (batch[r]! * c + ch) * h * w;
      for (let ph = 0; ph < oh; ph++) {
        for (let pw = 0; pw < ow; pw++) {
          let acc = max ? -Infinity : 0;
          for (let iy = 0; iy < gh; iy++) {
            const y = y1 + ph * bh + ((iy + 0.5) * bh) / gh;
            for (let ix = 0; ix < gw; ix++) {
              const xx = x1 + pw * bw + ((ix + 0.5) * bw) / gw;
              const parts = bilinear(data, off, h, w, y, xx);
              // Max mode takes the largest weighted corner term, as ONNX Runtime does.
              if (max) acc = Math.max(acc, ...parts);
              else acc += parts[0]! + parts[1]! + parts[2]! + parts[3]!;
            }
          }
          out[((r * c + ch) * oh + ph) * ow + pw] = max ? acc : acc / count;
        }
      }
    }
  }
  return fromHost(new TensorData(out, [n, c, oh, ow], 'f64').convert(x.dtype()), ctx.device);
}

/** MaxRoiPool (Fast R-CNN's ROI pooling) on the host: rois `[R, 5]` = (batch, x1, y1, x2, y2), rounded after scaling. */
function maxRoiPool(ctx: OpContext, inputs: readonly (Value | undefined)[]): AnyTensor {
  const x = tensorAt(ctx, inputs, 0);
  const data = ctx.host(0)!.toArray();
  const rois = ctx.host(1)!.toArray();
  const [ph, pw] = ctx.attrs.ints('pooled_shape', [1, 1]) as [number, number];
  const scale = ctx.attrs.float('spatial_scale', 1);
  const [, c, h, w] = x.dims() as [number, number, number, number];
  const n = rois.length / 5;
  const out = new Float64Array(n * c * ph * pw);
  for (let r = 0; r < n; r++) {
    const b = rois[r * 5]!;
    const [x1, y1, x2, y2] = [1, 2, 3, 4].map((k) => Math.round(rois[r * 5 + k]! * scale)) as [
      number,
      number,
      number,
      number,
    ];
    const rh = Math.max(y2 - y1 + 1, 1);
    const rw = Math.max(x2 - x1 + 1, 1);
    for (let ch = 0; ch < c; ch++) {
      const off = (b * c + ch) * h * w;
      for (let i = 0; i < ph; i++) {
        const hs = Math.min(Math.max(Math.floor((i * rh) / ph) + y1, 0), h);
        const he = Math.min(Math.max(Math.ceil(((i + 1) * rh) / ph) + y1, 0), h);
        for (let j = 0; j < pw; j++) {
          const ws = Math.min(Math.max(Math.floor((j * rw) / pw) + x1, 0), w);
          const we = Math.min(Math.max(Math.ceil(((j + 1) * rw) / pw) + x1, 0), w);
          let m = he > hs && we > ws ? -Infinity : 0;
          for (let yy = hs; yy < he; yy++) for (let xx = ws; xx < we; xx++) m = Math.max(m, data[off + yy * w + xx]!);
          out[((r * c + ch) * ph + i) * pw + j] = m;
        }
      }
    }
  }
  return fromHost(new TensorData(out, [n, c, ph, pw], 'f64').convert(x.dtype()), ctx.device);
}

/** Detection ops computed on the host: NonMaxSuppression, RoiAlign and MaxRoiPool. */
export const detectionOps: OpFamily = {
  NonMaxSuppression: { run: (ctx) => [nms(ctx)], hostInputs: [2, 3, 4], readsValues: true },
  RoiAlign: { run: (ctx, inputs) => [roiAlign(ctx, inputs)], hostInputs: [2], readsValues: true },
  MaxRoiPool: { run: (ctx, inputs) => [maxRoiPool(ctx, inputs)], readsValues: true },
};
