/**
 * `geolab audit` through the real binary: exit codes, the --json shape, SARIF's required fields, the
 * baseline gate, and every source kind on files written here.
 */
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { saveEpisode } from '../../src/store/episodes.js';
import { openWorkspace } from '../../src/store/index.js';
import { geolab } from '../helpers/cli.js';
import { completedRecord } from '../helpers/episodes.js';
import { tempDir } from '../helpers/fixtures.js';
import { writeParquet } from '../helpers/parquet.js';

/** A task in Niš, Serbia, with every identity key a task record has. */
const TASK = {
  task_index: 0,
  task_id: 'eval-00042',
  country: 'Republic of Serbia',
  sequence_id: 'qR7vT2mX9pL4wB8nK3cF1h',
  frames: [
    { image_id: '5551234567890123', lat: 43.3209, lon: 21.8958, compass_angle: 0, captured_at: '2023-06', is_pano: true },
    { image_id: '5551234567890124', lat: 43.321, lon: 21.896, compass_angle: 0, captured_at: '2023-06', is_pano: true },
  ],
  attribution: { creator_username: 'nis_walker', creator_id: '100200300400', licence: 'CC-BY-SA', source: 'mapillary' },
  meta: { sha256: { '5551234567890123': '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08' } },
};

interface SarifResult {
  ruleId: string;
  ruleIndex: number;
  level: string;
  message: { text: string };
  locations: { physicalLocation: { artifactLocation: { uri: string }; region: { startLine: number } }; logicalLocations: { name: string }[] }[];
  partialFingerprints: Record<string, string>;
}

