/** Every benchmark case, in table order. */
import type { BenchCase } from '../lib/types.js';
import { autodiffCases } from './autodiff.js';
import { convCases } from './conv.js';
import { elementwiseCases } from './elementwise.js';
import { layoutCases } from './layout.js';
import { matmulCases } from './matmul.js';
import { onnxCases } from './onnx.js';
import { optimCases } from './optim.js';
import { overheadCases } from './overhead.js';
import { reduceCases } from './reduce.js';
import { storeCases } from './store.js';
import { trainCases } from './train.js';
import { webgpuCases } from './webgpu.js';

/** All cases; `--filter` selects among them by id or title. */
export const allCases: readonly BenchCase[] = [
  ...overheadCases,
  ...matmulCases,
  ...elementwiseCases,
  ...reduceCases,
  ...layoutCases,
  ...convCases,
  ...autodiffCases,
  ...optimCases,
  ...trainCases,
  ...storeCases,
  ...webgpuCases,
  ...onnxCases,
];
