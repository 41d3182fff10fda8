import { setCpuFusedAutotune } from '../../src/backends/cpu/fusion/run.js';

/**
 * Runs `body` with the CPU fused-vs-replay autotune on (from 1000 elements) and a fake clock:
 * every timed interval is 10 ms, or 1 ms when `replayed()` was called in it and `replayFaster`
 * holds (the body calls it from a backend op that only the replay runs).
 */
export function withFakeAutotuneClock(replayFaster: boolean, body: (replayed: () => void) => void): void {
  let t = 0,
    ran = false;
  const previous = setCpuFusedAutotune({
    enabled: true,
    minElements: 1000,
    now: () => {
      t += ran && replayFaster ? 1 : 10;
      ran = false;
      return t;
    },
  });
  try {
    body(() => {
      ran = true;
    });
  } finally {
    setCpuFusedAutotune(previous);
  }
}
