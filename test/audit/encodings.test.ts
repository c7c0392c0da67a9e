/**
 * Text in the encodings of URLs and HTML: percent-encoding, URL-encoded JSON and character
 * references are decoded before matching, and a finding's span points at the text as written.
 * Also coordinate pairs under a label naming both axes (`lon/lat: x/y`), read in the label's order.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { RecordedMessage } from '../../src/agent/types.js';
import { findCoordinates } from '../../src/audit/coordinates.js';
import { decodeText } from '../../src/audit/decode.js';
import { auditPromptAsync } from '../../src/audit/detect.js';
import type { Explanation, Finding } from '../../src/audit/types.js';
import { geolab } from '../helpers/cli.js';
import { tempDir } from '../helpers/fixtures.js';
import { auditTask, harness, imagePart, lookStep, opening, pinStep, promptOf, task, viewJpeg } from './corpus.js';

const TRUTH = { lat: task.frames[0]!.lat, lon: task.frames[0]!.lon };
const BERLIN = { lat: 52.52, lon: 13.405 };

let images: Map<string, Buffer>;
/** A clean tools-protocol conversation: the opening view, a look, a pin in Berlin. */
let base: RecordedMessage[];

beforeAll(async () => {
  images = new Map([['c'.repeat(64), await viewJpeg()]]);
  base = [opening(imagePart('c'.repeat(64))), ...lookStep(90, 9, imagePart('c'.repeat(64))), ...pinStep(1, BERLIN, 8)];
});

const audit = async (text: string, agentPoints: { lat: number; lon: number }[] = [], onExplained?: (e: Explanation) => void) =>
  auditPromptAsync(promptOf([...base, harness(text)], { images, agentPoints }), auditTask, onExplained ? { onExplained } : {});

describe('decodeText', () => {
  it('decodes percent-encoded UTF-8 and character references, keeping where each character came from', () => {
    const text = 'wiki/Ni%C5%A1 &#1053;&#1080;&#1096; &#x160;abac caf&eacute; Ni&scaron; &amp; &Zdot;';
    const decoded = decodeText(text)!;
    expect(decoded.text).toBe('wiki/Niš Ниш Šabac café Niš & Ż');
    // Every decoded span maps to the text as written.
    const at = (word: string) => {
      const start = decoded.text.indexOf(word);
      return text.slice(decoded.origin[start], decoded.origin[start + word.length]);
    };
    expect(at('Niš')).toBe('Ni%C5%A1');
    expect(at('Ниш')).toBe('&#1053;&#1080;&#1096;');
    expect(at('Šabac')).toBe('&#x160;abac');
    expect(at('café')).toBe('caf&eacute;');
    expect(at('Ż')).toBe('&Zdot;');
    expect(decoded.origin.length).toBe(decoded.text.length + 1);
    expect(decoded.origin[decoded.text.length]).toBe(text.length);
  });

  it('decodes URL-encoded JSON and an astral character', () => {
    expect(decodeText('q=%7B%22lat%22%3A43.32%2C%22lon%22%3A21.89%7D')!.text).toBe('q={"lat":43.32,"lon":21.89}');
    const smile = decodeText('&#x1F600; %F0%9F%98%80')!;
    expect(smile.text).toBe('😀 😀');
    expect([...smile.origin]).toEqual([0, 0, 9, 10, 10, 22]);
  });

  it('decodes a text encoded twice, mapping back to the text as written', () => {
    const text = 'https://example.org/r?next=%2Fmap%3Fcenter%3D43.32%252C%252021.89';
    const decoded = decodeText(text)!;
    expect(decoded.text).toBe('https://example.org/r?next=/map?center=43.32, 21.89');
    const start = decoded.text.indexOf('43.32');
    expect(text.slice(decoded.origin[start], decoded.origin[start + '43.32, 21.89'.length])).toBe('43.32%252C%252021.89');
    expect(decodeText('&amp;eacute; 100%2525')!.text).toBe('é 100%');
  });

  it('keeps what does not decode as written, and answers null for text with nothing encoded', () => {
    // Not UTF-8, an unknown name, a letter with a mark Unicode has no single character for, a code point out of range.
    expect(decodeText('%FF%C5 &bogus; &constructor; &xacute; &#1114112; ok %41')!.text).toBe('%FF%C5 &bogus; &constructor; &xacute; &#1114112; ok A');
    for (const text of ['50% of the view', 'Facing 90°, 11 tool calls left', 'AT&T; R&D', '100%', '&#;']) expect(decodeText(text), text).toBeNull();
  });
});

