/**
 * The leak audit's acceptance corpus (docs/audit.md, "Acceptance corpus and speed"): prompt-file
 * JSONL over the tasks of places.ts, in the three shapes real prompts take (geolab's tool-calling
 * episodes, the public harness's single JSON-action prompt with its "What has happened so far"
 * transcript, single-shot prompts). Each leaky prompt carries exactly one planted leak of one kind at
 * a rotating position (tool result, system prompt, image caption, user text, image URL, image bytes);
 * each clean prompt carries one look-alike that must not be reported. A prompt's id starts with its
 * kind (`country-local.07`, `clean-hex.03`), and the corpus records where each plant sits, so a
 * report can say per kind how many plants the audit found.
 *
 * Deterministic: everything is drawn from one seed, and the images are a few tiny JPEGs made with
 * sharp (with EXIF for the image-metadata kinds).
 */
import sharp from 'sharp';
import type { RecordedMessage, RecordedPart } from '../../../src/agent/types.js';
import { assistantMessage, executedCallMessages, openingMessage, type ToolCall } from '../../../src/agent/protocols/tools.js';
import { destinationPoint, haversineKm } from '../../../src/core/geodesy.js';
import { seededRandom } from '../../../src/core/random.js';
import { describePlace, lookFeedback, pinFeedback, viewMapFeedback, budgetTail } from '../../../src/env/feedback.js';
import { locate } from '../../../src/geo/index.js';
import { ELSEWHERE, PLACES, type PlaceFacts } from './places.js';

export type Position = 'tool' | 'system' | 'caption' | 'user' | 'url' | 'image';
export type Shape = 'tools' | 'harness' | 'single';

/** Where a plant sits, as the audit's findings locate text: message, text within it, offsets. */
export interface PlantSite {
  message: number;
  /** Absent for image bytes: any finding on the image's message counts. */
  textIndex?: number;
  start: number;
  end: number;
}

export interface CorpusPrompt {
  id: string;
  /** The planted kind, or `clean-<look-alike>`. */
  kind: string;
  shape: Shape;
  position: Position | null;
  taskId: string;
  /** The JSONL line. */
  line: { id: string; task_id: string; messages: unknown[] };
  /** Null for a clean prompt. */
  plant: PlantSite | null;
}

export interface AcceptanceCorpus {
  /** Task records in the public task schema, one JSONL line each. */
  tasks: Record<string, unknown>[];
  prompts: CorpusPrompt[];
}

export interface CorpusOptions {
  seed?: number;
  /** Leaky prompts per planted kind. */
  perKind?: number;
  /** Clean prompts per look-alike. */
  perLookalike?: number;
  /** Extra plain clean prompts (no look-alike beyond the shapes' own text), for bench-sized corpora. */
  plain?: number;
  /** Edge of the view JPEGs in pixels: tiny for tests, larger to make a bench corpus weigh what real ones do. */
  viewPx?: number;
}

// ---------------------------------------------------------------------------------------------
// Tasks

interface TaskFacts {
  place: PlaceFacts;
  record: Record<string, unknown>;
  taskId: string;
  sequenceId: string;
  imageId: string;
  username: string;
  checksum: string;
  capturedAt: string;
  compass: number;
  camera: { make: string; model: string };
  /** Natural Earth's name for the country, as task files carry it. */
  label: string;
}

const CAMERAS = [
  { make: 'GoPro', model: 'GoPro Max' },
  { make: 'Insta360', model: 'ONE X2' },
  { make: 'Labpano', model: 'Pilot One' },
  { make: 'RICOH', model: 'THETA Z1' },
  { make: 'Trimble', model: 'MX7' },
];
const SYLLABLES = ['vel', 'tra', 'mok', 'zin', 'ori', 'pax', 'lum', 'dre', 'kav', 'sut', 'nel', 'bro'];

function digits(rand: () => number, n: number): string {
  let s = String(1 + Math.floor(rand() * 9));
  while (s.length < n) s += String(Math.floor(rand() * 10));
  return s;
}

function hex(rand: () => number, n: number): string {
  let s = '';
  while (s.length < n) s += Math.floor(rand() * 16).toString(16);
  return s;
}

function alnum(rand: () => number, n: number): string {
  const chars = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  let s = '';
  while (s.length < n) s += chars[Math.floor(rand() * chars.length)];
  return s;
}

function pick<T>(rand: () => number, items: readonly T[]): T {
  return items[Math.floor(rand() * items.length)] as T;
}

