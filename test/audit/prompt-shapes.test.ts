/**
 * The real prompt shapes: the public harness's one-message prompts with their transcript lines, geolab's
 * JSON protocol transcript, and tool results answering calls. The agent's own points come from the
 * transcript; a place is explained only inside the feedback that answers an action of the agent's at
 * that place; an instruction line shared by the prompts of many tasks is one template finding.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { auditPrompt } from '../../src/audit/detect.js';
import { auditMessages } from '../../src/audit/sources/messages.js';
import { transcriptActions } from '../../src/audit/transcript.js';
import type { AuditPrompt, Explanation, Finding } from '../../src/audit/types.js';
import type { RecordedMessage } from '../../src/agent/types.js';
import { geolab } from '../helpers/cli.js';
import { completedRecord } from '../helpers/episodes.js';
import { makeTask, tempDir } from '../helpers/fixtures.js';
import { auditTask, BELGRADE, pinStep, task, ZAGREB } from './corpus.js';

/** Our own instruction text, shaped like the harness's: one JSON action per turn, an example region. */
function instruction(example = 'Pin a rough candidate, read back its country, then refine it: that is how "somewhere in northern Italy" becomes a coordinate.'): string {
  return [
    'You stand somewhere on Earth in a street-level photo. Reply with one JSON object per turn.',
    '{"action": "pin", "lat": 12.5, "lon": 34.5, "span_deg": 2} tests a candidate on the map.',
    example,
    'You have 9 turns left. Available this episode: look, zoom, move, pin, guess',
  ].join('\n');
}

/** The harness's one user message: instruction, "What has happened so far", the camera line. */
function harnessPrompt(lines: string[], head = instruction()): string {
  return `${head}\n\nWhat has happened so far:\n${lines.join('\n')}\n\nYou are facing 90 degrees with a 90 degree field of view. 20 actions remain.`;
}

function promptOf(messages: RecordedMessage[]): AuditPrompt {
  return { source: 'shapes', promptId: 'p', task: { taskId: task.task_id }, messages: auditMessages(messages, 'messages', { files: null }), agentPoints: [] };
}

function audit(messages: RecordedMessage[]): { findings: string[]; notes: Explanation[] } {
  const notes: Explanation[] = [];
  const findings = auditPrompt(promptOf(messages), auditTask, { onExplained: (e) => notes.push(e) });
  return { findings: findings.map((f: Finding) => `${f.kind} ${JSON.stringify(f.text)}`), notes };
}

const LOOK = "turn 1: {'action': 'look', 'heading_deg': 90, 'fov_deg': 90} -> Facing 90 degrees (E), field of view 90.";
/** A pin in Belgrade whose feedback names the country and the nearest city, without echoing the point. */
const PIN_BELGRADE = "turn 2: {'action': 'pin', 'lat': 44.8176, 'lon': 20.4569, 'span_deg': 2} -> Republic of Serbia, nearest city Belgrade.";
/** A pin at the truth (Niš), JSON syntax: its coordinates and its town are the agent's own. */
const PIN_AT_TRUTH = 'turn 3: {"action": "pin", "lat": 43.33, "lon": 21.9} -> You pinned 43.33, 21.9: Serbia, near Niš.';

