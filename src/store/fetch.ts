import type { Device } from '../device/device.js';
import type { Module } from '../module/module.js';
import { fetchBytes } from '../platform/fetch-bytes.js';
import { DefaultRecorder } from '../record/burnpack-recorder.js';
import type { Recorder } from '../record/recorder.js';

/**
 * Fetches a saved module (a `.bpk` burnpack by default) from `url` and loads it into `module`, in
 * place, on `device` (default: the module's); resolves with the module. The way a page loads the
 * weights a Node run saved with `saveFile`. An HTTP error is a BurnError naming the URL.
 */
export async function fetchModule<M extends Module>(
  module: M,
  url: string | URL,
  device?: Device,
  recorder: Recorder = new DefaultRecorder(),
): Promise<M> {
  return module.loadBytes(await fetchBytes(url, 'fetchModule'), device, recorder);
}
