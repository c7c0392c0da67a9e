import { beforeAll, describe, expect, it } from 'vitest';
import { dataUrl } from '../../src/agent/images.js';
import { scanRequest } from '../../src/agent/leak-guard.js';
import type { RecordedMessage } from '../../src/agent/types.js';
import { auditPrompt, auditPromptAsync, findingId } from '../../src/audit/detect.js';
import { imageOfDataUrl } from '../../src/audit/images.js';
import { auditTaskFromSpec } from '../../src/audit/task.js';
import type { AuditTask, Finding } from '../../src/audit/types.js';
import { destinationPoint } from '../../src/core/geodesy.js';
import { openingPrompt, toolDescriptions } from '../../src/env/feedback.js';
import { openingMessage } from '../../src/agent/protocols/tools.js';
import {
  auditTask,
  BELGRADE,
  BULGARIA_NEAR_NIS,
  harness,
  imagePart,
  lookStep,
  opening,
  pinStep,
  promptOf,
  task,
  viewJpeg,
  ZAGREB,
} from './corpus.js';

const BERLIN = { lat: 52.52, lon: 13.405 };
const TRUTH = { lat: task.frames[0]!.lat, lon: task.frames[0]!.lon };

let clean: Buffer;
let images: Map<string, Buffer>;
/** A clean tools-protocol conversation: the opening view, a look, a pin in Berlin. */
let base: RecordedMessage[];

beforeAll(async () => {
  clean = await viewJpeg();
  images = new Map([['c'.repeat(64), clean]]);
  base = [opening(imagePart('c'.repeat(64))), ...lookStep(90, 9, imagePart('c'.repeat(64))), ...pinStep(1, BERLIN, 8)];
});

const audit = (messages: RecordedMessage[], options: Parameters<typeof promptOf>[1] = {}, known: AuditTask | null = auditTask) =>
  auditPrompt(promptOf(messages, { images, ...options }), known);
const summary = (findings: Finding[]) => findings.map((f) => `${f.kind} ${f.severity} ${JSON.stringify(f.text)}`);

