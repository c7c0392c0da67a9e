/**
 * Image metadata read where the audit runs: real JPEG and PNG bytes written by sharp with EXIF and
 * XMP tags, classified through auditPromptAsync, the leak guard and the real binary on a prompt file.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { dataUrl } from '../../src/agent/images.js';
import { guardRequest, LeakGuardError } from '../../src/agent/leak-guard.js';
import type { RecordedMessage } from '../../src/agent/types.js';
import { auditPromptAsync } from '../../src/audit/detect.js';
import type { Finding } from '../../src/audit/types.js';
import { destinationPoint, haversineKm, type LatLon } from '../../src/core/geodesy.js';
import { geolab } from '../helpers/cli.js';
import { tempDir } from '../helpers/fixtures.js';
import { auditTask, harness, imagePart, opening, promptOf, task, viewJpeg } from './corpus.js';

const TRUTH = { lat: task.frames[0]!.lat, lon: task.frames[0]!.lon };
/** 10,000 km east of Niš along a great circle: Borneo, far beyond any radius. */
const FAR = destinationPoint(TRUTH.lat, TRUTH.lon, 90, 10_000);
const IMAGE_ID = task.frames[1]!.image_id;

/** EXIF's GPS block for a point: degrees, minutes and hundredths of seconds as rationals, with hemispheres. */
function gpsIfd({ lat, lon }: LatLon): Record<string, string> {
  const dms = (deg: number) => {
    const abs = Math.abs(deg);
    const d = Math.floor(abs);
    const m = Math.floor((abs - d) * 60);
    const s = Math.round(((abs - d) * 60 - m) * 60 * 100);
    return `${d}/1 ${m}/1 ${s}/100`;
  };
  return { GPSLatitudeRef: lat < 0 ? 'S' : 'N', GPSLatitude: dms(lat), GPSLongitudeRef: lon < 0 ? 'W' : 'E', GPSLongitude: dms(lon) };
}

function pixels() {
  return sharp({ create: { width: 48, height: 24, channels: 3, background: '#6a8' } });
}

async function pngWith(exif: Record<string, Record<string, string>>): Promise<Buffer> {
  return pixels().png().withExif(exif).toBuffer();
}

/** An XMP packet as a camera or editor writes it: GPS in XMP's own notation, the creator in Dublin Core. */
function xmpPacket(lat: string, lon: string, creator: string): string {
  return [
    '<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">',
    '<rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:exif="http://ns.adobe.com/exif/1.0/"',
    ` exif:GPSLatitude="${lat}" exif:GPSLongitude="${lon}">`,
    `<dc:creator><rdf:Seq><rdf:li>${creator}</rdf:li></rdf:Seq></dc:creator>`,
    '</rdf:Description></rdf:RDF></x:xmpmeta>',
  ].join('');
}

const SHA = (c: string) => c.repeat(64);

/** Findings of a conversation whose opening view is `bytes`. */
async function auditView(bytes: Buffer, options: { radiusKm?: number } = {}): Promise<Finding[]> {
  const prompt = promptOf([opening(imagePart(SHA('a'))), harness('Where is this?')], { images: new Map([[SHA('a'), bytes]]) });
  return auditPromptAsync(prompt, auditTask, options);
}

const summary = (findings: Finding[]) => findings.map((f) => `${f.kind} ${f.severity}`);

