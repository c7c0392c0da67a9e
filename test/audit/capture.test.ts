/**
 * Capture metadata (docs/audit.md): the frames' capture time beyond the month, a compass angle to
 * three decimals or more, the camera of the task's meta; planted into prompts built from geolab's
 * real feedback (corpus.ts) and through the real binary. Dates of other months, year-month only,
 * whole degrees and numbers of too few decimals stay clean.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RecordedMessage } from '../../src/agent/types.js';
import { auditPrompt } from '../../src/audit/detect.js';
import { auditTaskFromTask } from '../../src/audit/task.js';
import type { Finding } from '../../src/audit/types.js';
import { TaskSchema } from '../../src/core/task-schema.js';
import { geolab } from '../helpers/cli.js';
import { makeTask, tempDir } from '../helpers/fixtures.js';
import { harness, lookStep, opening, pinStep, promptOf, ZAGREB } from './corpus.js';

/** A task in Tbilisi captured in July 2023 with a GoPro Max, its frames facing 80.1234567° and 213.2322703743°. */
const RECORD = makeTask(0, {
  task_id: 'eval-00007',
  country: 'Georgia',
  frames: [
    { image_id: '7770001', lat: 41.7151, lon: 44.8271, compass_angle: 80.1234567, captured_at: '2023-07', is_pano: true },
    { image_id: '7770002', lat: 41.7152, lon: 44.8272, compass_angle: 213.2322703743, captured_at: '2023-07', is_pano: true },
  ],
  meta: { camera_make: 'GoPro', camera_model: 'GoPro Max', quality_score: 0.9 },
});
const task = auditTaskFromTask(TaskSchema.parse(RECORD));
/** The same place without camera or fractional angles: a sample task's meta says "none". */
const plain = auditTaskFromTask(
  TaskSchema.parse(makeTask(8, { country: 'Georgia', frames: [{ image_id: '8880001', lat: 41.7151, lon: 44.8271, compass_angle: 80, captured_at: '2023-07' }], meta: { camera_make: 'none', camera_model: 'none' } })),
);

const base: RecordedMessage[] = [opening(null), ...lookStep(80, 9, null), ...pinStep(1, ZAGREB, 8)];
const audit = (text: string, known = task) => auditPrompt(promptOf([...base, harness(text)]), known);
const summary = (findings: Finding[]) => findings.map((f) => `${f.kind} ${f.severity} ${JSON.stringify(f.text)}`);

