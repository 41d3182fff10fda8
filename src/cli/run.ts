import { BurnError } from '../core/errors.js';
import type { CliIo } from './io.js';
import { onnxCommand, ONNX_USAGE } from './onnx.js';

const processIo: CliIo = {
  out: (line) => void process.stdout.write(`${line}\n`),
  err: (line) => void process.stderr.write(`${line}\n`),
};

const USAGE = `burn-ts <command> [options]

Commands:
${ONNX_USAGE}

  burn-ts help            this text`;

/**
 * Runs the `burn-ts` command with its arguments (without `node` and the script) and returns the
 * exit code: 0 on success, 1 on a failure (the message on stderr), 2 on bad usage.
 */
export async function runCli(args: readonly string[], io: CliIo = processIo): Promise<number> {
  const [command, ...rest] = args;
  if (command === undefined || command === 'help' || command === '--help' || command === '-h') {
    io.out(USAGE);
    return command === undefined ? 2 : 0;
  }
  try {
    if (command === 'onnx') return await onnxCommand(rest, io);
    io.err(`burn-ts: unknown command '${command}'\n\n${USAGE}`);
    return 2;
  } catch (e) {
    io.err(e instanceof BurnError ? e.message : `burn-ts ${command}: ${e instanceof Error ? e.message : String(e)}`);
    return 1;
  }
}
