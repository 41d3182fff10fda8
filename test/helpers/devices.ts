import { Device } from '../../src/index.js';
import { requiredOnlyDevice } from './required-backend.js';

/**
 * Every device the conformance suite runs on. Each entry is a (name, factory) pair so suites can
 * create tensors per device; devices that need a system component add themselves here and skip
 * (or, under BURN_TEST_STRICT=1, fail) when it is missing. The autodiff decorator runs the whole
 * suite too: its forward values must match its inner device's.
 */
export function conformanceDevices(): { name: string; device: () => Device }[] {
  return [
    { name: 'cpu(js)', device: () => Device.cpu({ engine: 'js' }) },
    { name: 'required-only', device: requiredOnlyDevice },
    { name: 'autodiff<cpu(js)>', device: () => Device.cpu({ engine: 'js' }).autodiff() },
  ];
}