function makeTasks(rand: () => number): TaskFacts[] {
  return PLACES.map((place, i) => {
    const taskId = `eval-${String(1000 + i * 37).padStart(5, '0')}`;
    const sequenceId = alnum(rand, 22);
    const username = `${pick(rand, SYLLABLES)}${pick(rand, SYLLABLES)}_${pick(rand, SYLLABLES)}${digits(rand, 2)}`;
    const capturedAt = `${2019 + Math.floor(rand() * 6)}-${String(1 + Math.floor(rand() * 12)).padStart(2, '0')}`;
    const camera = pick(rand, CAMERAS);
    const frames = [0, 1, 2].map((f) => ({
      image_id: digits(rand, 15 + (f % 2)),
      lat: Number((place.lat + (f - 1) * 0.00004).toFixed(9)),
      lon: Number((place.lon + (f - 1) * 0.00003).toFixed(9)),
      compass_angle: Number((rand() * 360).toFixed(10)),
      captured_at: capturedAt,
      is_pano: true,
    }));
    const sha256 = Object.fromEntries(frames.map((f) => [f.image_id, hex(rand, 64)]));
    const start = frames[1] as (typeof frames)[number];
    const label = locate(place.lat, place.lon).country ?? place.country.english;
    const record = {
      task_index: i,
      task_id: taskId,
      country: label,
      sequence_id: sequenceId,
      provider: 'mapillary',
      start_frame: 1,
      frames,
      attribution: { creator_username: username, creator_id: digits(rand, 15), licence: 'CC-BY-SA-4.0', source: 'Mapillary' },
      meta: { camera_make: camera.make, camera_model: camera.model, quality_score: Number((0.7 + rand() * 0.3).toFixed(3)), sha256 },
    };
    return {
      place,
      record,
      taskId,
      sequenceId,
      imageId: start.image_id,
      username,
      checksum: sha256[start.image_id] as string,
      capturedAt,
      compass: start.compass_angle,
      camera,
      label,
    };
  });
}

// ---------------------------------------------------------------------------------------------
// Plants: what each kind writes, and where it may go

/** Text for a text position, a URL for an image URL (either may stand for the other), or EXIF for image bytes. */
type Plant = { text: string; url?: string } | { url: string; text?: undefined } | { exif: Record<string, Record<string, string>> };

interface KindSpec {
  name: string;
  positions: readonly Position[];
  /** The plant for a task, or null when the kind does not apply to it (no postcode format of its own...). */
  plant(t: TaskFacts, rand: () => number): Plant | null;
}

const TEXT: readonly Position[] = ['tool', 'system', 'caption', 'user'];
const TEXT_AND_URL: readonly Position[] = ['url', 'tool', 'system', 'caption', 'user'];

/** A point 2-15 km from the truth, written to 4 decimals. */
function nearPoint(t: TaskFacts, rand: () => number): { lat: number; lon: number } {
  const p = destinationPoint(t.place.lat, t.place.lon, rand() * 360, 2 + rand() * 13);
  return { lat: Number(p.lat.toFixed(4)), lon: Number(p.lon.toFixed(4)) };
}

function dms(value: number, positive: string, negative: string): string {
  const a = Math.abs(value);
  const d = Math.floor(a);
  const m = Math.floor((a - d) * 60);
  const s = ((a - d) * 60 - m) * 60;
  return `${d}°${m}'${s.toFixed(1)}"${value >= 0 ? positive : negative}`;
}

function rational(value: number): string {
  const a = Math.abs(value);
  const d = Math.floor(a);
  const m = Math.floor((a - d) * 60);
  const s = Math.round(((a - d) * 60 - m) * 60 * 100);
  return `${d}/1 ${m}/1 ${s}/100`;
}

function htmlEntities(text: string): string {
  const ascii = /^[\x20-\x7e]*$/.test(text);
  // Non-ASCII letters become numeric entities; an all-ASCII name is hidden letter by letter, as scrapers' output does.
  return [...text].map((ch) => (ascii || ch.codePointAt(0)! > 0x7e ? `&#${ch.codePointAt(0)};` : ch)).join('');
}

/** A name of the place that an encoding changes: the first non-ASCII one, else the town. */
function encodableName(t: TaskFacts): string {
  const names = [t.place.town.native, t.place.country.local, t.place.region.local, t.place.town.exonym].filter((n): n is string => !!n);
  return names.find((n) => /[^\x20-\x7e]/.test(n)) ?? t.place.town.native;
}

function host(t: TaskFacts, rand: () => number): string {
  const tld = t.place.country.tld === 'uk' ? 'co.uk' : t.place.country.tld;
  return `${pick(rand, ['bakery', 'autoservis', 'hotel', 'pharmacy', 'market'])}-${digits(rand, 3)}.${tld}`;
}

