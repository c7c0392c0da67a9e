/**
 * The guess parser (docs/scoring.md): turns a model's free-text reply into a latitude and longitude.
 *
 * Where to look: the content of the first `<guess>..</guess>` tag (an unclosed tag runs to the end,
 * as stop sequences often eat the closing one); if the tag yields no coordinates at all, the whole
 * reply. A tag whose coordinates are out of range fails: it was the model's committed answer.
 *
 * What to look for, in this order (the first format with a usable pair wins):
 * 1. json      keys in a `{...}` block: lat/latitude and lon/lng/long/longitude, quoted or not
 * 2. labelled  the same keys anywhere: `lat: 48.85 lon: 2.29`, `latitude=48.85, longitude=2.29`
 * 3. degrees   two coordinates, each with a degree sign (and optional minutes and seconds) or a
 *              hemisphere letter or both: 48°51'29.6"N 2°17'40.2"E, 48° 51.5' N, 48.85 N, 2.29 E,
 *              33.9S 18.4E, N 48.85 E 2.29, -33.9°, 18.4°; the letters decide which is latitude
 * 4. decimal   a bare pair separated by a comma, slash, semicolon, "and" or spaces: 48.8584, 2.2945
 * Within a format, pairs are tried in reading order and one that is out of range (or has minutes or
 * seconds of 60 or more) is passed over for a later one, so that a date like 2024/03 in the reasoning
 * does not sink a good answer; if every pair of the first format that has any is bad, the parse
 * fails with a note naming the first bad value.
 *
 * Every pattern is linear: no nested quantifiers over overlapping classes, so a hostile reply of any
 * length costs one pass (the environment parses every reply of every episode).
 */

/** Told to the model after any failure. */
export const GUESS_GUIDANCE = 'Reply with a latitude and longitude, for example <guess>48.8584, 2.2945</guess>';

export type GuessFormat = 'json' | 'labelled' | 'degrees' | 'decimal';

export type ParsedGuess =
  | { ok: true; lat: number; lon: number; format: GuessFormat; note?: string }
  | { ok: false; note: string; guidance: string };

type Axis = 'lat' | 'lon';

/** One number in the text, read as a coordinate. */
interface Coordinate {
  start: number;
  end: number;
  /** Signed decimal degrees (south and west negative). */
  deg: number;
  /** Set by a hemisphere letter: N/S say latitude, E/W longitude. */
  axis: Axis | undefined;
  /** Written with a degree sign, minutes or a hemisphere, so it belongs to the degrees format. */
  marked: boolean;
  /** Why it cannot be used (minutes or seconds of 60 or more). */
  problem: string | undefined;
}

type SegmentResult =
  | { kind: 'found'; lat: number; lon: number; format: GuessFormat }
  | { kind: 'invalid'; note: string }
  | { kind: 'none' };

const NUMBER = String.raw`\d+(?:\.\d+)?(?:[eE][+\-]?\d+)?`;
const UNSIGNED = String.raw`\d+(?:\.\d+)?`;
// Sign, degrees, then an optional degree mark that may carry minutes and seconds (5 groups).
// U+2212 is the typographic minus some models write.
const MAGNITUDE =
  String.raw`([+\-\u2212]?)(${NUMBER})` +
  String.raw`(?:\s*(°|º|˚|deg(?:rees?)?(?![A-Za-z]))` +
  String.raw`(?:\s*(${UNSIGNED})\s*['′’](?:\s*(${UNSIGNED})\s*(?:''|"|″|”))?)?)?`;
const HEMISPHERE = String.raw`[Nn]orth|[Ss]outh|[Ee]ast|[Ww]est|[NSEW]`;
// Either a hemisphere before the number (N 48.85) or optionally one after it (48.85 N), never both,
// so that in "N 48.85 E 2.29" the E starts the second coordinate instead of ending the first.
// Groups: 1 prefix hemisphere, 2-6 its magnitude, 7-11 the other magnitude, 12 suffix hemisphere.
const COORDINATE =
  String.raw`(?:(?<![A-Za-z])([NSEW])\s*${MAGNITUDE}` +
  String.raw`|(?<![\w.])${MAGNITUDE}(?:\s*(${HEMISPHERE})(?![A-Za-z]))?)`;

