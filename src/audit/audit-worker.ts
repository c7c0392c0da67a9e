/**
 * A worker thread of a parallel audit (parallel.ts): claims ranges of the prompt file from the shared
 * counter, examines their prompts with a session of its own, and sends each range's results to the
 * main thread, until no range is left.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { Examiner } from './examine.js';
import { examineRange, toWire, type WorkerMessage, type WorkerSetup } from './parallel.js';
import { TaskLookup } from './sources/tasks.js';

const setup = workerData as WorkerSetup;
const port = parentPort as NonNullable<typeof parentPort>;
const examiner = new Examiner(TaskLookup.fromPlain(setup.tasks), setup.radiusKm);
const next = new Int32Array(setup.claims);
const ids = new Map<readonly string[], number>();

try {
  for (let index = Atomics.add(next, 0, 1); index < setup.ranges.length; index = Atomics.add(next, 0, 1)) {
    const result = await examineRange(setup.file, setup.source, examiner, setup.ranges, index, setup.skipInvalid);
    port.postMessage({ range: toWire(result, ids) } satisfies WorkerMessage);
  }
} catch (err) {
  port.postMessage({ error: (err as Error).stack ?? String(err) } satisfies WorkerMessage);
}