function setup(lines: unknown[]) {
  const dir = tempDir();
  const tasks = join(dir, 'eval.jsonl');
  writeFileSync(tasks, JSON.stringify(TASK) + '\n');
  const prompts = join(dir, 'prompts.jsonl');
  writeFileSync(prompts, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  return { dir, tasks, prompts, home: join(dir, 'home') };
}

const user = (id: string, text: string, ref: Record<string, unknown> = { task_id: 'eval-00042' }) => ({
  id,
  ...ref,
  messages: [
    { role: 'system', content: 'You play GeoGuesser. Work out where you are.' },
    { role: 'user', content: text },
  ],
});

const CLEAN = user('clean', 'Facing 90 deg. 11 tool calls left.');
const LEAKY = user('leak', 'Panorama https://cdn.example/u/nis_walker/pano.jpg, near 43.3215, 21.8969.');

describe('geolab audit', () => {
  it('exits 0 on clean prompts and says so', () => {
    const { tasks, prompts, home } = setup([CLEAN, user('by-index', 'Look around.', { split: 'eval', index: 0 })]);
    const r = geolab(['audit', '--prompts', prompts, '--tasks', tasks], { home });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('audited 2 prompt(s)');
    expect(r.stdout).toContain('clean: no findings');
  });

  it('exits 1 on planted leaks; --json has exactly the shape of issue 10; an unknown task is reported', () => {
    const { tasks, prompts, home } = setup([CLEAN, LEAKY, user('lost', 'Look around.', { task_id: 'eval-99999' })]);
    const r = geolab(['audit', '--prompts', prompts, '--tasks', tasks, '--json'], { home });
    expect(r.code).toBe(1);
    const report = JSON.parse(r.stdout) as { summary: Record<string, unknown>; findings: Record<string, unknown>[] };
    expect(report.summary).toMatchObject({ prompts: 3, sources: 1, new: report.findings.length, baselined: 0, fail_on: 'high' });
    expect(report.summary.failing).toBeGreaterThan(0);
    for (const f of report.findings) {
      expect(Object.keys(f).sort()).toEqual(
        ['baselined', 'context', 'episode_id', 'evidence', 'id', 'kind', 'message', 'prompt_id', 'severity', 'source', 'span', 'text', 'turn'].sort(),
      );
      expect(f.source).toBe(prompts);
    }
    const leak = report.findings.filter((f) => f.prompt_id === 'leak');
    expect(leak.map((f) => [f.kind, f.text])).toEqual(
      expect.arrayContaining([
        ['identity', 'nis_walker'],
        ['coordinates', '43.3215, 21.8969'],
      ]),
    );
    const username = leak.find((f) => f.text === 'nis_walker')!;
    expect(username).toMatchObject({ message: 1, baselined: false, episode_id: null, turn: null });
    const text = LEAKY.messages[1]!.content;
    expect(text.slice((username.span as { start: number }).start, (username.span as { end: number }).end)).toBe('nis_walker');
    expect(report.findings.find((f) => f.prompt_id === 'lost')).toMatchObject({ kind: 'unknown_task', evidence: expect.stringContaining('eval-99999') });
    expect(report.findings.some((f) => f.prompt_id === 'clean')).toBe(false);
  });

  it('writes valid SARIF 2.1.0: one rule per kind, levels from severity, file:line locations, finding ids as fingerprints', () => {
    const { tasks, prompts, home } = setup([CLEAN, LEAKY]);
    const json = JSON.parse(geolab(['audit', '--prompts', prompts, '--tasks', tasks, '--json'], { home }).stdout) as { findings: { id: string }[] };
    const r = geolab(['audit', '--prompts', prompts, '--tasks', tasks, '--sarif'], { home });
    expect(r.code).toBe(1);
    const sarif = JSON.parse(r.stdout) as {
      version: string;
      $schema: string;
      runs: { tool: { driver: { name: string; rules: { id: string; shortDescription: { text: string } }[] } }; results: SarifResult[] }[];
    };
    expect(sarif.version).toBe('2.1.0');
    expect(sarif.$schema).toContain('sarif');
    const [run] = sarif.runs;
    expect(run!.tool.driver.name).toBe('geolab audit');
    const rules = run!.tool.driver.rules.map((rule) => rule.id);
    expect(new Set(rules).size).toBe(rules.length);
    expect(rules).toEqual(expect.arrayContaining(['identity', 'coordinates', 'country', 'city', 'image_metadata', 'budget', 'unknown_task']));
    expect(run!.results).toHaveLength(json.findings.length);
    for (const result of run!.results) {
      expect(rules).toContain(result.ruleId);
      expect(rules[result.ruleIndex]).toBe(result.ruleId);
      expect(['error', 'warning', 'note']).toContain(result.level);
      expect(result.message.text).toEqual(expect.any(String));
      const location = result.locations[0]!;
      expect(location.physicalLocation.artifactLocation.uri).toBe(`file://${prompts}`);
      expect(location.physicalLocation.region.startLine).toBe(2);
      expect(location.logicalLocations[0]!.name).toBe('leak');
    }
    expect(run!.results.map((res) => res.partialFingerprints['geolabFindingId/v1']).sort()).toEqual(json.findings.map((f) => f.id).sort());
  });

  it('gates on new findings only: --update accepts them, a re-run exits 0, a new planted leak exits 1', () => {
    const { dir, tasks, prompts, home } = setup([CLEAN, LEAKY]);
    const baseline = join(dir, 'baseline.json');
    const updated = geolab(['audit', '--prompts', prompts, '--tasks', tasks, '--baseline', baseline, '--update'], { home });
    expect(updated.code).toBe(0);
    expect(updated.stderr).toMatch(/baseline: \d+ finding\(s\) newly accepted/);
    const written = JSON.parse(readFileSync(baseline, 'utf8')) as { geolab_audit_baseline: number; accepted: Record<string, string>[] };
    expect(written.geolab_audit_baseline).toBe(1);
    expect(written.accepted.length).toBeGreaterThan(0);
    for (const entry of written.accepted) expect(Object.keys(entry).sort()).toEqual(['at', 'by', 'id', 'reason']);

    const rerun = geolab(['audit', '--prompts', prompts, '--tasks', tasks, '--baseline', baseline, '--json'], { home });
    expect(rerun.code).toBe(0);
    const again = JSON.parse(rerun.stdout) as { summary: { new: number; baselined: number }; findings: { baselined: boolean }[] };
    expect(again.summary.new).toBe(0);
    expect(again.findings.every((f) => f.baselined)).toBe(true);

    appendFileSync(prompts, JSON.stringify(user('new-leak', 'This capture is part of sequence qR7vT2mX9pL4wB8nK3cF1h.')) + '\n');
    const planted = geolab(['audit', '--prompts', prompts, '--tasks', tasks, '--baseline', baseline, '--json'], { home });
    expect(planted.code).toBe(1);
    const fresh = (JSON.parse(planted.stdout) as { findings: { prompt_id: string; baselined: boolean; kind: string; id: string }[] }).findings.filter((f) => !f.baselined);
    expect(fresh.map((f) => [f.prompt_id, f.kind])).toEqual([['new-leak', 'identity']]);

    const added = geolab(['audit', 'baseline', 'add', fresh[0]!.id, '--reason', 'synthetic fixture', '--prompts', prompts, '--tasks', tasks, '--baseline', baseline], { home });
    expect(added.code).toBe(0);
    expect(added.stdout).toContain(`accepted ${fresh[0]!.id}`);
    expect(geolab(['audit', '--prompts', prompts, '--tasks', tasks, '--baseline', baseline], { home }).code).toBe(0);
    const entry = (JSON.parse(readFileSync(baseline, 'utf8')) as { accepted: Record<string, string>[] }).accepted.find((e) => e.id === fresh[0]!.id);
    expect(entry).toMatchObject({ reason: 'synthetic fixture', by: expect.any(String), at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) });
  });

  it('--fail-on sets the gate: a medium finding is reported but passes at high, fails at medium and low', () => {
    const { tasks, prompts, home } = setup([user('demonym', 'Road signs in Serbian are visible.')]);
    const atHigh = geolab(['audit', '--prompts', prompts, '--tasks', tasks], { home });
    expect(atHigh.code).toBe(0);
    expect(atHigh.stdout).toContain('MEDIUM country');
    expect(atHigh.stdout).toContain('passed: no new finding at or above high');
    for (const level of ['medium', 'low']) {
      const r = geolab(['audit', '--prompts', prompts, '--tasks', tasks, '--fail-on', level], { home });
      expect(r.code).toBe(1);
      expect(r.stdout).toContain(`FAILED: 1 new finding(s) at or above ${level}`);
    }
    expect(geolab(['audit', '--prompts', prompts, '--tasks', tasks, '--fail-on', 'severe'], { home }).code).toBe(2);
  });

  it('exits 2 with file:line and the field on bad input, without a stack trace', () => {
    const { dir, tasks, prompts, home } = setup([CLEAN, { id: 'bad', task_id: 'eval-00042', messages: 'hello' }]);
    const r = geolab(['audit', '--prompts', prompts, '--tasks', tasks], { home });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${prompts}:2, field messages: expected a list of chat messages`);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(r.stdout).toBe('');
    expect(geolab(['audit', '--prompts', prompts, '--tasks', tasks, '--json', '--sarif'], { home }).code).toBe(2);
    expect(geolab(['audit', '--prompts', join(dir, 'missing.jsonl'), '--tasks', tasks], { home }).code).toBe(2);
    // A baseline that does not exist yet accepts nothing (test/audit/daily-use.test.ts); one that cannot be read stops the run.
    const unreadableBaseline = geolab(['audit', '--prompts', prompts, '--tasks', tasks, '--baseline', dir], { home });
    expect(unreadableBaseline.code).toBe(2);
    expect(unreadableBaseline.stderr).toContain('cannot read the baseline');
    expect(geolab(['audit', 'baseline', 'add', 'not-an-id', '--reason', 'x'], { home }).code).toBe(2);
  });

  it('reads episode files, traces and the workspace; a leak re-sent in later turns is reported once', async () => {
    const { dir, tasks, home } = setup([]);
    const record = completedRecord({ id: 'ep-leak', split: 'eval', index: 0 }) as unknown as { task: Record<string, unknown>; turns: Record<string, unknown>[] };
    record.task.task_id = 'eval-00042';
    const history = [
      { role: 'system', content: 'You play GeoGuesser.' },
      { role: 'user', content: 'Start.' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'look', arguments: '{"heading_deg": 90}' } }] },
      { role: 'tool', content: 'Facing east. Image 5551234567890124 loaded.' },
    ];
    record.turns[1]!.messages = history.slice(0, 2);
    record.turns[2]!.messages = history;
    record.turns[3]!.messages = [...history, { role: 'user', content: 'Guess now.' }];
    const episodes = join(dir, 'episodes.jsonl');
    writeFileSync(episodes, JSON.stringify(record) + '\n');
    const rollouts = join(dir, 'rollouts.jsonl');
    const rollout = {
      run: 'r1',
      step: 0,
      task: { split: 'eval', index: 0 },
      outcome: { max_turns: 12 },
      turns: [
        { turn: 1, action: { op: 'pin', lat: 43.33, lon: 21.9 }, feedback: 'Pin 1 placed at 43.33, 21.9. 23 actions left.', pins: [[43.33, 21.9]] },
        { turn: 2, action: { op: 'look', heading_deg: 10 }, feedback: 'Camera at 43.3209, 21.8958.', pins: [[43.33, 21.9]] },
      ],
    };
    writeFileSync(rollouts, JSON.stringify(rollout) + '\n');

    const r = geolab(['audit', '--episodes', dir, '--traces', rollouts, '--tasks', tasks, '--json'], { home });
    expect(r.code).toBe(1);
    const { summary, findings } = JSON.parse(r.stdout) as { summary: Record<string, number>; findings: Record<string, unknown>[] };
    expect(summary).toMatchObject({ sources: 2, repeats: 1 });
    expect(findings.map((f) => [f.source, f.prompt_id, f.episode_id, f.turn, f.kind, f.text])).toEqual([
      [episodes, 'ep-leak#2', 'ep-leak', 2, 'identity', '5551234567890124'],
      // The pin's echo is the agent's own point; the camera's position is not.
      [rollouts, '1#2', 'r1@1', 2, 'coordinates', '43.3209, 21.8958'],
    ]);

    const ws = await openWorkspace(home, { seedDemo: false });
    try {
      saveEpisode(ws.db, record as never);
    } finally {
      ws.close();
    }
    const fromWorkspace = geolab(['audit', '--tasks', tasks, '--json'], { home });
    expect(fromWorkspace.code).toBe(1);
    const workspaceFindings = (JSON.parse(fromWorkspace.stdout) as { findings: Record<string, unknown>[] }).findings;
    expect(workspaceFindings.map((f) => [f.source, f.prompt_id])).toEqual([['workspace', 'ep-leak#2']]);
    // Named sources replace the workspace's episodes, unless --workspace asks for them too.
    const both = JSON.parse(geolab(['audit', '--workspace', home, '--traces', rollouts, '--tasks', tasks, '--json']).stdout) as { summary: Record<string, number>; findings: Record<string, unknown>[] };
    expect(both.summary.sources).toBe(2);
    expect(both.findings.map((f) => f.source)).toEqual([rollouts, 'workspace']);
  });

  it("reads TRL's completions parquet: a leak in a tool result inside the completion fails the run", () => {
    const { dir, tasks, home } = setup([]);
    const file = join(dir, 'completions_00001.parquet');
    writeParquet(file, ['prompt', 'completion', 'task_id'], [
      [
        { prompt: '<|im_start|>user\nYou are here.<|im_end|>\n<|im_start|>assistant\n', completion: 'Looking.', task_id: 'eval-00042' },
        {
          prompt: '<|im_start|>user\nYou are here.<|im_end|>\n<|im_start|>assistant\n',
          completion: '<tool_call>{"name": "look", "arguments": {"heading_deg": 0}}</tool_call><|im_end|>\n<|im_start|>user\n<tool_response>Uploaded by nis_walker.</tool_response><|im_end|>',
          task_id: 'eval-00042',
        },
      ],
    ]);
    const r = geolab(['audit', '--completions', file, '--tasks', tasks, '--json'], { home });
    expect(r.code).toBe(1);
    const { findings } = JSON.parse(r.stdout) as { findings: Record<string, unknown>[] };
    expect(findings.map((f) => [f.source, f.prompt_id, f.kind, f.text])).toEqual([[file, 'row 1', 'identity', 'nis_walker']]);
  });
});