describe('audit core: every planted leak is found', () => {
  const near = destinationPoint(TRUTH.lat, TRUTH.lon, 200, 18);
  const cases: [string, string, Finding['kind'], string][] = [
    ['a username inside a URL', 'Photo: https://www.mapillary.com/app/user/balkan.roamer?tab=images', 'identity', 'balkan.roamer'],
    ['the task_id in a file name', 'Loaded tasks/EVAL-00417.json', 'identity', 'EVAL-00417'],
    ['an image id in an image path', 'file:///cache/panos/518273645019284.orig.jpg', 'identity', '518273645019284'],
    ['a 12-hex prefix of a checksum', 'served 9c1f0e2d3b4a.jpg', 'identity', '9c1f0e2d3b4a'],
    ['task_index as a key', '{"split": "eval", "task_index": 417}', 'identity', 'task_index": 417'],
    ['the sequence id', 'sequence Qm3xT8vLp2RzWc9Hy1NbKa', 'identity', 'Qm3xT8vLp2RzWc9Hy1NbKa'],
    ['the contributor id', 'uploaded by 102938475610', 'identity', '102938475610'],
    ['a DMS coordinate with symbols', `Camera at 43°19'15"N 21°53'45"E.`, 'coordinates', `43°19'15"N 21°53'45"E`],
    ['a DMS coordinate with letters', 'at 43d19m15s N, 21d53m45s E', 'coordinates', '43d19m15s N, 21d53m45s E'],
    ['a decimal pair 18 km off', `near ${near.lat.toFixed(3)}; ${near.lon.toFixed(3)}`, 'coordinates', `${near.lat.toFixed(3)}; ${near.lon.toFixed(3)}`],
    ['lat,lon in a map URL', 'https://www.google.com/maps/@43.3209,21.8958,15z', 'coordinates', '43.3209,21.8958'],
    ['labelled lat/lon', 'latitude=43.31&heading=80&longitude=21.88', 'coordinates', 'latitude=43.31&heading=80&longitude=21.88'],
    ['lon,lat in GeoJSON order', '"coordinates": [21.8958, 43.3209]', 'coordinates', '21.8958, 43.3209'],
    ['an alpha-3 code', 'Plates read SRB.', 'country', 'SRB'],
    ['an alpha-2 code in a label', '{"cc": "RS", "zoom": 3}', 'country', 'RS'],
    ['an alpha-2 code in brackets', 'Plates (RS) seen', 'country', 'RS'],
    ['an alpha-2 code in small letters in a label', '{"country_code": "rs"}', 'country', 'rs'],
    ['an alpha-3 code in small letters after a label', 'iso3 = srb', 'country', 'srb'],
    ['a demonym', 'Serbian Cyrillic on the signs', 'country', 'Serbian'],
    ['the name', 'Welcome to Serbia', 'country', 'Serbia'],
    ['a native name', 'Republika Srbija', 'country', 'Srbija'],
    ['the subregion', 'somewhere in Southern Europe', 'subregion', 'Southern Europe'],
    ['a city in its native spelling', 'Dobrodošli u Niš', 'city', 'Niš'],
    ['a city in ASCII', 'Bus to Leskovac', 'city', 'Leskovac'],
  ];

  it.each(cases)('%s', (_, text, kind, span) => {
    const findings = audit([...base, harness(text)]);
    expect(summary(findings)).toEqual([expect.stringMatching(new RegExp(`^${kind} (high|medium|low) `))]);
    expect(findings[0]).toMatchObject({ kind, text: span, message: base.length, text_index: 0 });
    const f = findings[0] as Finding;
    expect(text.slice(f.span.start, f.span.end)).toBe(span);
    expect(f.context).toContain(span);
  });

  it('says why: distance, country, kind of alias', () => {
    const findings = audit([...base, harness(`${near.lat.toFixed(4)}, ${near.lon.toFixed(4)} SRB Leskovac`)]);
    expect(findings.map((f) => f.evidence)).toEqual([
      expect.stringMatching(/ is 18\.\d km from the truth$/),
      'the true country (Republic of Serbia) by its alpha-3 code; no agent point lies in it',
      expect.stringMatching(/^Leskovac, a place 3\d\.\d km from the truth; no agent point explains it$/),
    ]);
    expect(findings.map((f) => f.severity)).toEqual(['high', 'medium', 'medium']);
  });

  it('finds GPS, maker and contributor tags in a JPEG data URL, reading only its header', async () => {
    const exif = {
      IFD0: { Make: 'Canon', Model: 'EOS R6', Artist: 'balkan.roamer' },
      IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '43/1 19/1 15/1', GPSLongitudeRef: 'E', GPSLongitude: '21/1 53/1 45/1' },
    };
    const jpeg = await viewJpeg(exif);
    const url = dataUrl({ bytes: jpeg, mime: 'image/jpeg' });
    const image = imageOfDataUrl(url);
    expect(image.bytes!.length).toBeLessThan(jpeg.length);
    expect([...image.bytes!.subarray(-2)]).toEqual([0xff, 0xda]);
    const prompt = promptOf(base, { images });
    prompt.messages.push({ author: 'harness', role: 'user', texts: ['The view:', url], images: [image] });
    const findings = await auditPromptAsync(prompt, auditTask);
    expect(summary(findings)).toEqual([
      expect.stringMatching(/^image_metadata high "data:image\/jpeg;base64,.*: GPS 43\.32083, 21\.89583"$/),
      expect.stringMatching(/^image_metadata low ".*Make Canon, Model EOS R6"$/),
      expect.stringMatching(/^identity high ".*Artist balkan\.roamer"$/),
    ]);
    expect(findings[0]!.evidence).toMatch(/carries GPS tags pointing to 43\.32083, 21\.89583 in Republic of Serbia, 0\.\d km from the truth \(within the 25 km radius\)$/);
    expect(findings[2]!.evidence).toBe('creator_username "balkan.roamer" in the image\'s Artist tag');
    // Without its tags read (the guard decides synchronously), the metadata is reported unread.
    prompt.messages.at(-1)!.images = [imageOfDataUrl(url)];
    expect(summary(auditPrompt(prompt, auditTask))).toEqual([expect.stringMatching(/^image_metadata high .*: EXIF \(APP1\)"$/)]);
  });

  it('reports an image it could not check, and a budget that contradicts the real one, as low', () => {
    const findings = audit([...base, { role: 'user', content: [{ type: 'text', text: 'The map:' }, imagePart('f'.repeat(64))] }], { turnsLeft: 7 });
    expect(summary(findings)).toEqual(['image_metadata low "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff: not checked"', 'budget low "8 tool calls left"']);
    expect(findings[1]).toMatchObject({ message: base.length - 1, evidence: 'says 8 turns (tool calls) left; 7 were left' });
    // The latest statement is what counts: the earlier "9 tool calls left" was true when written.
    expect(audit(base, { turnsLeft: 8 })).toEqual([]);
  });

  it('reports a prompt whose task is unknown instead of passing it', () => {
    expect(audit(base, {}, null)).toMatchObject([{ kind: 'unknown_task', severity: 'high', message: -1, evidence: 'no task found for task_id "eval-00417"' }]);
  });
});

describe('audit core: nothing on clean look-alikes', () => {
  it('passes the clean conversation and a clean JPEG data URL', async () => {
    const prompt = promptOf(base, { images, turnsLeft: 8 });
    const url = dataUrl({ bytes: clean, mime: 'image/jpeg' });
    prompt.messages.push({ author: 'harness', role: 'user', texts: ['The view:', url], images: [imageOfDataUrl(url)] });
    expect(await auditPromptAsync(prompt, auditTask)).toEqual([]);
  });

  it('passes other countries, and codes that are not in a code context', () => {
    const text = 'Croatian plates (HR), HRV, Hrvatska; Bulgarian Cyrillic near Sofia; Papua New Guinea; South Sudanese; an RS-232 port; RS 10 km; srb and rs as words.';
    expect(summary(audit([...base, harness(text)]))).toEqual([]);
  });

  it('passes pin feedback naming the true country for a pin the agent placed there', () => {
    expect(summary(audit([...base, ...pinStep(2, BELGRADE, 7)]))).toEqual([]);
    // The pin from an earlier turn, named again by a later message.
    const later = harness('Pin 2 at 44.8176, 20.4569 - Republic of Serbia (Southern Europe), ~1.6 km NW of Belgrade.');
    expect(summary(audit([...base, later], { agentPoints: [BELGRADE] }))).toEqual([]);
    // Without the agent's point, the same sentence names the country and the subregion.
    expect(summary(audit([...base, later]))).toEqual(['country medium "Republic of Serbia"', 'subregion low "Southern Europe"']);
  });

  it("passes a pin at the truth: its coordinates, country and city are the agent's own", () => {
    expect(summary(audit([...base, ...pinStep(2, { lat: 43.33, lon: 21.9 }, 7)]))).toEqual([]);
  });

  it('passes a town named as the nearest major city of a pin across the border', () => {
    const messages = [...base, ...pinStep(2, BULGARIA_NEAR_NIS, 7)];
    expect(JSON.stringify(messages.at(-1))).toContain('of Niš');
    expect(summary(audit(messages))).toEqual([]);
  });

  it("passes the model's own guesses and words", () => {
    const guess: RecordedMessage = {
      role: 'assistant',
      content: 'Serbian Cyrillic and SRB plates: Niš, Serbia (eval-00417?), 43.3209, 21.8958.',
      tool_calls: [{ id: 'g', type: 'function', function: { name: 'guess', arguments: '{"lat": 43.3209, "lon": 21.8958}' } }],
    };
    expect(audit([...base, guess])).toEqual([]);
    // Its point is its own when the harness echoes it within a kilometre, not further.
    expect(audit([...base, guess, harness('You guessed 43.3250, 21.8958.')])).toEqual([]);
    expect(summary(audit([...base, guess, harness('You guessed 43.3400, 21.8958.')]))).toEqual(['coordinates high "43.3400, 21.8958"']);
    // Another pin in Zagreb explains neither Serbia nor Niš (the truth's own town: high).
    expect(summary(audit([...base, ...pinStep(2, ZAGREB, 7), harness('Niš')]))).toEqual(['city high "Niš"']);
  });

  it("passes geolab's own prompt and tool texts for tasks anywhere, towns named like words included", () => {
    const texts = [
      openingPrompt(12, 3),
      ...Object.values(toolDescriptions(3)),
      JSON.stringify(openingMessage({ tools: 'all', maxTurns: 10, camera: { heading_deg: 0, fov_deg: 90, pitch_deg: 0 }, image: null })),
    ];
    const places = [
      [43.508, 16.44], // Split, Croatia
      [50.503, 13.636], // Most, Czechia
      [42.093, 19.1], // Bar, Montenegro
      [43.703, 7.266], // Nice, France
      [51.454, -0.978], // Reading, UK
      [30.694, -88.043], // Mobile, USA
      [44.138, 4.807], // Orange, France
      [35.68, 139.69],
      [-1.286, 36.817],
      [-12.046, -77.043],
      [64.147, -21.94],
      [-33.868, 151.209],
      [19.076, 72.878],
      [-23.55, -46.633],
      [61.218, -149.9],
    ] as const;
    for (const [lat, lon] of places) {
      const known: AuditTask = { truth: { lat, lon }, identity: [] };
      expect(summary(audit(texts.map(harness), {}, known)), `${lat}, ${lon}`).toEqual([]);
    }
  });
});

describe('audit core: one definition, stable ids', () => {
  it('gives the leak guard the same findings, budget warnings aside', async () => {
    const messages = [...base, harness('SRB near 43.33, 21.9 by balkan.roamer'), ...pinStep(2, ZAGREB, 7)];
    const audited = audit(messages, { turnsLeft: 3 });
    const guarded = await scanRequest({ messages, images: new Map([['c'.repeat(64), { bytes: clean, mime: 'image/jpeg' }]]), knowledge: auditTask, agentPoints: [] });
    expect(audited.map((f) => f.kind)).toContain('budget');
    expect(guarded.map((f) => f.text)).toEqual(audited.filter((f) => f.kind !== 'budget').map((f) => f.text));
    expect(guarded.map((f) => f.kind)).toEqual(['country', 'coordinates', 'identity']);
  });

  it('keeps ids across runs and tells different spans apart', () => {
    const messages = [...base, harness('SRB and Serbia')];
    const first = audit(messages, { id: 'ep1#3' });
    const again = audit(messages, { id: 'ep1#3' });
    expect(first.map((f) => f.id)).toEqual(again.map((f) => f.id));
    expect(first[0]!.id).toMatch(/^[0-9a-f]{16}$/);
    expect(new Set(first.map((f) => f.id)).size).toBe(2);
    expect(first[0]!.id).toBe(findingId('country', 'corpus', 'ep1#3', 'SRB'));
    expect(audit(messages, { id: 'ep1#4' })[0]!.id).not.toBe(first[0]!.id);
  });

  it('checks identity only when the truth is not known (a remote task)', () => {
    const remote = auditTaskFromSpec({ task_id: 'eval-00417', sequence_id: 'Qm3xT8vLp2RzWc9Hy1NbKa' });
    expect(summary(audit([...base, harness('eval-00417 in Serbia at 43.3209, 21.8958')], {}, remote))).toEqual(['identity high "eval-00417"']);
  });
});
