/**
 * A prompt file read on several threads gives what a read on one thread gives (docs/audit.md,
 * "Speed"): the same counts, findings in the same order, explained mentions, source lines, bad lines
 * and repeated ids, or the same error. Random files from the acceptance corpus's prompts, with bad
 * lines, repeated ids, blank lines and CRLF endings mixed in, are audited both ways through
 * runAudit, with real worker threads over ranges small enough that every file is cut many times.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAudit, type AuditResult, type RunAuditOptions } from '../../src/audit/run.js';
import { splitFile } from '../../src/audit/parallel.js';
import { buildAcceptanceCorpus, type AcceptanceCorpus } from './acceptance/corpus.js';

const dir = mkdtempSync(join(tmpdir(), 'geolab-audit-parallel-'));
let corpus: AcceptanceCorpus;
let tasksFile: string;

beforeAll(async () => {
  corpus = await buildAcceptanceCorpus({ perKind: 1, perLookalike: 1, viewPx: 24 });
  tasksFile = join(dir, 'tasks.jsonl');
  writeFileSync(tasksFile, corpus.tasks.map((t) => JSON.stringify(t)).join('\n') + '\n');
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Extra = 'not-json' | 'no-messages' | 'repeat' | 'blank';

/** What a run gives, as comparable data (an error as its message), and on how many threads it read. */
async function outcome(file: string, options: Partial<RunAuditOptions>): Promise<{ data: unknown; threads: number }> {
  let result: AuditResult;
  const invalid: string[] = [];
  try {
    result = await runAudit({ prompts: [file], tasks: [tasksFile], readWorkspace: false, radiusKm: 25, onInvalid: (e) => invalid.push(e.message), ...options });
  } catch (err) {
    return { data: { error: (err as Error).message }, threads: 0 };
  }
  return { data: { counts: result.counts, findings: result.findings, explained: result.explained, lines: result.findings.map((f) => result.lineOf(f)), invalid }, threads: result.threads };
}

describe('a prompt file read on several threads', () => {
  it('gives what one thread gives, bad lines and all', { timeout: 600_000 }, async () => {
    let file = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.nat(), { minLength: 5, maxLength: 60 }),
        fc.array(fc.record({ at: fc.nat(), extra: fc.constantFrom<Extra>('not-json', 'no-messages', 'repeat', 'blank') }), { maxLength: 4 }),
        fc.boolean(),
        fc.boolean(),
        fc.double({ min: 0.05, max: 0.5, noNaN: true }),
        fc.integer({ min: 2, max: 3 }),
        async (picks, extras, skipInvalid, crlf, share, threads) => {
          // Each pick a prompt of the corpus under an id of its own (the same prompt may come twice).
          const lines = picks.map((p, i) => {
            const prompt = corpus.prompts[p % corpus.prompts.length]!;
            return JSON.stringify({ ...prompt.line, id: `${prompt.id}~${i}` });
          });
          for (const { at, extra } of extras) {
            const line =
              extra === 'not-json' ? '{"id": "broken", '
              : extra === 'no-messages' ? JSON.stringify({ id: `bad-${at}`, task_id: corpus.prompts[0]!.taskId, messages: 'hi' })
              : extra === 'repeat' ? (lines[at % lines.length] as string)
              : '';
            lines.splice(at % (lines.length + 1), 0, line);
          }
          const path = join(dir, `prompts-${file++}.jsonl`);
          const text = lines.join(crlf ? '\r\n' : '\n') + '\n';
          writeFileSync(path, text);
          const rangeBytes = Math.max(64, Math.floor(Buffer.byteLength(text) * share));
          const one = await outcome(path, { skipInvalid, parallel: { threads: 1 } });
          // The workers examine every range (unless one dies): the main thread only puts them in order.
          const several = await outcome(path, { skipInvalid, parallel: { minBytes: 0, rangeBytes, threads, mainExamines: false } });
          expect(several.data).toEqual(one.data);
          // The cut is real: several ranges, examined off the main thread.
          expect(splitFile(path, rangeBytes).length).toBeGreaterThan(1);
          if (one.threads > 0) expect(several.threads).toBeGreaterThan(1);
        },
      ),
      { numRuns: 12, seed: 20261206 },
    );
  });
});

describe('splitFile', () => {
  it('cuts a file into ranges of whole lines that cover it', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 40 }).map((s) => s.replace(/[\r\n]/g, '')), { maxLength: 50 }), fc.integer({ min: 1, max: 200 }), fc.boolean(), (lines, bytes, crlf) => {
        const path = join(dir, 'split.txt');
        const text = lines.join(crlf ? '\r\n' : '\n') + (lines.length ? '\n' : '');
        writeFileSync(path, text);
        const buffer = Buffer.from(text);
        const ranges = splitFile(path, bytes);
        let at = 0;
        for (const r of ranges) {
          expect(r.start).toBe(at);
          expect(r.end).toBeGreaterThan(r.start);
          // Each range ends just after a newline, or at the end of the file.
          expect(r.end === buffer.length || buffer[r.end - 1] === 0x0a).toBe(true);
          at = r.end;
        }
        expect(at).toBe(buffer.length);
      }),
    );
  });
});
