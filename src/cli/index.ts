#!/usr/bin/env node
/**
 * The `burn-ts` command (package.json `bin`): `npx burn-ts onnx model.onnx --out src/model/`
 * turns an ONNX model into a burn-ts module. See `burn-ts help`.
 */
import { runCli } from './run.js';

process.exitCode = await runCli(process.argv.slice(2));