const KINDS: readonly KindSpec[] = [
  // Identity keys.
  { name: 'id-task-id', positions: TEXT_AND_URL, plant: (t) => ({ text: `Task ${t.taskId} loaded.`, url: `https://envs.example.org/tasks/${t.taskId}/view.jpg` }) },
  { name: 'id-sequence', positions: TEXT_AND_URL, plant: (t) => ({ text: `Sequence ${t.sequenceId}, frame 3.`, url: `https://tiles.example.org/seq/${t.sequenceId}/3.jpg` }) },
  { name: 'id-image', positions: TEXT_AND_URL, plant: (t) => ({ text: `Panorama ${t.imageId} rendered.`, url: `https://cdn.example.org/pano/${t.imageId}.jpg` }) },
  { name: 'id-username', positions: TEXT_AND_URL, plant: (t) => ({ text: `Photo by ${t.username}.`, url: `https://img.example.org/u/${t.username}/view.jpg` }) },
  { name: 'id-checksum', positions: TEXT_AND_URL, plant: (t) => ({ text: `Image sha256:${t.checksum}.`, url: `https://cache.example.org/${t.checksum}.jpg` }) },
  // Coordinates near the truth.
  {
    name: 'coord-decimal',
    positions: TEXT,
    plant: (t, r) => {
      const p = nearPoint(t, r);
      return { text: `Camera position: ${p.lat}, ${p.lon}.` };
    },
  },
  {
    name: 'coord-dms',
    positions: TEXT,
    plant: (t, r) => {
      const p = nearPoint(t, r);
      return { text: `GPS ${dms(p.lat, 'N', 'S')} ${dms(p.lon, 'E', 'W')}` };
    },
  },
  {
    name: 'coord-lonlat',
    positions: TEXT,
    plant: (t, r) => {
      const p = nearPoint(t, r);
      return { text: `lon/lat: ${p.lon}/${p.lat}` };
    },
  },
  {
    name: 'coord-url',
    positions: TEXT_AND_URL,
    plant: (t, r) => {
      const p = nearPoint(t, r);
      return { url: `https://maps.example.org/staticmap?center=${p.lat}%2C%20${p.lon}&zoom=14&size=640x480` };
    },
  },
  // The true country.
  { name: 'country-english', positions: TEXT, plant: (t) => ({ text: `A poster reads: Welcome to ${t.place.country.english}!` }) },
  { name: 'country-local', positions: TEXT, plant: (t) => (t.place.country.local ? { text: `Banner over the road: ${t.place.country.local}` } : null) },
  { name: 'country-other-language', positions: TEXT, plant: (t) => ({ text: `Leaflet on the bench: ${t.place.country.other}` }) },
  { name: 'country-iso', positions: TEXT, plant: (t) => ({ text: `[country: ${t.place.country.iso2}] view 3 of 12` }) },
  { name: 'country-demonym', positions: TEXT, plant: (t) => ({ text: `A ${t.place.country.demonym} flag flies over the gate.` }) },
  // Its admin-1 region.
  { name: 'region-latin', positions: TEXT, plant: (t) => ({ text: `Road sign: ${t.place.region.latin}` }) },
  {
    name: 'region-local',
    positions: TEXT,
    plant: (t) => (t.place.region.local && t.place.region.local !== t.place.region.latin ? { text: `Road sign: ${t.place.region.local}` } : null),
  },
  // A town within 50 km.
  { name: 'town-native', positions: TEXT, plant: (t, r) => ({ text: `Signpost: ${t.place.town.native} ${3 + Math.floor(r() * 40)} km` }) },
  { name: 'town-exonym', positions: TEXT, plant: (t, r) => (t.place.town.exonym ? { text: `Signpost: ${t.place.town.exonym} ${3 + Math.floor(r() * 40)} km` } : null) },
  { name: 'town-translit', positions: TEXT, plant: (t, r) => (t.place.town.translit ? { text: `Signpost: ${t.place.town.translit} ${3 + Math.floor(r() * 40)} km` } : null) },
  // Country fingerprints.
  { name: 'fp-calling-code', positions: TEXT, plant: (t) => (t.place.country.calling ? { text: `Call us: +${t.place.country.calling} ${t.place.country.phone}` } : null) },
  { name: 'fp-postcode', positions: TEXT, plant: (t) => (t.place.country.postcode ? { text: `Address on the van: postcode ${t.place.country.postcode}` } : null) },
  { name: 'fp-oval', positions: TEXT, plant: (t) => (t.place.country.oval ? { text: `The parked car has an oval ${t.place.country.oval} sticker.` } : null) },
  {
    name: 'fp-cctld',
    positions: TEXT_AND_URL,
    plant: (t, r) => {
      const name = host(t, r);
      return { text: `Shop website: www.${name}`, url: `https://www.${name}/img/front.jpg` };
    },
  },
  // Capture metadata of the task's frames.
  {
    name: 'cap-time',
    positions: TEXT,
    plant: (t, r) => {
      const day = String(1 + Math.floor(r() * 28)).padStart(2, '0');
      const time = [Math.floor(r() * 24), Math.floor(r() * 60), Math.floor(r() * 60)].map((n) => String(n).padStart(2, '0')).join(':');
      return { text: `Captured ${t.capturedAt}-${day}T${time}Z` };
    },
  },
  { name: 'cap-compass', positions: TEXT, plant: (t) => ({ text: `Camera heading ${t.compass.toFixed(6)}°` }) },
  {
    name: 'cap-camera',
    positions: TEXT,
    plant: (t) => ({ text: `Shot with a ${t.camera.model.startsWith(t.camera.make) ? t.camera.model : `${t.camera.make} ${t.camera.model}`}.` }),
  },
  // Image metadata, in the bytes of a served view.
  {
    name: 'img-gps',
    positions: ['image'],
    plant: (t, r) => {
      const p = nearPoint(t, r);
      const exif = { GPSLatitudeRef: p.lat >= 0 ? 'N' : 'S', GPSLatitude: rational(p.lat), GPSLongitudeRef: p.lon >= 0 ? 'E' : 'W', GPSLongitude: rational(p.lon) };
      return { exif: { IFD3: exif } };
    },
  },
  { name: 'img-maker', positions: ['image'], plant: (t) => ({ exif: { IFD0: { Make: t.camera.make, Model: t.camera.model } } }) },
  {
    name: 'img-identity',
    positions: ['image'],
    plant: (t, r) => ({ exif: { IFD0: r() < 0.5 ? { Artist: t.username } : ({ ImageDescription: `pano ${t.imageId}` } as Record<string, string>) } }),
  },
  // Encodings.
  {
    name: 'enc-percent',
    positions: TEXT_AND_URL,
    plant: (t, r) => {
      const name = encodableName(t);
      const url = r() < 0.5 ? `https://en.wikipedia.org/wiki/${encodeURIComponent(name)}` : `https://search.example.org/?q=${encodeURIComponent(JSON.stringify({ place: name }))}`;
      return { url };
    },
  },
  { name: 'enc-html', positions: TEXT, plant: (t) => ({ text: `Caption: ${htmlEntities(encodableName(t))}` }) },
];

