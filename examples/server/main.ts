// Burn's server example: the remote backend's server, which runs the tensor ops of clients that
// connect with `Device.remote('ws://host:port')`. `--serve` is Burn's example itself (a server on
// 127.0.0.1); without it, the example also plays the client: it starts the server in a child
// process, trains a small model through the remote device and checks that every loss equals the
// one of the same training run locally.
//   npm run example server                      server in a child process + remote training (300 steps)
//   npm run example server -- --serve           only the server, on 127.0.0.1:3000 (REMOTE_BACKEND_PORT or --port)
//   npm run example server -- --smoke           30 steps
//   options: --steps N  --url ws://host:port (train against a server already running)
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { Device } from 'burn-ts';
import { startServer, type RemoteBackend } from 'burn-ts/remote';
import { train, type TrainingRun } from './train.ts';

const { values } = parseArgs({
  options: {
    serve: { type: 'boolean', default: false },
    port: { type: 'string' },
    smoke: { type: 'boolean', default: false },
    steps: { type: 'string' },
    url: { type: 'string' },
  },
});

if (values.serve) {
  // The server: ops of every connection run on this machine's default device.
  const port = Number(values.port ?? process.env.REMOTE_BACKEND_PORT ?? 3000);
  const server = await startServer(Device.default(), port);
  console.log(`listening ${server.url} (ops run on ${Device.default()})`);
  const stop = (): void => void server.close().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
} else {
  const smoke = values.smoke || process.env.BURN_EXAMPLE_SMOKE === '1';
  const steps = Number(values.steps ?? (smoke ? 30 : 300));

  // The server in a child process, on a free port, unless --url names one already running.
  let url = values.url;
  const child =
    url === undefined
      ? spawn(process.execPath, ['--import', 'tsx', new URL(import.meta.url).pathname, '--serve', '--port', '0'], {
          stdio: ['ignore', 'pipe', 'inherit'],
        })
      : undefined;
  if (child) {
    const lines = createInterface({ input: child.stdout! });
    url = await new Promise<string>((resolve, reject) => {
      child.once('exit', (code) => reject(new Error(`the server exited (code ${code}) before listening`)));
      lines.on('line', (line) => {
        console.log(`[server] ${line}`);
        const match = /^listening (ws:\/\/\S+)/.exec(line);
        if (match) resolve(match[1]!);
      });
    });
  }

  // The same training, through the remote device and on the local CPU.
  const remote = Device.remote(url!);
  const remoteRun = await train(remote, steps, 'remote');
  const localRun = await train(Device.default(), steps, 'local');
  (remote.backend as unknown as RemoteBackend).close();
  child?.kill('SIGTERM');

  const maxLossDiff = Math.max(...remoteRun.losses.map((l, i) => Math.abs(l - localRun.losses[i]!)));
  const summary = (run: TrainingRun): string =>
    `loss ${run.losses[0]!.toFixed(4)} → ${run.losses.at(-1)!.toFixed(4)}, test MSE ${run.testMse.toFixed(4)}, ${run.seconds.toFixed(1)} s (${((1000 * run.seconds) / steps).toFixed(1)} ms/step)`;
  console.log(`remote (${url}): ${summary(remoteRun)}`);
  console.log(`local  (${Device.default()}): ${summary(localRun)}`);
  console.log(
    `largest difference between the remote and local losses over ${steps} steps: ${maxLossDiff.toExponential(2)}`,
  );
  const result = {
    steps,
    firstLoss: remoteRun.losses[0],
    lastLoss: remoteRun.losses.at(-1),
    remoteTestMse: remoteRun.testMse,
    localTestMse: localRun.testMse,
    maxLossDiff,
    remoteSeconds: remoteRun.seconds,
    localSeconds: localRun.seconds,
  };
  console.log(`result ${JSON.stringify(result)}`);
}
