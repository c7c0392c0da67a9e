/**
 * src/core/tasks.ts's checkTask, written by hand so that reading a task file loads no zod, against
 * the zod schema it replaces (src/core/task-schema.ts), on random values: the same verdict, the same
 * task with its members in the same order, the same issues in the same order, worded the same.
 * The values are mostly tasks with some members wrong in the ways files get them wrong (a string for
 * a number, a float for an index, an id that is a path, a missing frame), and some any JSON at all.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TaskSchema } from '../../src/core/task-schema.js';
import { checkTask, parseTaskLine } from '../../src/core/tasks.js';

const junk = fc.oneof(fc.constant(null), fc.boolean(), fc.string({ maxLength: 4 }), fc.constant([]), fc.constant({}), fc.integer(), fc.record({ length: fc.jsonValue({ maxDepth: 0 }) }));
const bigOrOdd = fc.constantFrom(-0, 0.5, -1.5, 2 ** 53, 2 ** 60, -(2 ** 60), 1e21, -1, Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER);
const count = fc.oneof({ weight: 6, arbitrary: fc.nat({ max: 50 }) }, { weight: 2, arbitrary: bigOrOdd }, { weight: 1, arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }) }, { weight: 1, arbitrary: junk });
const imageId = fc.oneof(
  { weight: 5, arbitrary: fc.stringMatching(/^[A-Za-z0-9_-][A-Za-z0-9_.-]{0,12}$/) },
  { weight: 2, arbitrary: fc.constantFrom('', '../x', 'a..b', '.hidden', 'a/b', 'abc\n', 'x'.repeat(129), 'é') },
  { weight: 2, arbitrary: count },
);
const degrees = (limit: number) =>
  fc.oneof({ weight: 6, arbitrary: fc.double({ min: -limit, max: limit, noNaN: true }) }, { weight: 2, arbitrary: fc.double({ min: -400, max: 400, noNaN: true }) }, { weight: 1, arbitrary: junk });
const capturedAt = fc.oneof(fc.constantFrom('', '2024-05', '2019-12', '2024-13', '2024-1', '2024-05-01', '2024-05\n'), junk);
const extras = fc.dictionary(fc.constantFrom('zz', 'extra', 'a', '1', 'image_ids', 'Task_id'), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 2 });
const frame = fc.oneof(
  { weight: 8, arbitrary: fc.tuple(fc.record({ image_id: imageId, lat: degrees(90), lon: degrees(180), compass_angle: fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), junk), captured_at: capturedAt, is_pano: fc.oneof(fc.boolean(), junk) }, { requiredKeys: ['image_id', 'lat', 'lon'] }), extras).map(([f, x]) => ({ ...x, ...f })) },
  { weight: 1, arbitrary: junk },
);
const attribution = fc.oneof(
  fc.record({ creator_username: fc.oneof(fc.string({ maxLength: 6 }), junk), creator_id: fc.oneof(fc.string({ maxLength: 6 }), fc.double({ noNaN: true, noDefaultInfinity: true }), junk), licence: fc.oneof(fc.string({ maxLength: 6 }), junk), source: fc.oneof(fc.string({ maxLength: 6 }), junk) }, { requiredKeys: [] }),
  junk,
);
const task = fc
  .tuple(
    fc.record(
      {
        task_index: count,
        task_id: fc.oneof({ weight: 6, arbitrary: fc.string({ minLength: 1, maxLength: 8 }) }, { weight: 1, arbitrary: fc.constant('') }, { weight: 1, arbitrary: junk }),
        frames: fc.oneof({ weight: 8, arbitrary: fc.array(frame, { maxLength: 3 }) }, { weight: 1, arbitrary: junk }),
        start_frame: count,
        country: fc.oneof(fc.string({ maxLength: 8 }), junk),
        sequence_id: fc.oneof(fc.string({ maxLength: 8 }), junk),
        provider: fc.oneof(fc.string({ maxLength: 8 }), junk),
        attribution,
        meta: fc.oneof(fc.dictionary(fc.string({ maxLength: 6 }).filter((k) => k !== '__proto__'), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }), junk),
      },
      { requiredKeys: ['task_index', 'task_id', 'frames'] },
    ),
    extras,
    fc.boolean(),
  )
  // Unknown members before or after the schema's: the task keeps them after its own, in their order.
  .map(([t, x, first]) => (first ? { ...x, ...t } : { ...t, ...x }));
const anyJson = fc.jsonValue({ maxDepth: 3 }).filter((v) => !JSON.stringify(v).includes('__proto__'));

function byZod(value: unknown): unknown {
  const r = TaskSchema.safeParse(value);
  return r.success ? { ok: true, task: r.data } : { ok: false, issues: r.error.issues.map((i) => ({ path: i.path, message: i.message })) };
}

describe('checkTask against the zod schema', () => {
  it('gives the same task or the same issues, in the same order, on 3,000 random values', () => {
    fc.assert(
      fc.property(fc.oneof({ weight: 9, arbitrary: task }, { weight: 1, arbitrary: anyJson }), (value) => {
        const ours = checkTask(value);
        const zod = byZod(value);
        expect(ours).toEqual(zod);
        // Member order too: files written from a task (splits, exports) come out the same.
        expect(JSON.stringify(ours)).toBe(JSON.stringify(zod));
      }),
      { numRuns: 3000, seed: 7 },
    );
  });

  it('finds the mistakes files make, each where it stands', () => {
    const line = JSON.stringify({ task_index: 1.5, task_id: '', frames: [{ image_id: '../etc', lat: 91, lon: 'x' }], start_frame: -1 });
    expect(parseTaskLine(line, 7)).toEqual({
      ok: false,
      errors: [
        { line: 7, field: 'task_index', message: 'expected an integer' },
        { line: 7, field: 'task_id', message: 'expected a non-empty string' },
        { line: 7, field: 'frames.0.image_id', message: 'expected a file-safe id (letters, digits, "_", "-", ".")' },
        { line: 7, field: 'frames.0.lat', message: 'expected a latitude in [-90, 90]' },
        { line: 7, field: 'frames.0.lon', message: 'Invalid input: expected number, received string' },
        { line: 7, field: 'start_frame', message: 'expected an integer >= 0' },
      ],
    });
  });
});