export const PLANTED_KINDS: readonly string[] = KINDS.map((k) => k.name);

// ---------------------------------------------------------------------------------------------
// Prompt shapes

interface Views {
  clean: string[];
  /** A JPEG with the given EXIF, as a data URL. */
  withExif(exif: Record<string, Record<string, string>>): Promise<string>;
}

async function makeViews(px: number, rand: () => number): Promise<Views> {
  const width = px;
  const height = Math.max(8, Math.round(px / 2));
  const raw = (seed: number) => {
    const pixels = Buffer.alloc(width * height * 3);
    // A gradient with grain: compresses like a photo rather than a flat colour.
    for (let i = 0; i < pixels.length; i++) pixels[i] = (((i / 3) % width) * 200) / width + seed * 30 + Math.floor(rand() * 20);
    return sharp(pixels, { raw: { width, height, channels: 3 } });
  };
  const dataUrl = (jpeg: Buffer) => `data:image/jpeg;base64,${jpeg.toString('base64')}`;
  const clean = await Promise.all([0, 1, 2].map(async (seed) => dataUrl(await raw(seed).jpeg({ quality: 70 }).toBuffer())));
  const base = await raw(3).jpeg({ quality: 70 }).toBuffer();
  return { clean, withExif: async (exif) => dataUrl(await sharp(base).withExif(exif).jpeg({ quality: 70 }).toBuffer()) };
}

/** Where the one planted (or look-alike) text goes in a prompt being built. */
interface Insert {
  position: Position | null;
  /** Text to place at `position` (tool/system/caption/user), or a URL for `url`, or an image data URL. */
  text?: string;
  url?: string;
  image?: string;
  /** A model-authored sentence (the reasoning look-alike). */
  reasoning?: string;
  /** Look-alike: the agent pins (tools shape) or pins and maps (harness shape) in the true country. */
  pinsInCountry?: boolean;
}

interface Ctx {
  t: TaskFacts;
  rand: () => number;
  views: Views;
  /**
   * The agent's incidental pins land far away (clean prompts, so each look-alike is judged on its own);
   * otherwise half of them land in the true country, as an agent homing in places them.
   */
  farPins: boolean;
}

const OPENING_CAMERA = { heading_deg: 0, fov_deg: 90, pitch_deg: 0 };
const HEADINGS = [0, 45, 90, 135, 180, 225, 270, 315, 20, 160, 250];
const SYSTEM_NOTE = 'You are a careful geolocation assistant. Reason from what you can see.';

/** A point 30-150 km from the truth that is still in the true country (the agent homing in). */
function pinInCountry(t: TaskFacts, rand: () => number): { lat: number; lon: number } {
  const iso = t.place.country.iso2;
  for (let k = 0; k < 60; k++) {
    const p = destinationPoint(t.place.lat, t.place.lon, rand() * 360, 30 + rand() * 120);
    const at = { lat: Number(p.lat.toFixed(4)), lon: Number(p.lon.toFixed(4)) };
    if (locate(at.lat, at.lon).iso2 === iso && locate(at.lat, at.lon).offshoreKm === 0) return at;
  }
  // Small countries: closer in.
  const p = destinationPoint(t.place.lat, t.place.lon, rand() * 360, 26);
  return { lat: Number(p.lat.toFixed(4)), lon: Number(p.lon.toFixed(4)) };
}

/** A point at least 1,500 km from the truth. */
function farPoint(t: TaskFacts, rand: () => number): { lat: number; lon: number } {
  for (;;) {
    const p = { lat: Number((-50 + rand() * 110).toFixed(4)), lon: Number((-180 + rand() * 360).toFixed(4)) };
    if (haversineKm(p.lat, p.lon, t.place.lat, t.place.lon) > 1500) return p;
  }
}

/**
 * An incidental pin of a clean prompt: far, and outside the true subregion, so that its feedback
 * names nothing of the truth's (a far pin in Russia still names Russia).
 */
