/**
 * The audit in daily use, through the real binary: the README's CI recipe on a fresh folder, the
 * baseline commands (add checks the id against the current findings, list, remove), --skip-invalid
 * for prompt files, and a task file that holds several splits.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { BIN, geolab } from '../helpers/cli.js';
import { makeTask, tempDir } from '../helpers/fixtures.js';

/** A task in Niš, Serbia. */
const TASK = makeTask(0, {
  task_id: 'eval-00042',
  country: 'Republic of Serbia',
  sequence_id: 'qR7vT2mX9pL4wB8nK3cF1h',
  frames: [{ image_id: '5551234567890123', lat: 43.3209, lon: 21.8958, compass_angle: 0, captured_at: '2023-06', is_pano: true }],
});

const prompt = (id: string, text: string, ref: Record<string, unknown> = { task_id: 'eval-00042' }) => ({
  id,
  ...ref,
  messages: [
    { role: 'system', content: 'You play GeoGuesser. Work out where you are.' },
    { role: 'user', content: text },
  ],
});

const jsonl = (lines: unknown[]) => lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n') + '\n';

/** The shell command of README.md's "Audit in CI" section, as written there. */
function readmeRecipe(): string {
  const readme = readFileSync(fileURLToPath(new URL('../../README.md', import.meta.url)), 'utf8');
  const section = readme.slice(readme.indexOf('## Audit in CI'));
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1];
  if (!block) throw new Error('README.md has no sh block under "## Audit in CI"');
  return block.replace(/\\\n\s*/g, ' ').trim();
}

interface Sarif {
  $schema: string;
  version: string;
  runs: { tool: { driver: { name: string; version: string; rules: { id: string; defaultConfiguration: { level: string } }[] } }; results: { ruleId: string; level: string; message: { text: string }; locations: unknown[]; partialFingerprints: Record<string, string> }[] }[];
}

/** What SARIF 2.1.0 requires of a log, and what code scanning reads of it. */
function expectValidSarif(text: string): Sarif {
  const log = JSON.parse(text) as Sarif;
  expect(log.version).toBe('2.1.0');
  expect(log.$schema).toMatch(/sarif-2\.1\.0/);
  expect(log.runs).toHaveLength(1);
  const [run] = log.runs;
  expect(run!.tool.driver.name).toBe('geolab audit');
  const rules = new Set(run!.tool.driver.rules.map((r) => r.id));
  expect(rules.has('template')).toBe(true);
  for (const r of run!.tool.driver.rules) expect(['error', 'warning', 'note']).toContain(r.defaultConfiguration.level);
  expect(Array.isArray(run!.results)).toBe(true);
  for (const r of run!.results) {
    expect(rules.has(r.ruleId)).toBe(true);
    expect(['error', 'warning', 'note']).toContain(r.level);
    expect(r.message.text).not.toBe('');
    expect(r.locations.length).toBe(1);
  }
  return log;
}