const COORDINATE_SCAN = new RegExp(COORDINATE, 'g');
/** Anchored at lastIndex: reads the value right after a key. */
const COORDINATE_AT = new RegExp(COORDINATE, 'y');
const KEY = /(?<![A-Za-z_])(latitude|lat|longitude|long|lng|lon)(?![A-Za-z_])["']?\s*[:=]?\s*["']?/gi;
const BRACED = /\{[^{}]*\}/g;
const GUESS_OPEN = /<guess\s*>/i;
const GUESS_CLOSE = /<\/guess\s*>/gi;
const BARE_GAP = /^(?:\s*[,;/]\s*|\s+and\s+|\s+)$/i;
// A degree sign or hemisphere ends a coordinate by itself, so here the separator may be nothing at all.
const DEGREES_GAP = /^\s*(?:[,;/]|and)?\s*$/i;

type GuessFound = Extract<ParsedGuess, { ok: true }>;

export function parseGuess(text: string): ParsedGuess {
  const tagged = guessTagContent(text);
  if (tagged !== undefined) {
    const inTag = parseSegment(tagged);
    if (inTag.kind === 'found') return found(inTag);
    if (inTag.kind === 'invalid') return failed(inTag.note);
  }
  const whole = parseSegment(text);
  if (whole.kind === 'found') {
    return tagged === undefined
      ? found(whole)
      : { ...found(whole), note: 'The <guess> tag held no coordinates; used the ones found elsewhere in the reply.' };
  }
  if (whole.kind === 'invalid') return failed(whole.note);
  return failed(text.trim() === '' ? EMPTY_REPLY : NO_COORDINATES);
}

/** The notes when nothing like a coordinate was there; exported so a person's prompt can say it in its own words. */
export const EMPTY_REPLY = 'The reply is empty.';
export const NO_COORDINATES = 'No latitude and longitude found in the reply.';

function found(r: { lat: number; lon: number; format: GuessFormat }): GuessFound {
  return { ok: true, lat: r.lat, lon: r.lon, format: r.format };
}

function failed(note: string): ParsedGuess {
  return { ok: false, note, guidance: GUESS_GUIDANCE };
}

function guessTagContent(text: string): string | undefined {
  const open = GUESS_OPEN.exec(text);
  if (!open) return undefined;
  const start = open.index + open[0].length;
  GUESS_CLOSE.lastIndex = start;
  const close = GUESS_CLOSE.exec(text);
  return text.slice(start, close ? close.index : text.length);
}

function parseSegment(text: string): SegmentResult {
  // Scanned once, and only when the keyed formats found nothing.
  let coordinates: Coordinate[] | undefined;
  const formats: [GuessFormat, () => [Coordinate, Coordinate][]][] = [
    ['json', () => bracedPairs(text)],
    ['labelled', () => keyedPairs(text)],
    ['degrees', () => adjacentPairs(text, (coordinates ??= scanCoordinates(text)), 'degrees')],
    ['decimal', () => adjacentPairs(text, (coordinates ??= scanCoordinates(text)), 'decimal')],
  ];
  for (const [format, pairsOf] of formats) {
    const pairs = pairsOf();
    let firstProblem: string | undefined;
    for (const [lat, lon] of pairs) {
      const problem = pairProblem(lat, lon);
      if (problem === undefined) return { kind: 'found', lat: lat.deg, lon: lon.deg, format };
      firstProblem ??= problem;
    }
    if (firstProblem !== undefined) return { kind: 'invalid', note: firstProblem };
  }
  return { kind: 'none' };
}

function pairProblem(lat: Coordinate, lon: Coordinate): string | undefined {
  if (lat.problem !== undefined) return lat.problem;
  if (lon.problem !== undefined) return lon.problem;
  if (!(Math.abs(lat.deg) <= 90)) return `Latitude ${lat.deg} is out of range: it must be between -90 and 90.`;
  if (!(Math.abs(lon.deg) <= 180)) return `Longitude ${lon.deg} is out of range: it must be between -180 and 180.`;
  return undefined;
}

function scanCoordinates(text: string): Coordinate[] {
  const coordinates: Coordinate[] = [];
  COORDINATE_SCAN.lastIndex = 0;
  for (let m = COORDINATE_SCAN.exec(text); m !== null; m = COORDINATE_SCAN.exec(text)) {
    coordinates.push(toCoordinate(m));
  }
  return coordinates;
}

function toCoordinate(m: RegExpExecArray): Coordinate {
  const prefix = m[1];
  const at = prefix === undefined ? 7 : 2;
  const [sign, degText, mark, minText, secText] = [m[at], m[at + 1] ?? '', m[at + 2], m[at + 3], m[at + 4]];
  const hemisphere = (prefix ?? m[12])?.charAt(0).toUpperCase();
  const minutes = minText === undefined ? 0 : Number(minText);
  const seconds = secText === undefined ? 0 : Number(secText);
  const magnitude = Number(degText) + minutes / 60 + seconds / 3600;
  const negative = hemisphere === undefined ? sign === '-' || sign === '\u2212' : hemisphere === 'S' || hemisphere === 'W';
  let problem: string | undefined;
  if (minutes >= 60) problem = `Minutes must be below 60, got ${minText} in "${m[0]}".`;
  else if (seconds >= 60) problem = `Seconds must be below 60, got ${secText} in "${m[0]}".`;
  return {
    start: m.index,
    end: m.index + m[0].length,
    deg: negative ? -magnitude : magnitude,
    axis: hemisphere === undefined ? undefined : hemisphere === 'N' || hemisphere === 'S' ? 'lat' : 'lon',
    marked: mark !== undefined || hemisphere !== undefined,
    problem,
  };
}

/** Keyed pairs inside each `{...}` block, so a JSON object wins over a key mentioned earlier in prose. */
function bracedPairs(text: string): [Coordinate, Coordinate][] {
  const pairs: [Coordinate, Coordinate][] = [];
  BRACED.lastIndex = 0;
  for (let m = BRACED.exec(text); m !== null; m = BRACED.exec(text)) {
    // A slice, so each block's key search stops at its closing brace and the whole stays linear.
    pairs.push(...keyedPairs(m[0]));
  }
  return pairs;
}

/**
 * Values written right after lat/lon keys, paired when a latitude key and a longitude key follow
 * each other (in either order), whatever other text lies between them.
 */
function keyedPairs(text: string): [Coordinate, Coordinate][] {
  const keyed: { axis: Axis; coordinate: Coordinate }[] = [];
  KEY.lastIndex = 0;
  for (let key = KEY.exec(text); key !== null; key = KEY.exec(text)) {
    COORDINATE_AT.lastIndex = KEY.lastIndex;
    const value = COORDINATE_AT.exec(text);
    if (value === null) continue;
    const axis: Axis = key[1]!.toLowerCase().startsWith('lat') ? 'lat' : 'lon';
    keyed.push({ axis, coordinate: toCoordinate(value) });
    KEY.lastIndex = COORDINATE_AT.lastIndex;
  }
  const pairs: [Coordinate, Coordinate][] = [];
  for (let i = 0; i + 1 < keyed.length; i++) {
    const a = keyed[i]!;
    const b = keyed[i + 1]!;
    if (a.axis === b.axis) continue;
    pairs.push(a.axis === 'lat' ? [a.coordinate, b.coordinate] : [b.coordinate, a.coordinate]);
    i++; // each keyed value belongs to one pair at most
  }
  return pairs;
}

/** Neighbouring coordinates with only a separator between them, as [lat, lon]. */
function adjacentPairs(text: string, coordinates: Coordinate[], format: 'degrees' | 'decimal'): [Coordinate, Coordinate][] {
  const pairs: [Coordinate, Coordinate][] = [];
  for (let i = 0; i + 1 < coordinates.length; i++) {
    const a = coordinates[i]!;
    const b = coordinates[i + 1]!;
    const gap = text.slice(a.end, b.start);
    if (format === 'decimal') {
      if (!a.marked && !b.marked && BARE_GAP.test(gap)) pairs.push([a, b]);
      continue;
    }
    // Both marked: a plain number beside a marked one is more often prose than half an answer.
    if (!a.marked || !b.marked || !DEGREES_GAP.test(gap)) continue;
    if (a.axis !== undefined && a.axis === b.axis) continue;
    // The hemisphere letters decide which is which; without them latitude comes first.
    pairs.push(a.axis === 'lon' || b.axis === 'lat' ? [b, a] : [a, b]);
  }
  return pairs;
}