describe('the public harness prompt shape', () => {
  it('reads the actions of transcript lines, their points and where their feedback stands', () => {
    const text = harnessPrompt([LOOK, PIN_BELGRADE, "turn 4: invalid action {'action': 'measure', 'lat': 1, 'lon': 2} (measure needs lat_a)"]);
    const actions = transcriptActions(text);
    expect(actions.map((a) => [a.name, a.points, a.feedback && text.slice(a.feedback.start, a.feedback.end)])).toEqual([
      ['look', [], 'Facing 90 degrees (E), field of view 90.'],
      ['pin', [BELGRADE], 'Republic of Serbia, nearest city Belgrade.'],
      ['measure', [{ lat: 1, lon: 2 }], undefined],
    ]);
    // geolab's own JSON protocol writes the action as a call, one bulleted line each.
    const geolabText = `Transcript (last 8 turns at most):\n- Turn 2: pin(lat=44.8176, lon=20.4569, span_deg=2) -> Pin 1 placed - Republic of Serbia.\nThe image is the map returned by turn 2.`;
    const [pin] = transcriptActions(geolabText);
    expect(pin?.points).toEqual([BELGRADE]);
    expect(geolabText.slice(pin!.feedback!.start, pin!.feedback!.end)).toBe('Pin 1 placed - Republic of Serbia.');
  });

  it("is clean when the transcript shows the agent's own pins in the true country, in dict or JSON syntax", () => {
    const { findings, notes } = audit([{ role: 'user', content: harnessPrompt([LOOK, PIN_BELGRADE, PIN_AT_TRUTH]) }]);
    expect(findings).toEqual([]);
    const said = notes.map((n) => `${n.kind} ${n.text}`);
    expect(said).toEqual(expect.arrayContaining(['country Republic of Serbia', 'country Serbia', 'coordinates 43.33, 21.9', 'city Niš']));
  });

  it('is clean in geolab JSON protocol transcript lines too', () => {
    const text = 'Transcript (last 8 turns at most):\n- Turn 1: pin(lat=44.8176, lon=20.4569, span_deg=7) -> Pin 1 placed - Republic of Serbia (Southern Europe).\nReply with brief reasoning, then one JSON action last.';
    expect(audit([{ role: 'user', content: text }]).findings).toEqual([]);
  });

  it('finds the country in the instruction text, and in a system prompt, though the agent pinned there', () => {
    const told = instruction('The photos of this set were all taken in Serbia.');
    expect(audit([{ role: 'user', content: harnessPrompt([LOOK, PIN_BELGRADE], told) }]).findings).toEqual(['country "Serbia"']);
    const system: RecordedMessage = { role: 'system', content: 'Hint: the location is in Serbia.' };
    expect(audit([system, { role: 'user', content: harnessPrompt([PIN_BELGRADE]) }]).findings).toEqual(['country "Serbia"']);
    // The tools protocol: a pin in Serbia answered by its tool result, and the same country in the system prompt.
    expect(audit([system, ...pinStep(1, BELGRADE, 8)]).findings).toEqual(['country "Serbia"']);
  });

  it("finds a country in feedback that answers no action of the agent's there", () => {
    // A pin in Zagreb whose feedback names Serbia; a look whose feedback names it.
    const zagreb = `turn 2: {'action': 'pin', 'lat': ${ZAGREB.lat}, 'lon': ${ZAGREB.lon}} -> Croatia. The photo is from Serbia.`;
    expect(audit([{ role: 'user', content: harnessPrompt([PIN_BELGRADE, zagreb]) }]).findings).toEqual(['country "Serbia"']);
    const look = "turn 3: {'action': 'look', 'heading_deg': 180} -> Facing south; the sign reads Serbia.";
    expect(audit([{ role: 'user', content: harnessPrompt([PIN_BELGRADE, look]) }]).findings).toEqual(['country "Serbia"']);
    // A tool result that answers a look: not a pin's feedback, whatever the agent pinned before.
    const lookCall = { id: 'l1', type: 'function', function: { name: 'look', arguments: '{"heading_deg": 90}' } };
    const messages: RecordedMessage[] = [
      ...pinStep(1, BELGRADE, 8),
      { role: 'assistant', content: '', tool_calls: [lookCall] },
      { role: 'tool', tool_call_id: 'l1', name: 'look', content: 'Facing 90°. Welcome to Serbia.' },
    ];
    expect(audit(messages).findings).toEqual(['country "Serbia"']);
  });
});

describe("the harness's episode files, through the binary", () => {
  /** An episode whose turns carry only the harness's prompt text (no recorded messages). */
  function harnessEpisode(id: string, prompts: string[]) {
    const record = completedRecord({ id, split: 'eval', index: 0 });
    record.task.task_id = task.task_id;
    for (const turn of record.turns ?? []) {
      delete (turn as Record<string, unknown>).messages;
      if (turn.turn > 0) turn.prompt = prompts[(turn.turn - 1) % prompts.length] as string;
    }
    return record;
  }

  it("is clean on the agent's own pin in the true country, and finds the country the instruction names", () => {
    const dir = tempDir();
    const tasks = join(dir, 'eval.jsonl');
    writeFileSync(tasks, JSON.stringify({ ...task, task_index: 0 }) + '\n');
    const episodes = join(dir, 'episodes.jsonl');
    const clean = harnessEpisode('h-clean', [harnessPrompt([LOOK]), harnessPrompt([LOOK, PIN_BELGRADE]), harnessPrompt([LOOK, PIN_BELGRADE, PIN_AT_TRUTH])]);
    const told = harnessEpisode('h-told', [harnessPrompt([LOOK, PIN_BELGRADE], instruction('The photos of this set were all taken in Serbia.'))]);
    writeFileSync(episodes, [clean, told].map((r) => JSON.stringify(r)).join('\n') + '\n');
    const r = geolab(['audit', '--episodes', episodes, '--tasks', tasks, '--json'], { home: join(dir, 'home') });
    expect(r.stderr).toBe('');
    const report = JSON.parse(r.stdout) as { summary: { explained: { mentions: number } }; findings: Finding[] };
    // The instruction's Serbia once (later turns re-send it), no place of the clean episode (the fixed
    // texts' budgets, which contradict the record's, are another matter).
    const places = report.findings.filter((f) => f.kind !== 'budget');
    expect(places.map((f) => [f.episode_id, f.kind, f.text])).toEqual([['h-told', 'country', 'Serbia']]);
    expect(report.summary.explained.mentions).toBeGreaterThan(0);
  });
});

