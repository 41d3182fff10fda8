// An index error found later (on WebGPU when the batch's check words come back,
// on the remote device when the server's failure arrives at the next read) names the op the user
// called, as the CPU engines' immediate errors do: `take`, `embedding`, `gatherNd` (with the bad
// component, not the flattened -1), `scatterNd`, `select`, `selectAssign`, and the losses over class
// indices (`CrossEntropyLoss` with the number of classes, smoothing and weights included).
// The backends keep the user op (`currentUserOp` in src/core/errors.ts) with each deferred check.
// Runs on every device; the CPU engines throw at once, the others at the read.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BurnError, Device, functional, Tensor, type Kind } from '../../src/index.js';
import { BinaryCrossEntropyLossConfig, CrossEntropyLossConfig, MultiMarginLossConfig } from '../../src/nn/index.js';
import { CommandLabels } from '../../src/backends/remote/labels.js';
import { currentUserOp, enterUserOp, leaveUserOp } from '../../src/core/errors.js';
import { conformanceDevices, webgpu } from '../helpers/devices.js';

/** Asserts that `fn` throws, or its promise rejects, with a BurnError of `op` containing every part and none of `absent`. */
async function rejectsBurn(
  fn: () => unknown,
  op: string,
  parts: readonly string[],
  absent: readonly string[] = [],
): Promise<void> {
  await assert.rejects(
    async () => {
      await fn();
    },
    (e: unknown) => {
      assert.ok(
        e instanceof BurnError,
        `expected a BurnError, got ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}`,
      );
      assert.equal(e.op, op, e.message);
      assert.ok(e.message.startsWith(`${op}: `), e.message);
      for (const p of parts) assert.ok(e.message.includes(p), `${JSON.stringify(p)} not in: ${e.message}`);
      for (const p of absent) assert.ok(!e.message.includes(p), `${JSON.stringify(p)} in: ${e.message}`);
      return true;
    },
  );
}

/** Builds a tensor and reads it: the error surfaces at once (CPU) or at the read (WebGPU, remote). */
const read = (make: () => Tensor<number, Kind>) => async () => (await make().toData()).toArray();

describe('the user op label', () => {
  it('is set inside an op, the outermost op wins, and it is restored after a throw', () => {
    assert.equal(currentUserOp(), undefined);
    const outer = enterUserOp('crossEntropy');
    const inner = enterUserOp('gather');
    assert.equal(currentUserOp(), 'crossEntropy');
    leaveUserOp(inner);
    assert.equal(currentUserOp(), 'crossEntropy');
    leaveUserOp(outer);
    assert.equal(currentUserOp(), undefined);
    const d = Device.cpu({ engine: 'js' });
    assert.throws(() => Tensor.zeros([2, 3], d).take(0, Tensor.fromInts([5], d)), /^BurnError: take: index 5/);
    assert.equal(currentUserOp(), undefined);
  });
});

describe('remote command labels', () => {
  it('keep the user op of a command until its outcome is known, and a bounded number of them', () => {
    const labels = new CommandLabels();
    labels.add(3, 'take');
    labels.add(4, 'take');
    labels.add(9, 'embedding');
    assert.equal(labels.fail(4), 'take');
    assert.equal(labels.failedOp(4), 'take');
    // A reply to 9 means 3..8 ran: a (late, impossible) failure of 3 has no label left; 9 keeps its own.
    labels.settle(9);
    assert.equal(labels.fail(3), undefined);
    assert.equal(labels.fail(9), 'embedding');
    assert.equal(labels.fail(10), undefined);
    // Without any reply, the oldest labels are forgotten past the bound (65536).
    for (let seq = 100; seq < 100 + 70000; seq++) labels.add(seq, 'select');
    assert.equal(labels.fail(100), undefined);
    assert.equal(labels.fail(100 + 69999), 'select');
    assert.equal(labels.failedOp(4), 'take');
  });
});