function farPin(t: TaskFacts, rand: () => number): { lat: number; lon: number } {
  const subregion = locate(t.place.lat, t.place.lon).subregion;
  for (;;) {
    const p = farPoint(t, rand);
    if (locate(p.lat, p.lon).subregion !== subregion) return p;
  }
}

function toOpenAi(message: RecordedMessage, images: Map<string, string>): Record<string, unknown> {
  const { content, ...rest } = message;
  if (typeof content === 'string') return { ...rest, content };
  const parts = content.map((part: RecordedPart) =>
    part.type === 'text' ? part : { type: 'image_url', image_url: { url: images.get(part.sha256) ?? '' } },
  );
  return { ...rest, content: parts };
}

/** geolab's tools protocol: the opening, then calls with their results and views, ending on the latest view. */
function toolsPrompt(c: Ctx, insert: Insert): unknown[] {
  const { t, rand, views } = c;
  const images = new Map<string, string>();
  let shaCount = 0;
  const imagePart = (url: string): RecordedPart => {
    const sha = `view${++shaCount}`;
    images.set(sha, url);
    return { type: 'image', sha256: sha, mime: 'image/jpeg' };
  };
  const maxTurns = 10;
  const messages: RecordedMessage[] = [];
  const opening = openingMessage({ tools: 'trained', maxTurns, camera: OPENING_CAMERA, image: imagePart(pick(rand, views.clean)) });
  if (insert.position === 'user' && Array.isArray(opening.content)) {
    const first = opening.content[0] as { type: 'text'; text: string };
    opening.content[0] = { type: 'text', text: `${first.text}\n${insert.text}` };
  }
  messages.push(opening);
  const steps = 1 + Math.floor(rand() * 4);
  const toolAt = insert.position === 'tool' ? steps - 1 : -1;
  let pinAt = insert.pinsInCountry ? Math.floor(rand() * steps) : rand() < 0.3 ? Math.floor(rand() * steps) : -1;
  if (pinAt === toolAt) pinAt = -1;
  let pins = 0;
  for (let s = 0; s < steps; s++) {
    const left = maxTurns - s - 1;
    const call = (name: string, args: Record<string, unknown>): ToolCall => ({ id: `call_${s + 1}`, type: 'function', function: { name, arguments: JSON.stringify(args) } });
    const last = s === steps - 1;
    const isPin = s === pinAt;
    const reasoning = insert.reasoning && s === 0 ? insert.reasoning : rand() < 0.5 ? 'Checking the surroundings.' : '';
    let view = pick(rand, views.clean);
    if (last && insert.image) view = insert.image;
    if (isPin) {
      const p = insert.pinsInCountry || (!c.farPins && rand() < 0.5) ? pinInCountry(t, rand) : farPin(t, rand);
      const c1 = call('pin', p);
      const feedback = `${pinFeedback({ index: ++pins, ...p, description: describePlace(locate(p.lat, p.lon)) }, null)} ${budgetTail(left + 2)}`;
      messages.push(assistantMessage(reasoning, [c1]), ...executedCallMessages({ call: c1, op: 'pin', feedback, callsLeft: left, image: { part: imagePart(view), kind: 'map' }, extras: [] }));
    } else {
      const heading = pick(rand, HEADINGS);
      const c1 = call('look', { heading_deg: heading });
      const planted = s === toolAt ? ` ${insert.text}` : '';
      const feedback = `${lookFeedback({ headingDeg: heading, pitchDeg: 0, fovDeg: 90 })}${planted} ${budgetTail(left + 2)}`;
      messages.push(assistantMessage(reasoning, [c1]), ...executedCallMessages({ call: c1, op: 'look', feedback, callsLeft: left, image: { part: imagePart(view), kind: 'view' }, extras: [] }));
    }
  }
  const out = messages.map((m) => toOpenAi(m, images));
  const lastView = out[out.length - 1] as { content: { type: string; text?: string }[] };
  if (insert.position === 'caption') {
    const caption = lastView.content[0] as { type: 'text'; text: string };
    lastView.content[0] = { type: 'text', text: `${caption.text} ${insert.text}` };
  }
  if (insert.position === 'url') lastView.content.push({ type: 'image_url', image_url: { url: insert.url } } as never);
  if (insert.position === 'system') out.unshift({ role: 'system', content: `${SYSTEM_NOTE} ${insert.text}` });
  else if (rand() < 0.3) out.unshift({ role: 'system', content: SYSTEM_NOTE });
  return out;
}

/**
 * The public harness's instructions, written for this corpus in the shape of its second version: the
 * same text on every task, with example coordinates and an example region in southern Germany.
 */