describe('image metadata: tags read and classified', () => {
  let atTruth: Buffer;
  let far: Buffer;
  beforeAll(async () => {
    atTruth = await viewJpeg({ IFD3: gpsIfd(TRUTH) });
    far = await viewJpeg({ IFD3: gpsIfd(FAR) });
  });

  it('GPS at the truth: high, with where it points and its distance', async () => {
    const findings = await auditView(atTruth);
    expect(summary(findings)).toEqual(['image_metadata high']);
    expect(findings[0]!.text).toBe(`${SHA('a')}: GPS 43.3209, 21.8958`);
    expect(findings[0]!.evidence).toBe(
      `image ${SHA('a')} carries GPS tags pointing to 43.3209, 21.8958 in Republic of Serbia, 0.0 km from the truth (within the 25 km radius)`,
    );
  });

  it('GPS 10,000 km away: low, the km in the evidence', async () => {
    const findings = await auditView(far);
    expect(summary(findings)).toEqual(['image_metadata low']);
    expect(findings[0]!.evidence).toMatch(/ carries GPS tags pointing to -?\d+\.\d+, -?\d+\.\d+.*, 10000\.\d km from the truth \(beyond the 25 km radius\)$/);
  });

  it('the radius decides: 40 km away is low by default and high with --radius-km 50', async () => {
    const bytes = await viewJpeg({ IFD3: gpsIfd(destinationPoint(TRUTH.lat, TRUTH.lon, 0, 40)) });
    expect(summary(await auditView(bytes))).toEqual(['image_metadata low']);
    const wide = await auditView(bytes, { radiusKm: 50 });
    expect(summary(wide)).toEqual(['image_metadata high']);
    expect(wide[0]!.evidence).toMatch(/, 40\.0 km from the truth \(within the 50 km radius\)$/);
  });

  it('maker tags alone: low, naming the camera', async () => {
    const findings = await auditView(await viewJpeg({ IFD0: { Make: 'Canon', Model: 'EOS 5D' } }));
    expect(summary(findings)).toEqual(['image_metadata low']);
    expect(findings[0]!.evidence).toMatch(/^camera: Canon EOS 5D; image a+ carries maker tags \(Make Canon, Model EOS 5D\)/);
  });

  it('a model that repeats the make is named once, and a serial is a maker tag too', async () => {
    const findings = await auditView(await viewJpeg({ IFD0: { Make: 'Canon', Model: 'Canon EOS R6' }, IFD2: { BodySerialNumber: '083021001234' } }));
    expect(summary(findings)).toEqual(['image_metadata low']);
    expect(findings[0]!.evidence).toMatch(/^camera: Canon EOS R6; .*SerialNumber 083021001234/);
  });

  it('an image id in ImageDescription and a username in Copyright are identity findings, high', async () => {
    const findings = await auditView(await viewJpeg({ IFD0: { ImageDescription: `frame ${IMAGE_ID} of the sequence`, Copyright: '(c) balkan.roamer' } }));
    expect(findings.map((f) => `${f.kind} ${f.severity} ${f.text.slice(66)} | ${f.evidence}`)).toEqual([
      `identity high ImageDescription ${IMAGE_ID} | image_id "${IMAGE_ID}" in the image's ImageDescription tag`,
      `identity high Copyright balkan.roamer | creator_username "balkan.roamer" in the image's Copyright tag`,
    ]);
  });

  it('tag text is searched like prompt text: a town or coordinates in a caption are found', async () => {
    const findings = await auditView(await viewJpeg({ IFD0: { ImageDescription: 'Bus station, Leskovac, at 43.3215, 21.8969' } }));
    expect(findings.map((f) => `${f.kind} ${f.text.slice(66)}`)).toEqual(['city ImageDescription Leskovac', 'coordinates ImageDescription 43.3215, 21.8969']);
  });

  it('XMP: GPS in its own notation, the creator in Dublin Core', async () => {
    const bytes = await pixels().jpeg().withXmp(xmpPacket('43,19.254N', '21,53.748E', 'balkan.roamer')).toBuffer();
    const findings = await auditView(bytes);
    expect(findings.map((f) => `${f.kind} ${f.severity}`)).toEqual(['image_metadata high', 'identity high']);
    expect(findings[0]!.evidence).toMatch(/pointing to 43\.3209, 21\.8958 in Republic of Serbia, 0\.0 km from the truth/);
    expect(findings[1]!.evidence).toBe('creator_username "balkan.roamer" in the image\'s creator tag');
    // Southern and western hemispheres are negative.
    const south = await pixels().jpeg().withXmp(xmpPacket('33,52.08S', '151,12.54W', 'someone')).toBuffer();
    expect((await auditView(south))[0]!.evidence).toMatch(/pointing to -33\.868, -151\.209, \d+\.\d km from the truth \(beyond/);
  });

  it('PNG bytes: an eXIf chunk is read the same way', async () => {
    const near = await auditView(await pngWith({ IFD3: gpsIfd(TRUTH) }));
    expect(summary(near)).toEqual(['image_metadata high']);
    const far = await auditView(await pngWith({ IFD0: { Make: 'Sony' }, IFD3: gpsIfd(FAR) }));
    expect(summary(far)).toEqual(['image_metadata low', 'image_metadata low']);
    expect(far.map((f) => f.evidence)).toEqual([expect.stringMatching(/10000\.\d km from the truth/), expect.stringMatching(/^camera: Sony; /)]);
  });

  it("PNG bytes: XMP in a compressed text chunk (sharp's and libvips' way) is read too", async () => {
    const bytes = await pixels().png().withXmp(xmpPacket('43,19.254N', '21,53.748E', 'balkan.roamer')).toBuffer();
    expect(bytes.includes(Buffer.from('zTXtXML:com.adobe.xmp'))).toBe(true);
    const findings = await auditView(bytes);
    expect(findings.map((f) => `${f.kind} ${f.severity}`)).toEqual(['image_metadata high', 'identity high']);
    expect(findings[0]!.evidence).toMatch(/pointing to 43\.3209, 21\.8958 in Republic of Serbia/);
  });

  it('a block without GPS, maker or key is low; a clean image is nothing', async () => {
    const findings = await auditView(await viewJpeg({ IFD0: { Software: 'darktable 4.6' } }));
    expect(summary(findings)).toEqual(['image_metadata low']);
    expect(findings[0]!.evidence).toMatch(/carries EXIF \(APP1\) without GPS, maker or identity tags$/);
    expect(await auditView(await viewJpeg())).toEqual([]);
  });

  it('with no truth known (a remote task), GPS stays high: nothing says it is far', async () => {
    const prompt = promptOf([opening(imagePart(SHA('a')))], { images: new Map([[SHA('a'), far]]) });
    const findings = await auditPromptAsync(prompt, { truth: null, identity: auditTask.identity });
    expect(summary(findings)).toEqual(['image_metadata high']);
    expect(findings[0]!.evidence).not.toContain('km');
  });
});

describe('image metadata: the leak guard reads the tags too', () => {
  it('refuses a camera make alone, saying which camera', async () => {
    const bytes = await viewJpeg({ IFD0: { Make: 'Canon', Model: 'EOS 5D' } });
    const messages: RecordedMessage[] = [opening(imagePart(SHA('b')))];
    const request = { messages, images: new Map([[SHA('b'), { bytes, mime: 'image/jpeg' }]]), knowledge: auditTask, agentPoints: [] };
    await expect(guardRequest(request)).rejects.toThrow(LeakGuardError);
    await expect(guardRequest(request)).rejects.toThrow(/^leak guard: camera: Canon EOS 5D; /);
  });

  it('refuses far GPS as well, and passes a clean image', async () => {
    const far = await viewJpeg({ IFD3: gpsIfd(FAR) });
    const request = (bytes: Buffer) => ({ messages: [opening(imagePart(SHA('b')))], images: new Map([[SHA('b'), { bytes, mime: 'image/jpeg' }]]), knowledge: auditTask, agentPoints: [] });
    await expect(guardRequest(request(far))).rejects.toThrow(/10000\.\d km from the truth/);
    await expect(guardRequest(request(await viewJpeg()))).resolves.toBeUndefined();
  });
});

describe('image metadata: geolab audit on a prompt file', () => {
  const TASK = {
    task_index: 0,
    task_id: 'eval-00042',
    country: 'Republic of Serbia',
    sequence_id: 'qR7vT2mX9pL4wB8nK3cF1h',
    frames: [{ image_id: '5551234567890123', lat: 43.3209, lon: 21.8958, compass_angle: 0, captured_at: '2023-06', is_pano: true }],
    attribution: { creator_username: 'nis_walker', creator_id: '100200300400', licence: 'CC-BY-SA', source: 'mapillary' },
  };
  const line = (id: string, url: string) => ({
    id,
    task_id: 'eval-00042',
    messages: [
      { role: 'system', content: 'You play GeoGuesser. Work out where you are.' },
      { role: 'user', content: [{ type: 'text', text: 'The view:' }, { type: 'image_url', image_url: { url } }] },
    ],
  });

  it('classifies GPS near and far, maker only and keys in EXIF and XMP tags, in files and data URLs', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'near.jpg'), await viewJpeg({ IFD3: gpsIfd(TRUTH) }));
    writeFileSync(join(dir, 'maker.jpg'), await viewJpeg({ IFD0: { Make: 'Canon', Model: 'EOS 5D' } }));
    const farPng = await pngWith({ IFD3: gpsIfd(FAR) });
    const described = await viewJpeg({ IFD0: { ImageDescription: 'pano 5551234567890123' } });
    const xmpPng = await pixels().png().withXmp(xmpPacket('43,19.254N', '21,53.748E', 'nis_walker')).toBuffer();
    const tasks = join(dir, 'eval.jsonl');
    writeFileSync(tasks, JSON.stringify(TASK) + '\n');
    const prompts = join(dir, 'prompts.jsonl');
    const lines = [
      line('near', 'near.jpg'),
      line('far', dataUrl({ bytes: farPng, mime: 'image/png' })),
      line('maker', 'maker.jpg'),
      line('described', dataUrl({ bytes: described, mime: 'image/jpeg' })),
      line('xmp', dataUrl({ bytes: xmpPng, mime: 'image/png' })),
    ];
    writeFileSync(prompts, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    const r = geolab(['audit', '--prompts', prompts, '--tasks', tasks, '--json'], { home: join(dir, 'home') });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(1);
    const { findings } = JSON.parse(r.stdout) as { findings: Finding[] };
    expect(findings.map((f) => `${f.prompt_id} ${f.kind} ${f.severity}`)).toEqual([
      'near image_metadata high',
      'far image_metadata low',
      'maker image_metadata low',
      'described identity high',
      'xmp image_metadata high',
      'xmp identity high',
    ]);
    const [near, far, maker, described_] = findings as [Finding, Finding, Finding, Finding];
    expect(near.evidence).toBe('image near.jpg carries GPS tags pointing to 43.3209, 21.8958 in Republic of Serbia, 0.0 km from the truth (within the 25 km radius)');
    const km = haversineKm(FAR.lat, FAR.lon, TRUTH.lat, TRUTH.lon).toFixed(1);
    expect(far.evidence).toContain(`, ${km} km from the truth (beyond the 25 km radius)`);
    expect(maker.evidence).toMatch(/^camera: Canon EOS 5D; image maker\.jpg carries maker tags/);
    expect(described_.evidence).toBe('image_id "5551234567890123" in the image\'s ImageDescription tag');
  });
});