describe('encodings: every encoded leak is found, its span on the text as written', () => {
  const cases: [string, string, Finding['kind'], string][] = [
    ['a Wikipedia link to the town', 'See https://en.wikipedia.org/wiki/Ni%C5%A1 for more.', 'city', 'Ni%C5%A1'],
    ['a map URL centred near the truth', 'https://maps.example.org/?center=43.3215%2C%2021.8969&zoom=14', 'coordinates', '43.3215%2C%2021.8969'],
    ['a map URL inside a redirect, encoded twice', '/login?next=%2Fmap%3Fcenter%3D43.3215%252C%252021.8969', 'coordinates', '43.3215%252C%252021.8969'],
    ['URL-encoded JSON in a query', 'GET /api?q=%7B%22lat%22%3A43.3215%2C%22lon%22%3A21.8969%7D', 'coordinates', 'lat%22%3A43.3215%2C%22lon%22%3A21.8969'],
    ['the country name in a quoted query', 'https://search.example/?q=%22Srbija%22%20roads', 'country', 'Srbija'],
    ['an identity key percent-encoded', 'https://cdn.example/view?task_id%3Deval-00417%26frame%3D0', 'identity', 'eval-00417'],
    ['the town by a decimal reference', '<p>Dobrodo&#353;li u Ni&#353;</p>', 'city', 'Ni&#353;'],
    ['the town by a named reference', '<td>Ni&scaron;</td>', 'city', 'Ni&scaron;'],
    ['the town by hex references', '<b>&#x4E;&#x69;&#x161;</b>', 'city', '&#x4E;&#x69;&#x161;'],
    ['coordinates with &amp; between labelled halves', '<a href="/map?mlat=43.3215&amp;mlon=21.8969">map</a>', 'coordinates', 'lat=43.3215&amp;mlon=21.8969'],
    ['coordinates labelled lon/lat', 'position lon/lat: 21.8969/43.3215', 'coordinates', 'lat: 21.8969/43.3215'],
    ['coordinates labelled lng/lat', '{"lng/lat": "21.8969, 43.3215"}', 'coordinates', 'lat": "21.8969, 43.3215'],
    ['coordinates under a (lon, lat) label', 'camera (lon, lat) = (21.8969, 43.3215)', 'coordinates', '21.8969, 43.3215'],
    ['coordinates labelled lon/lat, percent-encoded', '?where=lon%2Flat%3A%2021.8969%2F43.3215', 'coordinates', 'lat%3A%2021.8969%2F43.3215'],
  ];

  it.each(cases)('%s', async (_, text, kind, span) => {
    const findings = await audit(text);
    expect(findings.map((f) => `${f.kind} ${f.text}`)).toEqual([`${kind} ${span}`]);
    const f = findings[0]!;
    expect(f).toMatchObject({ message: base.length, text_index: 0 });
    expect(text.slice(f.span.start, f.span.end)).toBe(span);
    expect(f.context).toContain(span);
  });

  it('says what the encoded text decodes to', async () => {
    const [city] = await audit('https://en.wikipedia.org/wiki/Ni%C5%A1');
    expect(city!.evidence).toMatch(/^Niš, the town nearest the truth 0\.\d km from the truth; no agent point explains it \(decoded: "Niš"\)$/);
    const [point] = await audit('center=43.3215%2C%2021.8969');
    expect(point!.evidence).toBe('43.3215, 21.8969 is 0.1 km from the truth (decoded: "43.3215, 21.8969")');
  });

  it('reports a leak the text shows as written once, not again from its decoded copy', async () => {
    // Both the text (%2C is read as a comma) and its decoded copy hold the pair; Serbia is plain in both.
    const findings = await audit('Serbia: https://maps.example.org/?ll=43.3215%2C21.8969&q=Ni%C5%A1');
    expect(findings.map((f) => `${f.kind} ${f.text}`)).toEqual(['country Serbia', 'coordinates 43.3215%2C21.8969', 'city Ni%C5%A1']);
    expect(findings.map((f) => f.evidence.includes('decoded'))).toEqual([false, false, true]);
  });

  it("explains an encoded echo of the agent's own point, once, on the text as written", async () => {
    const heard: Explanation[] = [];
    const text = `Your map: https://maps.example.org/?center=${TRUTH.lat}%2C%20${TRUTH.lon}&marker=Ni%C5%A1`;
    // A tool result answers the agent's action: the town its map names is explained there.
    const prompt = promptOf([...base, { role: 'tool', tool_call_id: 'call_map', content: text }], { images, agentPoints: [TRUTH] });
    expect(await auditPromptAsync(prompt, auditTask, { onExplained: (e) => heard.push(e) })).toEqual([]);
    expect(heard.map((e) => `${e.kind} ${e.text}`)).toEqual([`coordinates ${TRUTH.lat}%2C%20${TRUTH.lon}`, 'city Ni%C5%A1']);
  });

  it('never explains an encoded town outside the feedback to an action of the agent\'s', async () => {
    // No coordinate of the agent's on the line: nothing marks it as the answer to the agent's pin.
    const text = 'Your map: https://maps.example.org/?marker=Ni%C5%A1';
    expect((await audit(text, [TRUTH])).map((f) => `${f.kind} ${f.text}`)).toEqual(['city Ni%C5%A1']);
  });
});