describe("README's Audit in CI recipe", () => {
  it('passes on a fresh folder without a baseline file, with valid SARIF; fails once a leak is planted', () => {
    const dir = tempDir();
    for (const sub of ['out', 'runs/r1/traces', 'tasks', 'bin']) mkdirSync(join(dir, sub), { recursive: true });
    writeFileSync(join(dir, 'tasks/eval.jsonl'), jsonl([TASK]));
    writeFileSync(join(dir, 'out/prompts.jsonl'), jsonl([prompt('p1', 'Facing 90 deg. 11 tool calls left.')]));
    const rollout = { run: 'r1', task: { split: 'eval', index: 0 }, outcome: { max_turns: 12 }, turns: [{ turn: 1, action: { op: 'look', heading_deg: 90 }, feedback: 'Facing 90 degrees.' }] };
    writeFileSync(join(dir, 'runs/r1/traces/rollouts.jsonl'), jsonl([rollout]));
    // `geolab` on the PATH is the binary under test.
    const shim = join(dir, 'bin', 'geolab');
    writeFileSync(shim, `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
    chmodSync(shim, 0o755);
    const recipe = readmeRecipe();
    expect(recipe).toContain('--baseline geolab-audit-baseline.json');
    const run = () =>
      spawnSync('sh', ['-c', recipe], { cwd: dir, encoding: 'utf8', env: { ...process.env, PATH: `${join(dir, 'bin')}:${process.env.PATH}`, GEOLAB_HOME: join(dir, 'home'), NO_COLOR: '1' }, timeout: 60_000 });

    const first = run();
    expect(first.status).toBe(0);
    expect(first.stderr).toContain('geolab-audit-baseline.json does not exist yet');
    expect(existsSync(join(dir, 'geolab-audit-baseline.json'))).toBe(false);
    expect(expectValidSarif(readFileSync(join(dir, 'audit.sarif'), 'utf8')).runs[0]!.results).toEqual([]);

    writeFileSync(join(dir, 'out/prompts.jsonl'), jsonl([prompt('p1', 'Facing 90 deg.'), prompt('p2', 'This is sequence qR7vT2mX9pL4wB8nK3cF1h.')]));
    const leaked = run();
    expect(leaked.status).toBe(1);
    const results = expectValidSarif(readFileSync(join(dir, 'audit.sarif'), 'utf8')).runs[0]!.results;
    expect(results.map((r) => [r.ruleId, r.level])).toEqual([['identity', 'error']]);
  });
});

function setup(promptLines: unknown[], taskLines: unknown[] = [TASK]) {
  const dir = tempDir();
  const tasks = join(dir, 'eval.jsonl');
  writeFileSync(tasks, jsonl(taskLines));
  const prompts = join(dir, 'prompts.jsonl');
  writeFileSync(prompts, jsonl(promptLines));
  return { dir, tasks, prompts, home: join(dir, 'home'), baseline: join(dir, 'baseline.json') };
}

describe('geolab audit baseline', () => {
  it('add accepts a current finding and refuses an id none has, listing the closest; list and remove', () => {
    const { tasks, prompts, home, baseline } = setup([prompt('a', 'Sequence qR7vT2mX9pL4wB8nK3cF1h.'), prompt('b', 'Photo 5551234567890123, in Serbia.')]);
    const sources = ['--prompts', prompts, '--tasks', tasks, '--baseline', baseline];
    const report = JSON.parse(geolab(['audit', ...sources, '--json'], { home }).stdout) as { findings: { id: string; kind: string }[] };
    const ids = report.findings.map((f) => f.id);
    expect(ids.length).toBeGreaterThanOrEqual(3);
    const target = ids[0]!;
    // One digit off: refused, with the real id first among the closest.
    const typo = target.slice(0, 10) + (target[10] === '0' ? '1' : '0') + target.slice(11);
    const refused = geolab(['audit', 'baseline', 'add', typo, '--reason', 'typo', ...sources], { home });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`no current finding of the sources named has id ${typo}; the closest:`);
    expect(refused.stderr.split('\n')[1]).toContain(target);
    expect(existsSync(baseline)).toBe(false);
    // Without the sources the workspace (empty here) is audited: nothing to accept.
    const noSources = geolab(['audit', 'baseline', 'add', target, '--reason', 'x', '--baseline', baseline], { home });
    expect(noSources.code).toBe(2);
    expect(noSources.stderr).toContain("the audit of the workspace's episodes has no findings");

    const added = geolab(['audit', 'baseline', 'add', target, '--reason', 'fixture text', ...sources], { home });
    expect(added.stderr).toBe('');
    expect(added.code).toBe(0);
    expect(added.stdout).toContain(`accepted ${target} in ${baseline} (1 accepted)`);
    const listed = geolab(['audit', 'baseline', 'list', '--baseline', baseline], { home });
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(new RegExp(`^${target}  \\d{4}-\\d\\d-\\d\\dT.*: fixture text$`, 'm'));
    const asJson = JSON.parse(geolab(['audit', 'baseline', 'list', '--baseline', baseline, '--json'], { home }).stdout) as { accepted: { id: string; reason: string }[] };
    expect(asJson.accepted).toEqual([expect.objectContaining({ id: target, reason: 'fixture text' })]);

    const notThere = geolab(['audit', 'baseline', 'remove', typo, '--baseline', baseline], { home });
    expect(notThere.code).toBe(2);
    expect(notThere.stderr).toContain(`does not accept "${typo}"; the closest:\n  ${target}`);
    const removed = geolab(['audit', 'baseline', 'remove', target, '--baseline', baseline], { home });
    expect(removed.code).toBe(0);
    expect(removed.stdout).toContain(`removed ${target} from ${baseline} (0 accepted)`);
    expect(geolab(['audit', 'baseline', 'list', '--baseline', baseline], { home }).stdout).toContain(`no accepted findings in ${baseline}`);
  });
});

describe('--skip-invalid', () => {
  it('lists bad prompt lines with file:line, counts them, audits the rest and exits 1; without it a bad line is exit 2', () => {
    const { tasks, prompts, home } = setup([prompt('ok', 'Look around.'), '{"id": "broken", ', { id: 'no-messages', task_id: 'eval-00042', messages: 'hi' }, prompt('ok2', 'Facing north.'), prompt('ok', 'Again.')]);
    const strict = geolab(['audit', '--prompts', prompts, '--tasks', tasks], { home });
    expect(strict.code).toBe(2);
    expect(strict.stderr).toContain(`${prompts}:2: not valid JSON`);

    const skipped = geolab(['audit', '--prompts', prompts, '--tasks', tasks, '--skip-invalid', '--json'], { home });
    expect(skipped.code).toBe(1);
    expect(skipped.stderr).toContain(`skipped ${prompts}:2: not valid JSON`);
    expect(skipped.stderr).toContain(`skipped ${prompts}:3, field messages: expected a list of chat messages`);
    expect(skipped.stderr).toContain(`skipped ${prompts}:5, field id: id "ok" is repeated (first on line 1)`);
    expect(skipped.stderr).toContain('3 invalid line(s) skipped');
    const report = JSON.parse(skipped.stdout) as { summary: { prompts: number; invalid: number }; findings: unknown[] };
    expect(report.summary).toMatchObject({ prompts: 2, invalid: 3 });
    expect(report.findings).toEqual([]);
    const text = geolab(['audit', '--prompts', prompts, '--tasks', tasks, '--skip-invalid'], { home });
    expect(text.code).toBe(1);
    expect(text.stdout).toContain('skipped 3 invalid line(s) of prompt files');
  });
});

describe('a task file holding several splits', () => {
  it('is read by task_id when its task_index repeats; split and index then name no task', () => {
    const train = makeTask(0, { task_id: 'train-00000', country: 'Italy' });
    const evalTask = { ...TASK, task_index: 0 };
    const { tasks, prompts, home } = setup(
      [prompt('by-id', 'Sequence qR7vT2mX9pL4wB8nK3cF1h.'), prompt('train', 'Look.', { task_id: 'train-00000' }), prompt('by-index', 'Look.', { split: 'eval', index: 0 })],
      [train, evalTask],
    );
    const r = geolab(['audit', '--prompts', prompts, '--tasks', `pool=${tasks}`, '--json'], { home });
    expect(r.stderr).toBe('');
    const report = JSON.parse(r.stdout) as { findings: { prompt_id: string; kind: string }[] };
    expect(report.findings.map((f) => [f.prompt_id, f.kind])).toEqual([
      ['by-id', 'identity'],
      ['by-index', 'unknown_task'],
    ]);
    // A repeated task_id is still an error, with its line.
    writeFileSync(tasks, jsonl([train, evalTask, { ...evalTask, task_index: 1 }]));
    const bad = geolab(['audit', '--prompts', prompts, '--tasks', tasks], { home });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(`${tasks}:3, field task_id: duplicated task_id "eval-00042"`);
  });
});