const HARNESS_INSTRUCTIONS = (turnsLeft: number) =>
  [
    'You are dropped at a random street-level location on Earth. Work out where you are, then commit to coordinates.',
    '',
    `You have ${turnsLeft} turns left. Each turn, reply with one JSON object.`,
    '',
    '{"action": "look", "heading_deg": 0-359, "fov_deg": 90}',
    '  Turn the camera to gather evidence: script on signs, driving side, plates, road markings, plants, poles.',
    '{"action": "zoom", "fov_deg": 30}',
    '  Narrow the view to read a distant sign or plate.',
    '{"action": "move", "direction": "forward", "meters": 20}',
    '  Walk along the road.',
    '{"action": "pin", "lat": 48.1, "lon": 11.6, "span_deg": 2}',
    '  Test a candidate on the map: it answers with the country and nearest city at that point, never whether you are right.',
    '  Pin a rough candidate, read back the country, then pin a better one: that is how "somewhere in southern Germany" becomes a coordinate.',
    '{"action": "guess", "lat": 48.14, "lon": 11.58}',
    '  Your final answer; ends the episode.',
    '',
    'Available this episode: look, zoom, move, pin, view_map, guess',
    '',
    'Coordinates are decimal degrees, negative for south and west. The JSON object must be the last thing in your reply.',
  ].join('\n');

/** A Python dict as the harness's transcript prints an action. */
function pyDict(fields: Record<string, string | number>): string {
  return `{${Object.entries(fields)
    .map(([k, v]) => `'${k}': ${typeof v === 'string' ? `'${v}'` : String(v)}`)
    .join(', ')}}`;
}

/** The harness's one user message: instructions, "What has happened so far", the camera, the view. */
function harnessPrompt(c: Ctx, insert: Insert): unknown[] {
  const { t, rand } = c;
  const maxTurns = 10;
  const turn = 2 + Math.floor(rand() * 6);
  const lines: string[] = [];
  const toolTurn = insert.position === 'tool' ? turn - 1 : -1;
  let pinTurn = insert.pinsInCountry ? 1 + Math.floor(rand() * (turn - 1)) : rand() < 0.3 ? 1 + Math.floor(rand() * (turn - 1)) : -1;
  if (pinTurn === toolTurn) pinTurn = -1;
  const mapTurn = insert.pinsInCountry && turn > 2 ? (pinTurn === 1 ? 2 : 1) : -1;
  let pins = 0;
  for (let k = 1; k < turn; k++) {
    const left = maxTurns - k;
    if (k === pinTurn) {
      const p = insert.pinsInCountry || (!c.farPins && rand() < 0.5) ? pinInCountry(t, rand) : farPin(t, rand);
      const feedback = pinFeedback({ index: ++pins, ...p, description: describePlace(locate(p.lat, p.lon)) }, null);
      lines.push(`turn ${k}: ${pyDict({ action: 'pin', lat: p.lat, lon: p.lon, span_deg: 3 })} -> ${feedback} ${budgetTail(left)}`);
    } else if (k === mapTurn) {
      const p = pinInCountry(t, rand);
      lines.push(`turn ${k}: ${pyDict({ action: 'view_map', lat: p.lat, lon: p.lon, span_deg: 2 })} -> ${viewMapFeedback(p.lat, p.lon, 2, locate(p.lat, p.lon))} ${budgetTail(left)}`);
    } else {
      const heading = pick(rand, HEADINGS);
      const extra = k === toolTurn ? ` ${insert.text}` : '';
      lines.push(`turn ${k}: ${pyDict({ action: 'look', heading_deg: heading, fov_deg: 90 })} -> ${lookFeedback({ headingDeg: heading, pitchDeg: 0, fovDeg: 90 })}${extra} ${budgetTail(left)}`);
    }
  }
  const turnsLeft = maxTurns - turn + 1;
  let prompt = HARNESS_INSTRUCTIONS(turnsLeft);
  prompt += `\n\nWhat has happened so far:\n${lines.slice(-8).join('\n')}`;
  prompt += `\n\nYou are facing ${pick(rand, HEADINGS)} degrees with a 90 degree field of view. ${turnsLeft} actions remain.`;
  if (insert.position === 'user') prompt += `\n\n${insert.text}`;
  return singleMessagePrompt(c, prompt, insert);
}

const SINGLE_SHOT =
  'You are playing a geolocation game. This street-level photograph was taken somewhere in the world: work out where.\n\n' +
  'Reason briefly about the evidence: script and language on signs, driving side, vegetation, road markings, architecture, poles, plates.\n\n' +
  'Give your answer as coordinates on the last line, exactly like this:\n<guess>LATITUDE, LONGITUDE</guess>';

function singleShotPrompt(c: Ctx, insert: Insert): unknown[] {
  return singleMessagePrompt(c, insert.position === 'user' ? `${SINGLE_SHOT}\n\n${insert.text}` : SINGLE_SHOT, insert);
}

/** One user message (text, an optional caption, the view) after an optional system message. */
function singleMessagePrompt(c: Ctx, text: string, insert: Insert): unknown[] {
  const parts: unknown[] = [{ type: 'text', text }];
  if (insert.position === 'caption') parts.push({ type: 'text', text: `Current view: ${insert.text}` });
  parts.push({ type: 'image_url', image_url: { url: insert.image ?? pick(c.rand, c.views.clean) } });
  if (insert.position === 'url') parts.push({ type: 'image_url', image_url: { url: insert.url } });
  const messages: unknown[] = [{ role: 'user', content: parts }];
  if (insert.position === 'system') messages.unshift({ role: 'system', content: `${SYSTEM_NOTE} ${insert.text}` });
  else if (c.rand() < 0.3) messages.unshift({ role: 'system', content: SYSTEM_NOTE });
  return messages;
}

