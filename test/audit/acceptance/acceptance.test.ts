/**
 * The leak audit's acceptance bar (docs/audit.md, "Acceptance corpus and speed"): on a corpus of
 * prompts in the three real shapes with one planted leak each (every kind, at rotating positions)
 * and clean prompts carrying look-alikes, `geolab audit` through the real binary finds >= 95% of the
 * plants of every kind and flags <= 1% of the clean prompts. The per-kind table is printed for the
 * record; `npx tsx test/audit/acceptance/report.ts` prints it without asserting.
 */
import { beforeAll, describe, expect, it } from 'vitest';

/** The recall every planted kind must reach (docs/audit.md, "Acceptance corpus and speed"). */
const TARGET = 0.95;
/**
 * Kinds not at the target yet, each with the recall it has now as its floor (a ratchet: it may only
 * rise). None today: region-local reached it with CLDR's local names of regions ("Alba") and
 * Serbia's districts from GeoNames' admin2.
 */
const BELOW_TARGET: Readonly<Record<string, number>> = {};
import { buildAcceptanceCorpus, LOOKALIKE_KINDS, PLANTED_KINDS, type AcceptanceCorpus } from './corpus.js';
import { auditCorpus, formatScore, scoreCorpus, type ReportedFinding, type Score } from './score.js';

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

  it('counts a plant as found only when a finding overlaps it, and a clean prompt as flagged by any non-template finding', () => {
    const at = (id: string, message: number, textIndex: number | undefined, start: number, end: number, kind = 'country'): ReportedFinding => ({
      prompt_id: id,
      message,
      ...(textIndex !== undefined ? { text_index: textIndex } : {}),
      span: { start, end },
      severity: 'low',
      kind,
      text: '',
      evidence: kind === 'template' ? 'instruction template shared by 12 tasks' : '',
    });
    const leaky = corpus.prompts.filter((p) => p.plant);
    const clean = corpus.prompts.filter((p) => !p.plant);
    const onPlants = leaky.map((p) => at(p.id, p.plant!.message, p.plant!.textIndex, p.plant!.start, p.plant!.end));
    const beside = leaky.filter((p) => p.plant!.textIndex !== undefined).map((p) => at(p.id, p.plant!.message, p.plant!.textIndex, p.plant!.end, p.plant!.end + 5));
    const templates = clean.map((p) => at(p.id, 0, 0, 0, 10, 'template'));
    const exact = scoreCorpus(corpus, [...onPlants, ...templates]);
    expect(exact.planted.every((r) => r.rate === 1)).toBe(true);
    expect(exact.falsePositiveRate).toBe(0);
    const missed = scoreCorpus(corpus, [...beside, at((clean[0] as { id: string }).id, 0, 0, 0, 1)]);
    expect(missed.planted.filter((r) => !r.kind.startsWith('img-')).every((r) => r.rate === 0)).toBe(true);
    expect(missed.falsePositiveRate).toBeCloseTo(1 / clean.length);
  });

  it.each(PLANTED_KINDS)('finds at least 95 percent of the planted %s leaks (or, below target, no fewer than now)', (kind) => {
    const row = score.planted.find((r) => r.kind === kind);
    expect(row?.prompts).toBeGreaterThan(0);
    const floor = BELOW_TARGET[kind] ?? TARGET;
    expect(row?.rate, `${kind}: ${row?.hits} of ${row?.prompts} found; missed ${row?.examples.join(' ')}`).toBeGreaterThanOrEqual(floor);
  });

  it('lists as below target only kinds that still are', () => {
    const risen = Object.keys(BELOW_TARGET).filter((kind) => (score.planted.find((r) => r.kind === kind)?.rate ?? 0) >= TARGET);
    expect(risen, 'these kinds reach the target now: take them off BELOW_TARGET').toEqual([]);
  });

  it('flags at most 1 percent of the clean prompts', () => {
    const flagged = score.clean.filter((r) => r.hits > 0).map((r) => `${r.kind} ${r.hits}/${r.prompts} (${r.examples.join(' ')})`);
    expect(score.falsePositiveRate, `flagged: ${flagged.join('; ')}`).toBeLessThanOrEqual(0.01);
  });
});