describe('instruction templates', () => {
  /** Tasks in Germany (4), Serbia and Japan; the instruction names "southern Germany" as its example. */
  const GERMANY = [
    [48.137, 11.575],
    [48.78, 9.18],
    [49.45, 11.08],
    [47.99, 7.85],
  ] as const;
  const frame = (i: number, lat: number, lon: number) => ({ image_id: `90000${i}`, lat, lon, compass_angle: 0, captured_at: '2023-06', is_pano: true });

  function setup(example: string, ids: string[]) {
    const dir = tempDir();
    const tasks = join(dir, 'eval.jsonl');
    const all = [
      ...GERMANY.map(([lat, lon], i) => makeTask(i, { task_id: `de-${i}`, country: 'Germany', frames: [frame(i, lat, lon)] })),
      makeTask(4, { task_id: 'rs-4', country: 'Republic of Serbia', frames: [frame(4, 43.3209, 21.8958)] }),
      makeTask(5, { task_id: 'jp-5', country: 'Japan', frames: [frame(5, 35.6895, 139.6917)] }),
    ];
    writeFileSync(tasks, all.map((t) => JSON.stringify(t)).join('\n') + '\n');
    const prompts = join(dir, 'prompts.jsonl');
    const head = instruction(example);
    const lines = ids.map((id, i) => ({ id: `p${i}`, task_id: id, messages: [{ role: 'user', content: harnessPrompt([LOOK], head) }] }));
    writeFileSync(prompts, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    return { dir, tasks, prompts };
  }

  const EXAMPLE = 'Iterating is how "somewhere in southern Germany" becomes a real coordinate.';

  function audit(example: string, ids: string[], args: string[] = []) {
    const { dir, tasks, prompts } = setup(example, ids);
    const r = geolab(['audit', '--prompts', prompts, '--tasks', tasks, '--json', ...args], { home: join(dir, 'home') });
    expect(r.stderr).toBe('');
    return { code: r.code, report: JSON.parse(r.stdout) as { summary: { by_kind: Record<string, number> }; findings: Finding[] }, dir, tasks, prompts };
  }

  it('reports the same instruction line across many tasks once, as a low template finding', () => {
    const { code, report, dir, tasks, prompts } = audit(EXAMPLE, ['de-0', 'de-1', 'rs-4', 'de-2', 'de-3'], ['--fail-on', 'low']);
    expect(report.findings.map((f) => [f.kind, f.severity, f.evidence, f.text])).toEqual([['template', 'low', 'in the prompts of 5 different tasks; names Germany', EXAMPLE]]);
    expect(report.summary.by_kind).toEqual({ template: 1 });
    // It is where the line first stood, and still a finding the gate counts at its severity.
    expect(report.findings[0]).toMatchObject({ prompt_id: 'p0', message: 0 });
    expect(code).toBe(1);
    const passed = geolab(['audit', '--prompts', prompts, '--tasks', tasks], { home: join(dir, 'home') });
    expect(passed.code).toBe(0);
    expect(passed.stdout).toContain('LOW template');
  });

  it("is a template on the one task in the country its example names, among tasks elsewhere", () => {
    const { report } = audit(EXAMPLE, ['rs-4', 'de-0', 'jp-5']);
    expect(report.findings.map((f) => [f.kind, f.evidence])).toEqual([['template', 'in the prompts of 3 different tasks; names Germany']]);
  });

  it('keeps per-task findings for a line in the prompts of fewer tasks, or only of tasks it names the place of', () => {
    expect(audit(EXAMPLE, ['de-0', 'rs-4']).report.findings.map((f) => [f.kind, f.prompt_id, f.text])).toEqual([['country', 'p0', 'Germany']]);
    // A leak written into the prompts of four tasks in Germany, and nowhere else, is a leak in each.
    const leak = 'The photos of this set were all taken in Germany.';
    const { report } = audit(leak, ['de-0', 'de-1', 'de-2', 'de-3']);
    expect(report.findings.map((f) => [f.kind, f.prompt_id, f.text])).toEqual([
      ['country', 'p0', 'Germany'],
      ['country', 'p1', 'Germany'],
      ['country', 'p2', 'Germany'],
      ['country', 'p3', 'Germany'],
    ]);
  });
});