function build(shape: Shape, c: Ctx, insert: Insert): unknown[] {
  if (shape === 'tools') return toolsPrompt(c, insert);
  if (shape === 'harness') return harnessPrompt(c, insert);
  return singleShotPrompt(c, insert);
}

// ---------------------------------------------------------------------------------------------
// Locating a plant the way the audit reads messages

/** The texts of an OpenAI message in the audit's order: string content or text parts and URL targets, then `name`. */
function textsOf(message: Record<string, unknown>): string[] {
  const texts: string[] = [];
  const { content } = message;
  if (typeof content === 'string') texts.push(content);
  else if (Array.isArray(content)) {
    for (const part of content as Record<string, unknown>[]) {
      if (typeof part.text === 'string') texts.push(part.text);
      else if (part.type === 'image_url') {
        const url = (part.image_url as { url: string }).url;
        if (!url.startsWith('data:')) texts.push(url);
      }
    }
  }
  if (typeof message.name === 'string' && message.name !== '') texts.push(message.name);
  return texts;
}

function locateText(messages: unknown[], needle: string): PlantSite {
  for (let m = 0; m < messages.length; m++) {
    const texts = textsOf(messages[m] as Record<string, unknown>);
    for (let i = 0; i < texts.length; i++) {
      const at = (texts[i] as string).indexOf(needle);
      if (at >= 0) return { message: m, textIndex: i, start: at, end: at + needle.length };
    }
  }
  throw new Error(`acceptance corpus: planted text not found: ${needle}`);
}

function locateImage(messages: unknown[], dataUrl: string): PlantSite {
  const m = messages.findIndex((msg) => JSON.stringify((msg as { content: unknown }).content).includes(dataUrl));
  if (m < 0) throw new Error('acceptance corpus: planted image not found');
  return { message: m, start: 0, end: 0 };
}

// ---------------------------------------------------------------------------------------------
// Look-alikes: clean prompts that resemble leaks

interface Lookalike {
  name: string;
  shapes: readonly Shape[];
  /** The insert for a task, or null when the look-alike does not apply to it. */
  insert(t: TaskFacts, rand: () => number, i: number): Insert | null;
}

const TEXT_SPOTS: readonly Position[] = ['tool', 'system', 'caption', 'user'];

function spot(i: number, shape: Shape): Position {
  const spots = shape === 'single' ? TEXT_SPOTS.filter((p) => p !== 'tool') : TEXT_SPOTS;
  return spots[i % spots.length] as Position;
}

const LOOKALIKES: readonly Lookalike[] = [
  {
    // The model's own reasoning, replayed in its assistant message, names the true country and a town.
    name: 'reasoning',
    shapes: ['tools'],
    insert: (t) => ({ position: null, reasoning: `The signs and the ${t.place.country.demonym} plates say ${t.place.country.english}; maybe near ${t.place.town.exonym ?? t.place.town.translit ?? t.place.town.native}.` }),
  },
  { name: 'pins-in-country', shapes: ['tools', 'harness'], insert: () => ({ position: null, pinsInCountry: true }) },
  {
    name: 'far-coordinates',
    shapes: ['tools', 'harness', 'single'],
    insert: (t, r) => {
      const p = farPoint(t, r);
      return { position: 'user', text: `For comparison, last week's practice round was at ${p.lat}, ${p.lon}.` };
    },
  },
  {
    // The harness's instructions, the same on every task, name southern Germany with coordinates near Munich.
    name: 'instruction-example',
    shapes: ['harness'],
    insert: (t) => (t.place.country.iso2 === 'DE' ? { position: null } : null),
  },
  { name: 'town-word', shapes: ['tools', 'harness', 'single'], insert: (t) => (t.place.townWord ? { position: 'user', text: t.place.townWord.sentence } : null) },
  {
    name: 'other-country',
    shapes: ['tools', 'harness', 'single'],
    insert: (t, r) => {
      const far = ELSEWHERE.filter((e) => haversineKm(e.lat, e.lon, t.place.lat, t.place.lon) > 1500);
      return { position: 'user', text: `Tip: in ${pick(r, far).country}, bollards and road lines differ from most of the world.` };
    },
  },
  {
    name: 'hex-not-checksum',
    shapes: ['tools', 'harness', 'single'],
    insert: (_t, r, i) => ({ position: 'user', text: i % 2 ? `Request id ${hex(r, 64)}` : `Renderer build ${hex(r, 12)}, trace 0x${hex(r, 16)}` }),
  },
  {
    name: 'other-date',
    shapes: ['tools', 'harness', 'single'],
    insert: (t, r) => {
      const year = Number(t.capturedAt.slice(0, 4)) + 1 + Math.floor(r() * 3);
      const date = `${year}-${String(1 + Math.floor(r() * 12)).padStart(2, '0')}-${String(1 + Math.floor(r() * 28)).padStart(2, '0')}`;
      return { position: 'user', text: `Session started ${date} 14:22:05 UTC.` };
    },
  },
  {
    // Whole degrees of the frame's compass angle, as the look feedback writes headings.
    name: 'rounded-heading',
    shapes: ['tools', 'harness', 'single'],
    insert: (t) => ({ position: 'user', text: `The camera starts facing ${Math.round(t.compass) % 360} degrees.` }),
  },
  { name: 'plain', shapes: ['tools', 'harness', 'single'], insert: () => ({ position: null }) },
];