for (const entry of conformanceDevices()) {
  describe(`deferred index errors on ${entry.name}`, () => {
    const x = () =>
      Tensor.fromFloats(
        [
          [1, 2, 3],
          [4, 5, 6],
        ],
        entry.device(),
      );
    const ints = (v: number[]) => Tensor.fromInts(v, entry.device());
    const ints2 = (v: number[][]) => Tensor.fromInts(v, entry.device());

    it('take, select and selectAssign name themselves', async () => {
      await rejectsBurn(
        read(() => x().take(0, ints2([[0, 2]]))),
        'take',
        ['index 2 is out of bounds for dim 0 of size 2'],
        ['indices out of bounds'],
      );
      await rejectsBurn(
        read(() =>
          x().take(
            1,
            ints2([
              [3, 0],
              [-1, 1],
            ]),
          ),
        ),
        'take',
        ['out of bounds for dim 1 of size 3'],
      );
      await rejectsBurn(
        read(() => x().select(0, ints([5]))),
        'select',
        ['index 5 is out of bounds for dim 0 of size 2'],
        ['indices out of bounds'],
      );
      await rejectsBurn(
        read(() => x().selectAssign(1, ints([0, 7]), Tensor.ones([2, 2], entry.device()), 'add')),
        'selectAssign',
        ['index 7 is out of bounds for dim 1 of size 3'],
        ['indices out of bounds'],
      );
      // The internal ops keep their own names where the user called them.
      await rejectsBurn(
        read(() =>
          x().gather(
            1,
            ints2([
              [0, 3],
              [1, 1],
            ]),
          ),
        ),
        'gather',
        ['index 3 is out of bounds for dim 1 of size 3'],
      );
      await rejectsBurn(
        read(() => x().scatter(0, ints2([[0, 0, 2]]), Tensor.ones([1, 3], entry.device()), 'add')),
        'scatter',
        ['index 2 is out of bounds for dim 0 of size 2'],
      );
    });

    it('embedding names itself', async () => {
      const weights = x();
      await rejectsBurn(
        read(() => functional.embedding(weights, ints2([[0, 4]]))),
        'embedding',
        ['index 4 is out of bounds for dim 0 of size 2'],
      );
    });

    it('gatherNd and scatterNd name themselves and the bad component', async () => {
      await rejectsBurn(
        read(() =>
          x().gatherNd(
            ints2([
              [1, 1],
              [0, 3],
            ]),
          ),
        ),
        'gatherNd',
        ['3', '[2, 3]'],
        ['index -1', 'select'],
      );
      await rejectsBurn(
        read(() => x().gatherNd(ints2([[2], [0]]))),
        'gatherNd',
        ['2', '[2, 3]'],
        ['index -1', 'select'],
      );
      await rejectsBurn(
        read(() => x().scatterNd(ints2([[0, 5]]), Tensor.ones([1], entry.device()), 'assign')),
        'scatterNd',
        ['5', '[2, 3]'],
        ['index -1', 'selectAssign'],
      );
    });

    it('cross-entropy targets out of range name the loss and the number of classes', async () => {
      const d = entry.device();
      const logits = x;
      const message = (v: number) => [`target class index ${v} is out of range for 3 classes`];
      for (const config of [
        new CrossEntropyLossConfig(),
        new CrossEntropyLossConfig({ smoothing: 0.1 }),
        new CrossEntropyLossConfig({ weights: [1, 2, 3] }),
        new CrossEntropyLossConfig({ smoothing: 0.2, weights: [1, 1, 2], logits: false }),
      ]) {
        const loss = config.init(d);
        await rejectsBurn(
          read(() => loss.forward(logits(), ints([0, 5]))),
          'CrossEntropyLoss',
          message(5),
        );
        // A negative class is refused too (a one-hot would wrap it to the last class).
        await rejectsBurn(
          read(() => loss.forward(logits(), ints([-1, 0]))),
          'CrossEntropyLoss',
          message(-1),
        );
      }
      // Binary cross-entropy labels must be 0 or 1 (WebGPU and remote used a 2 as it was).
      for (const config of [
        new BinaryCrossEntropyLossConfig(),
        new BinaryCrossEntropyLossConfig({ weights: [1, 2] }),
      ]) {
        const bce = config.init(d);
        await rejectsBurn(
          read(() => bce.forward(Tensor.fromFloats([0.5, -1], d), ints([1, 2]))),
          'BinaryCrossEntropyLoss',
          ['target label 2; expected 0 or 1'],
        );
      }
      const margin = new MultiMarginLossConfig().init(d);
      await rejectsBurn(
        read(() => margin.forward(logits(), ints([3, 0]), 'mean')),
        'MultiMarginLoss',
        message(3),
      );
      // In range: the value.
      const ok = await new CrossEntropyLossConfig()
        .init(d)
        .forward(x(), ints([2, 0]))
        .toData();
      assert.ok(Math.abs(ok.toArray()[0]! - 1.4076059644443801) < 1e-5, String(ok.toArray()[0]));
    });

    // Where errors are deferred (on the CPU the take itself throws: there is nothing spoiled to read).
    if (entry.readsSync === false)
      it('a later read of a result spoiled by the error names the user op again', async () => {
        const bad = x().take(0, ints([3]));
        await rejectsBurn(
          read(() => bad),
          'take',
          ['index 3'],
        );
        await rejectsBurn(
          read(() => bad.add(1).mul(2)),
          'take',
          ['index 3'],
        );
        const emb = functional.embedding(x(), ints2([[1, 6]]));
        await rejectsBurn(
          read(() => emb.sum()),
          'embedding',
          ['index 6'],
        );
        await rejectsBurn(
          read(() => emb.exp()),
          'embedding',
          ['index 6'],
        );
      });

    it('the label ends with the op: a later internal op keeps its own name', async () => {
      await rejectsBurn(
        read(() => x().take(0, ints([9]))),
        'take',
        ['index 9'],
      );
      const b = x().backend;
      const t = x();
      // The backend's own select, outside any user op, is not taken for the earlier take.
      await assert.rejects(
        async () => {
          await t.wrap(b.select(t.primitive, 0, ints([4]).primitive)).toData();
        },
        (e: unknown) => e instanceof BurnError && e.op !== 'take',
      );
    });
  });
}

describe('webgpu count of bad indices', { skip: webgpu.device ? false : webgpu.reason }, () => {
  it('counts indices, not the output elements they fill', async () => {
    const d = webgpu.device!;
    const x = Tensor.zeros([4, 5], d);
    await rejectsBurn(
      read(() => x.select(0, Tensor.fromInts([7, 0, 8], d))),
      'select',
      ['index 8 is out of bounds for dim 0 of size 4', '(2 indices out of bounds)'],
    );
    await rejectsBurn(
      read(() => x.take(1, Tensor.fromInts([[0, 9]], d))),
      'take',
      ['index 9 is out of bounds for dim 1 of size 5'],
      ['indices out of bounds'],
    );
    await rejectsBurn(
      read(() => x.selectAssign(0, Tensor.fromInts([-2, 5, 1], d), Tensor.ones([3, 5], d), 'add')),
      'selectAssign',
      ['index 5 is out of bounds for dim 0 of size 4', '(2 indices out of bounds)'],
    );
  });
});