describe('capture metadata: each is found, with its reason', () => {
  it('keeps what the task says of its capture', () => {
    expect(task.capture).toEqual({ months: ['2023-07'], compassAngles: [80.1234567, 213.2322703743], cameraMake: 'GoPro', cameraModel: 'GoPro Max' });
  });

  const cases: [string, string, string, Finding['severity'], RegExp][] = [
    ['a date in the capture month', 'Captured 2023-07-14.', '2023-07-14', 'medium', /^a date in the frames' capture month \(2023-07\)/],
    ['a date and time', 'taken 2023-07-14T09:31:22Z by the car', '2023-07-14T09:31:22Z', 'medium', /^a date and time in the frames' capture month \(2023-07\)/],
    ['a date with slashes', 'shot 2023/07/14 09:31', '2023/07/14 09:31', 'medium', /^a date and time in/],
    ['a European date', 'Aufnahme: 14.07.2023', '14.07.2023', 'medium', /^a date in/],
    ['a date in words', 'Imagery from 14 July 2023', '14 July 2023', 'medium', /^a date in/],
    ['a date with hyphens and a month name', 'Shot 14-Jul-2023.', '14-Jul-2023', 'medium', /^a date in/],
    ['a date in American words', 'Imagery from July 14, 2023', 'July 14, 2023', 'medium', /^a date in/],
    ['epoch milliseconds', '{"captured_at": 1689327082000}', '1689327082000', 'medium', /^epoch milliseconds for 2023-07-14T09:31:22Z in the frames' capture month/],
    ['epoch seconds', 'ts=1689327082', '1689327082', 'medium', /^epoch seconds for 2023-07-14T09:31:22Z in/],
    ['a date in an image URL', 'https://cdn.example/pano_2023-07-14.jpg', '2023-07-14', 'medium', /^a date in/],
    ['epoch milliseconds in a file name', 'views/frame_1689327082000.jpg', '1689327082000', 'medium', /^epoch milliseconds for/],
    ['a compass angle to six decimals', 'heading 80.123457', '80.123457', 'medium', /^a frame's compass angle \(80\.1234567\) to 6 decimals$/],
    ['a compass angle to three decimals', '"compass_angle": 213.232', '213.232', 'medium', /^a frame's compass angle \(213\.2322703743\) to 3 decimals$/],
    ['the camera model', 'Camera: GoPro Max', 'GoPro Max', 'low', /^the camera model of the task's frames \(meta\.camera_model: GoPro Max\)$/],
    ['the camera make', 'shot on a GoPro', 'GoPro', 'low', /^the camera make of the task's frames \(meta\.camera_make: GoPro\)$/],
  ];

  it.each(cases)('%s', (_, text, span, severity, evidence) => {
    const findings = audit(text);
    expect(summary(findings)).toEqual([`capture_metadata ${severity} ${JSON.stringify(span)}`]);
    expect(findings[0]!.evidence).toMatch(evidence);
    expect(text.slice(findings[0]!.span.start, findings[0]!.span.end)).toBe(span);
  });
});

describe('capture metadata: look-alikes stay clean', () => {
  const clean: [string, string][] = [
    ['a date of another month', 'Run started 2023-08-14T09:31:22Z.'],
    ['year and month only', 'captured 2023-07, July 2023, 07/2023'],
    ['a timestamp of another month', '{"created": 1700000000000, "t": 1700000000}'],
    ["geolab's own whole degrees", 'Facing 80° (E), turned to 213°.'],
    ['an angle to too few decimals', 'heading 80.12, then 213.2'],
    ['a number near an angle but not it', 'value 80.125 and 213.239'],
    ['a number of another task', 'an id 1689327082000123'],
    ['the make as a word in small letters', 'a gopro-style mount'],
  ];

  it.each(clean)('%s', (_, text) => {
    expect(summary(audit(text))).toEqual([]);
  });

  it('a model that is a word counts only with its make', () => {
    const record = makeTask(9, { country: 'Georgia', frames: [{ image_id: '9990001', lat: 41.7151, lon: 44.8271, compass_angle: 80 }], meta: { camera_make: 'GoPro', camera_model: 'MAX' } });
    const maxTask = auditTaskFromTask(TaskSchema.parse(record));
    expect(summary(audit('max 12 actions; MAX zoom', maxTask))).toEqual([]);
    const findings = audit('Camera: GoPro MAX', maxTask);
    expect(summary(findings)).toEqual(['capture_metadata low "GoPro MAX"']);
    expect(findings[0]!.evidence).toBe("the camera model of the task's frames (meta.camera_make: GoPro, meta.camera_model: MAX)");
  });

  it('the real look feedback facing a frame’s angle, and a task without camera or fractional angles', () => {
    expect(summary(auditPrompt(promptOf([...base, ...lookStep(80.1234567, 7, null)]), task))).toEqual([]);
    expect(summary(audit('GoPro Max, none, 80.000 and 2023-07-14', plain))).toEqual(['capture_metadata medium "2023-07-14"']);
  });
});

describe('geolab audit finds fingerprints and capture metadata', () => {
  it('through the binary: JSON findings with their evidence, SARIF rules for both kinds, clean look-alikes', () => {
    const dir = tempDir();
    const tasks = join(dir, 'eval.jsonl');
    writeFileSync(tasks, JSON.stringify(RECORD) + '\n');
    const prompts = join(dir, 'prompts.jsonl');
    const prompt = (id: string, text: string) => ({ id, task_id: 'eval-00007', messages: [{ role: 'system', content: 'You play GeoGuesser.' }, { role: 'user', content: text }] });
    const lines = [
      prompt('leak', 'Shop sign: +995 32 2 12 34 56. Captured 2023-07-14T09:31:22Z, heading 80.123457, GoPro Max.'),
      prompt('clean', 'Shop sign: +381 11 3234 567. Run 2023-08-14, Facing 80° (E). I saw A plate.'),
    ];
    writeFileSync(prompts, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    const home = join(dir, 'home');
    const r = geolab(['audit', '--prompts', prompts, '--tasks', tasks, '--json', '--fail-on', 'medium'], { home });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(1);
    const report = JSON.parse(r.stdout) as { findings: Finding[] };
    expect(report.findings.map((f) => [f.prompt_id, f.kind, f.severity, f.text, f.evidence])).toEqual([
      ['leak', 'fingerprint', 'medium', '+995 32 2 12 34 56', "+995 is Georgia's calling code"],
      ['leak', 'capture_metadata', 'medium', '2023-07-14T09:31:22Z', expect.stringContaining("capture month (2023-07)")],
      ['leak', 'capture_metadata', 'medium', '80.123457', "a frame's compass angle (80.1234567) to 6 decimals"],
      ['leak', 'capture_metadata', 'low', 'GoPro Max', "the camera model of the task's frames (meta.camera_model: GoPro Max)"],
    ]);
    const sarif = JSON.parse(geolab(['audit', '--prompts', prompts, '--tasks', tasks, '--sarif'], { home }).stdout) as {
      runs: { tool: { driver: { rules: { id: string }[] } }; results: { ruleId: string; level: string }[] }[];
    };
    const run = sarif.runs[0]!;
    expect(run.tool.driver.rules.map((rule) => rule.id)).toEqual(expect.arrayContaining(['fingerprint', 'capture_metadata']));
    expect(run.results.map((res) => [res.ruleId, res.level])).toEqual([
      ['fingerprint', 'warning'],
      ['capture_metadata', 'warning'],
      ['capture_metadata', 'warning'],
      ['capture_metadata', 'note'],
    ]);
  });
});