export const LOOKALIKE_KINDS: readonly string[] = LOOKALIKES.map((l) => `clean-${l.name}`);

// ---------------------------------------------------------------------------------------------
// The corpus

const SHAPES: readonly Shape[] = ['tools', 'harness', 'single'];

function ordinal(n: number): string {
  return String(n).padStart(2, '0');
}

export async function buildAcceptanceCorpus(options: CorpusOptions = {}): Promise<AcceptanceCorpus> {
  const rand = seededRandom(options.seed ?? 20);
  const tasks = makeTasks(rand);
  const views = await makeViews(options.viewPx ?? 24, rand);
  const perKind = options.perKind ?? 24;
  const perLookalike = options.perLookalike ?? 20;
  const prompts: CorpusPrompt[] = [];
  const add = (kind: string, label: string, shape: Shape, position: Position | null, t: TaskFacts, messages: unknown[], plant: PlantSite | null) => {
    const id = `${kind}.${label}`;
    prompts.push({ id, kind, shape, position, taskId: t.taskId, line: { id, task_id: t.taskId, messages }, plant });
  };

  for (const [k, kind] of KINDS.entries()) {
    let taskAt = k * 7;
    for (let n = 0; n < perKind; n++) {
      let t: TaskFacts;
      let plant: Plant | null;
      // The next task the kind applies to, round the list from where the kind's turn starts.
      do {
        t = tasks[taskAt++ % tasks.length] as TaskFacts;
        plant = kind.plant(t, rand);
      } while (plant === null);
      const position = kind.positions[(n + k) % kind.positions.length] as Position;
      // A URL stands in running text as a link; a text meant for a URL position is its URL form.
      if ('url' in plant && (position !== 'url' || plant.url === undefined)) plant = { text: plant.text ?? `See ${plant.url} for more.` };
      const shapes = position === 'tool' ? SHAPES.filter((s) => s !== 'single') : SHAPES;
      const shape = shapes[(n + k) % shapes.length] as Shape;
      const c: Ctx = { t, rand, views, farPins: false };
      if ('exif' in plant) {
        const image = await views.withExif(plant.exif);
        const messages = build(shape, c, { position: 'image', image });
        add(kind.name, ordinal(n), shape, 'image', t, messages, locateImage(messages, image));
      } else {
        const asUrl = position === 'url' && plant.url !== undefined;
        const needle = asUrl ? (plant.url as string) : (plant.text as string);
        const messages = build(shape, c, asUrl ? { position, url: needle } : { position, text: needle });
        add(kind.name, ordinal(n), shape, position, t, messages, locateText(messages, needle));
      }
    }
  }

  /** `prefix` keeps the ids of a second batch of the same look-alike apart. */
  const cleanOf = (look: Lookalike, count: number, offset: number, prefix = '') => {
    let taskAt = offset;
    for (let n = 0; n < count; n++) {
      const shape = look.shapes[n % look.shapes.length] as Shape;
      let t: TaskFacts;
      let insert: Insert | null;
      let tries = 0;
      do {
        if (++tries > tasks.length) throw new Error(`acceptance corpus: no task fits the look-alike ${look.name}`);
        t = tasks[taskAt++ % tasks.length] as TaskFacts;
        // The harness's instructions name Germany: on German tasks they are the instruction look-alike, kept apart.
        insert = shape === 'harness' && t.place.country.iso2 === 'DE' && look.name !== 'instruction-example' ? null : look.insert(t, rand, n);
      } while (insert === null);
      if (insert.position !== null && insert.position !== 'url') insert.position = spot(n, shape);
      add(`clean-${look.name}`, prefix + ordinal(n), shape, insert.position, t, build(shape, { t, rand, views, farPins: true }, insert), null);
    }
  };
  for (const [l, look] of LOOKALIKES.entries()) cleanOf(look, perLookalike, l * 5);
  if (options.plain) cleanOf(LOOKALIKES.find((l) => l.name === 'plain') as Lookalike, options.plain, 3, 'x');
  return { tasks: tasks.map((t) => t.record), prompts };
}

/** The corpus as files: `prompts.jsonl` (shuffled by the seed, as a run interleaves tasks) and `tasks.jsonl`. */
export function corpusFiles(corpus: AcceptanceCorpus, seed = 20): { prompts: string; tasks: string } {
  const rand = seededRandom(seed + 1);
  const order = corpus.prompts.map((p) => ({ p, key: rand() }));
  order.sort((a, b) => a.key - b.key);
  return {
    prompts: order.map(({ p }) => JSON.stringify(p.line)).join('\n') + '\n',
    tasks: corpus.tasks.map((t) => JSON.stringify(t)).join('\n') + '\n',
  };
}
