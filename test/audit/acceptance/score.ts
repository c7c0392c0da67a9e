/**
 * Runs `geolab audit` (the real binary, built in dist/) on the acceptance corpus and scores it: per
 * planted kind, how many plants a finding covers (recall); per look-alike, how many clean prompts
 * have any finding (false positives). A plant counts as found when a finding of its prompt overlaps
 * the planted text (same message, same text of it); for image bytes, when a finding names the
 * image's message (or the prompt as a whole). A template finding (one instruction text shared by
 * many tasks, reported once) is not a finding about the prompt it is attached to, so it does not make
 * a clean prompt a false positive.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN } from '../../helpers/cli.js';
import { corpusFiles, LOOKALIKE_KINDS, PLANTED_KINDS, type AcceptanceCorpus, type CorpusPrompt } from './corpus.js';

export interface ReportedFinding {
  prompt_id: string;
  message: number;
  text_index?: number;
  span: { start: number; end: number };
  severity: 'high' | 'medium' | 'low';
  kind: string;
  text: string;
  evidence: string;
}

export interface AuditRun {
  code: number;
  stderr: string;
  findings: ReportedFinding[];
  seconds: number;
}

/** Writes the corpus to a temp folder and audits it with the binary (`--json`). */
export function auditCorpus(corpus: AcceptanceCorpus): AuditRun & { dir: string } {
  const dir = mkdtempSync(join(tmpdir(), 'geolab-acceptance-'));
  const files = corpusFiles(corpus);
  const prompts = join(dir, 'prompts.jsonl');
  const tasks = join(dir, 'tasks.jsonl');
  writeFileSync(prompts, files.prompts);
  writeFileSync(tasks, files.tasks);
  const started = performance.now();
  // Not helpers/cli's geolab(): the JSON report of a thousand prompts can pass spawnSync's default 1 MiB buffer.
  const r = spawnSync(process.execPath, [BIN, 'audit', '--prompts', prompts, '--tasks', tasks, '--json'], {
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', GEOLAB_HOME: join(dir, 'home') },
    timeout: 120_000,
    maxBuffer: 256 * 1024 * 1024,
  });
  const seconds = (performance.now() - started) / 1000;
  let findings: ReportedFinding[] = [];
  if (r.stdout) findings = (JSON.parse(r.stdout) as { findings: ReportedFinding[] }).findings;
  return { code: r.status ?? -1, stderr: r.stderr, findings, seconds, dir };
}

export interface KindScore {
  kind: string;
  prompts: number;
  /** Leaky kinds: plants found; clean kinds: prompts with a finding. */
  hits: number;
  rate: number;
  /** A few prompt ids that failed (missed plants, flagged clean prompts), for a first look. */
  examples: string[];
}

export interface Score {
  planted: KindScore[];
  /** Recall over all planted kinds by where the plant sits and by prompt shape: where the audit is blind. */
  byPlace: KindScore[];
  clean: KindScore[];
  /** Clean prompts with a finding over all clean prompts. */
  falsePositiveRate: number;
}

function isTemplateFinding(f: ReportedFinding): boolean {
  return f.kind === 'template' || /\btemplate\b/i.test(f.evidence);
}

function covers(prompt: CorpusPrompt, f: ReportedFinding): boolean {
  const site = prompt.plant;
  if (!site) return false;
  // Image bytes have no span: a finding on the image's message, or on the prompt as a whole (-1), names them.
  if (site.textIndex === undefined) return f.message === site.message || f.message === -1;
  if (f.message !== site.message) return false;
  if (f.text_index !== undefined && f.text_index !== site.textIndex) return false;
  return f.span.start < site.end && f.span.end > site.start;
}

export function scoreCorpus(corpus: AcceptanceCorpus, findings: readonly ReportedFinding[]): Score {
  const byPrompt = new Map<string, ReportedFinding[]>();
  for (const f of findings) {
    if (isTemplateFinding(f)) continue;
    const list = byPrompt.get(f.prompt_id) ?? [];
    list.push(f);
    byPrompt.set(f.prompt_id, list);
  }
  const rows = (kinds: readonly string[], hit: (p: CorpusPrompt) => boolean): KindScore[] =>
    kinds.map((kind) => {
      const prompts = corpus.prompts.filter((p) => p.kind === kind);
      const hits = prompts.filter(hit);
      const failed = kind.startsWith('clean-') ? hits : prompts.filter((p) => !hit(p));
      return { kind, prompts: prompts.length, hits: hits.length, rate: prompts.length ? hits.length / prompts.length : 0, examples: failed.slice(0, 3).map((p) => p.id) };
    });
  const found = (p: CorpusPrompt) => (byPrompt.get(p.id) ?? []).some((f) => covers(p, f));
  const planted = rows(PLANTED_KINDS, found);
  const leaky = corpus.prompts.filter((p) => p.plant !== null);
  const places = [...new Set(leaky.map((p) => `position ${p.position}`)), ...new Set(leaky.map((p) => `shape ${p.shape}`))];
  const byPlace = places.map((place) => {
    const prompts = leaky.filter((p) => place === `position ${p.position}` || place === `shape ${p.shape}`);
    const hits = prompts.filter(found).length;
    return { kind: place, prompts: prompts.length, hits, rate: hits / prompts.length, examples: [] };
  });
  const clean = rows(LOOKALIKE_KINDS, (p) => (byPrompt.get(p.id)?.length ?? 0) > 0);
  const cleanPrompts = clean.reduce((n, r) => n + r.prompts, 0);
  const flagged = clean.reduce((n, r) => n + r.hits, 0);
  return { planted, byPlace, clean, falsePositiveRate: cleanPrompts ? flagged / cleanPrompts : 0 };
}

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;

/** The per-kind table, as the lead copies it into a report. */
export function formatScore(score: Score): string {
  const lines = ['| planted kind | prompts | found | recall | missed (first) |', '|---|---:|---:|---:|---|'];
  for (const r of score.planted) lines.push(`| ${r.kind} | ${r.prompts} | ${r.hits} | ${pct(r.rate)} | ${r.examples.join(' ')} |`);
  const passing = score.planted.filter((r) => r.rate >= 0.95).length;
  lines.push('', `kinds at >= 95% recall: ${passing} of ${score.planted.length}`, '');
  lines.push('| all planted kinds, by | prompts | found | recall |', '|---|---:|---:|---:|');
  for (const r of score.byPlace) lines.push(`| ${r.kind} | ${r.prompts} | ${r.hits} | ${pct(r.rate)} |`);
  lines.push('');
  lines.push('| clean look-alike | prompts | flagged | rate | flagged (first) |', '|---|---:|---:|---:|---|');
  for (const r of score.clean) lines.push(`| ${r.kind} | ${r.prompts} | ${r.hits} | ${pct(r.rate)} | ${r.examples.join(' ')} |`);
  lines.push('', `false positives: ${pct(score.falsePositiveRate)} of clean prompts`);
  return lines.join('\n');
}
