/**
 * The leak audit's acceptance bar (docs/audit.md, "Acceptance corpus and speed"): on a corpus of
 * prompts in the three real shapes with one planted leak each (every kind, at rotating positions)
 * and clean prompts carrying look-alikes, `geolab audit` through the real binary finds >= 95% of the
 * plants of every kind and flags <= 1% of the clean prompts. The per-kind table is printed for the
 * record; `npx tsx test/audit/acceptance/report.ts` prints it without asserting.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { buildAcceptanceCorpus, LOOKALIKE_KINDS, PLANTED_KINDS, type AcceptanceCorpus } from './corpus.js';
import { auditCorpus, formatScore, scoreCorpus, type Score } from './score.js';

let corpus: AcceptanceCorpus;
let score: Score;

describe('acceptance corpus through geolab audit', () => {
  beforeAll(async () => {
    corpus = await buildAcceptanceCorpus();
    const run = auditCorpus(corpus);
    // 1: findings at the gate's severity, as a corpus with leaks must give; anything else is a broken run.
    expect(run.stderr).toBe('');
    expect(run.code).toBe(1);
    score = scoreCorpus(corpus, run.findings);
    console.log(`acceptance corpus: ${corpus.prompts.length} prompts, ${corpus.tasks.length} tasks, audited in ${run.seconds.toFixed(2)} s\n${formatScore(score)}`);
  }, 180_000);

  it('is what it says: every kind and look-alike present, in every shape, deterministic', async () => {
    expect(new Set(corpus.tasks.map((t) => t.country)).size).toBeGreaterThanOrEqual(25);
    for (const kind of [...PLANTED_KINDS, ...LOOKALIKE_KINDS]) expect(corpus.prompts.filter((p) => p.kind === kind).length).toBeGreaterThanOrEqual(20);
    expect(new Set(corpus.prompts.map((p) => p.shape))).toEqual(new Set(['tools', 'harness', 'single']));
    expect(new Set(corpus.prompts.map((p) => p.position))).toEqual(new Set(['tool', 'system', 'caption', 'user', 'url', 'image', null]));
    const again = await buildAcceptanceCorpus();
    expect(again.prompts.map((p) => JSON.stringify(p.line))).toEqual(corpus.prompts.map((p) => JSON.stringify(p.line)));
  });

  it.each(PLANTED_KINDS)('finds at least 95 percent of the planted %s leaks', (kind) => {
    const row = score.planted.find((r) => r.kind === kind);
    expect(row?.prompts).toBeGreaterThan(0);
    expect(row?.rate, `${kind}: ${row?.hits} of ${row?.prompts} found; missed ${row?.examples.join(' ')}`).toBeGreaterThanOrEqual(0.95);
  });

  it('flags at most 1 percent of the clean prompts', () => {
    const flagged = score.clean.filter((r) => r.hits > 0).map((r) => `${r.kind} ${r.hits}/${r.prompts} (${r.examples.join(' ')})`);
    expect(score.falsePositiveRate, `flagged: ${flagged.join('; ')}`).toBeLessThanOrEqual(0.01);
  });
});