describe('encodings: nothing on clean look-alikes', () => {
  it.each([
    ['a percent-encoded far coordinate', 'https://maps.example.org/?center=48.8566%2C%202.3522&zoom=12'],
    ['a percent sign in prose', '50% of the view is sky; 11 tool calls left.'],
    ['entities that are spaces and marks', 'Facing&nbsp;90&deg; (E),&nbsp;pitch&nbsp;0&deg;. 10&nbsp;tool calls left.'],
    ['an encoded other country', 'https://en.wikipedia.org/wiki/Hrvatska%20and%20Sloven%C3%ADa'],
    ['the truth written lat-first under a lon/lat label (another point)', 'lon/lat: 43.3209/21.8958'],
    ['the truth written lon-first under a lat/lon label (another point)', 'lat/lon: 21.8958, 43.3209'],
  ])('%s', async (_, text) => {
    expect(await audit(text)).toEqual([]);
  });

  it('reads a pair under a label naming both axes in one order only', () => {
    expect(findCoordinates('lon/lat: 21.89/43.32').map((p) => [p.lat, p.lon])).toEqual([[43.32, 21.89]]);
    expect(findCoordinates('lat/lng: 43.32/21.89').map((p) => [p.lat, p.lon])).toEqual([[43.32, 21.89]]);
    expect(findCoordinates('(lon, lat): 21.89, 43.32').map((p) => [p.lat, p.lon])).toEqual([[43.32, 21.89]]);
    // Without such a label, both orders stay possible.
    expect(findCoordinates('at 21.89, 43.32').map((p) => [p.lat, p.lon])).toEqual([
      [21.89, 43.32],
      [43.32, 21.89],
    ]);
  });
});

describe('encodings: geolab audit on a prompt file', () => {
  it('reports encoded leaks in text and image URLs with spans on the text as written', () => {
    const dir = tempDir();
    const tasks = join(dir, 'eval.jsonl');
    writeFileSync(tasks, JSON.stringify({ ...task, task_index: 0 }) + '\n');
    const prompts = join(dir, 'prompts.jsonl');
    const line = (id: string, text: string) => ({ id, task_id: task.task_id, messages: [{ role: 'user', content: text }] });
    const lines = [
      line('wiki', 'Read https://en.wikipedia.org/wiki/Ni%C5%A1 first.'),
      line('entity', 'Welcome to Ni&#353;!'),
      line('clean', 'https://maps.example.org/?center=48.8566%2C%202.3522 and 50% cloud.'),
      {
        id: 'image-url',
        task_id: task.task_id,
        messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://cdn.example.org/photos/Ni%C5%A1/0001.jpg' } }] }],
      },
    ];
    writeFileSync(prompts, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    const r = geolab(['audit', '--prompts', prompts, '--tasks', tasks, '--json'], { home: join(dir, 'home') });
    expect(r.stderr).toBe('');
    // Niš is the town nearest the truth: a high finding, so the gate fails.
    expect(r.code).toBe(1);
    const { findings } = JSON.parse(r.stdout) as { findings: Finding[] };
    expect(findings.map((f) => `${f.prompt_id} ${f.kind} ${f.text} ${f.span.start}-${f.span.end}`)).toEqual([
      'wiki city Ni%C5%A1 35-43',
      'entity city Ni&#353; 11-19',
      'image-url city Ni%C5%A1 31-39',
      // The image itself could not be fetched: its metadata is not checked, and said so.
      'image-url image_metadata https://cdn.example.org/photos/Ni%C5%A1/0001.jpg: not checked 0-0',
    ]);
  });
});
