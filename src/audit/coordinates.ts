/**
 * Coordinates in text, in the notations prompts, feedback, URLs and JSON use (docs/audit.md):
 * decimal pairs with any separator, labelled values (`lat: 43.32`, `"lng":21.9`, `latitude=`),
 * degrees-minutes-seconds with symbols (43°19'12"N) or letters (43d19m12s), signed or with
 * hemisphere letters before or after, and `lat,lon` inside URLs (`?q=43.32,21.90`,
 * `@43.32,21.90,15z`, `ll=43.32%2C21.90`); decimal commas too (`43,3209; 21,8958`,
 * `43,3209 N 21,8958 E`), where a comma between digits is not one of a list's (`1,2,3`); a label
 * naming both axes read in its order (`lon/lat: 21.89/43.32`, `lat,lng=43.32,21.89`). Other
 * percent-encoding is the detector's: it scans a decoded copy too (decode.ts). Pure and
 * independent of any task: the detector decides which of the points found are leaks.
 */
import type { LatLon } from '../core/geodesy.js';

export interface FoundPoint extends LatLon {
  start: number;
  end: number;
}

type Axis = 'lat' | 'lon' | undefined;

interface Component {
  start: number;
  end: number;
  deg: number;
  axis: Axis;
  labelled: boolean;
  /** Written with a decimal point (or comma), degree or minute marks, a hemisphere or a label: bare integers are prose. */
  marked: boolean;
}

// Labels in any of the usual cases; hemisphere letters only in capitals ("s" and "e" are prose).
// Also as the end of a longer key: OpenStreetMap's `mlat`, `center_lat`.
const LABEL = String.raw`(?:\b|(?<=[_m]))([Ll]atitude|LATITUDE|[Ll]at|LAT|[Ll]ongitude|LONGITUDE|[Ll]ong|LONG|[Ll]ng|LNG|[Ll]on|LON)(?:_[a-z])?["']?\s*[:=]?\s*["']?`;
// A number starts after a non-word character, or after a URL-encoded comma (ll=43.3%2C21.9).
const LEADING_HEMISPHERE = String.raw`(?:(?<![A-Za-z0-9_])([NSEW])\s?|(?<=%2C)|(?<![A-Za-z0-9_.%]))`;
const DEGREES = String.raw`([-+\u2212]?)(\d{1,3}(?:\.\d+|,\d+(?![.,]\d))?)(?!\.?\d)`;
const DEGREE_MARK = String.raw`\s?(?:[°º˚]|deg\b|d(?=\s?\d))\s?`;
const MINUTES = String.raw`(\d{1,2}(?:\.\d+)?)\s?(?:['′’]|min\b|m(?![A-Za-z]))\s?`;
const SECONDS = String.raw`(\d{1,2}(?:\.\d+)?)\s?(?:\\?"|″|”|''|′′|sec\b|s(?![A-Za-z]))`;
const TRAILING_HEMISPHERE = String.raw`(?:\s?([NSEW])(?![A-Za-z]))?`;

const COMPONENT = new RegExp(
  `(?:${LABEL})?${LEADING_HEMISPHERE}${DEGREES}(?:(${DEGREE_MARK})(?:${MINUTES}(?:${SECONDS})?)?)?${TRAILING_HEMISPHERE}`,
  'g',
);

/** What may stand between the two halves of a pair: a separator, "and", or a URL-encoded comma. */
const GAP = /^\s*(?:[,;/|:&x]|%2C|and)?\s*$/i;
/** Labelled halves further apart than this (other JSON keys between them) are not paired. */
const LABELLED_PAIR_MAX_CHARS = 200;

/**
 * Every point a text writes. A pair without hemispheres or labels is returned in both orders (with
 * the same span), since GeoJSON and many URLs write longitude first.
 */
export function findCoordinates(text: string, offset = 0): FoundPoint[] {
  return mayHoldPair(text) ? coordinatesByPattern(text, offset) : [];
}

/** findCoordinates without its quick test (mayHoldPair): the pattern over the whole text. */
export function coordinatesByPattern(text: string, offset = 0): FoundPoint[] {
  const components: Component[] = [];
  COMPONENT.lastIndex = 0;
  for (;;) {
    // Every component has a digit: the pattern is tried only from where the next one's prefix can start.
    const from = earliestStart(text, COMPONENT.lastIndex);
    if (from < 0) break;
    COMPONENT.lastIndex = from;
    const m = COMPONENT.exec(text);
    if (m === null) break;
    const component = toComponent(m);
    if (component) {
      readPairLabel(text, component);
      components.push(component);
    }
    // A hemisphere letter after a number that had one before belongs to the next number: N 43.3 E 21.9.
    if (component && component.end < COMPONENT.lastIndex) COMPONENT.lastIndex = component.end;
  }
  if (components.length < 2) return [];
  const found: FoundPoint[] = [];
  const paired = new Set<number>();
  for (let i = 0; i + 1 < components.length; i++) {
    const a = components[i] as Component;
    const b = components[i + 1] as Component;
    if (!a.marked || !b.marked || (a.axis !== undefined && a.axis === b.axis)) continue;
    if (!GAP.test(text.slice(a.end, b.start))) continue;
    paired.add(i).add(i + 1);
    const [lat, lon] = a.axis === 'lon' || b.axis === 'lat' ? [b, a] : [a, b];
    found.push(point(lat.deg, lon.deg, a.start, b.end, offset));
    if (a.axis === undefined && b.axis === undefined) found.push(point(b.deg, a.deg, a.start, b.end, offset));
  }
  // Labelled halves with other keys between them: {"lat": 43.3, "heading": 90, "lon": 21.9}.
  for (let i = 0; i < components.length; i++) {
    const a = components[i] as Component;
    if (!a.labelled || paired.has(i)) continue;
    for (let j = i + 1; j < components.length; j++) {
      const b = components[j] as Component;
      if (b.start - a.end > LABELLED_PAIR_MAX_CHARS) break;
      if (!b.labelled || b.axis === a.axis || paired.has(j)) continue;
      const [lat, lon] = a.axis === 'lat' ? [a, b] : [b, a];
      paired.add(i).add(j);
      found.push(point(lat.deg, lon.deg, a.start, b.end, offset));
      break;
    }
  }
  return found.filter((p) => Math.abs(p.lat) <= 90 && Math.abs(p.lon) <= 180);
}

const AXIS_WORD = '(longitude|long|lng|lon|latitude|lat)';
/** A component's own label as the second word of a label naming both axes: `lon/lat: `, `"lng,lat": `, `lng_lat=`. */
const PAIR_LABEL_BEFORE_LABEL = new RegExp(String.raw`(?:^|[^A-Za-z])${AXIS_WORD}\s*[/,_]\s*$`, 'i');
/** A label naming both axes before an unlabelled number: `(lon, lat): 21.89`, `[lng, lat] = [21.89`. */
const PAIR_LABEL_BEFORE_NUMBER = new RegExp(String.raw`(?:^|[^A-Za-z])${AXIS_WORD}\s*[/,_]\s*${AXIS_WORD}\s*[)\]]?\s*[:=]?\s*[(\[]?\s*["']?$`, 'i');
/** Characters before a component that can hold a label naming both axes. */
const PAIR_LABEL_MAX_CHARS = 32;

/**
 * A component after a label naming both axes (`lon/lat: 21.89/43.32`, `(lon, lat) = (21.89, 43.32)`)
 * is the first of them: its axis is the label's first word's, so the pair is read in the label's
 * order. (A component's own label, when it has one, is the label's second word.)
 */
function readPairLabel(text: string, component: Component): void {
  const before = text.slice(Math.max(0, component.start - PAIR_LABEL_MAX_CHARS), component.start);
  const m = (component.labelled ? PAIR_LABEL_BEFORE_LABEL : PAIR_LABEL_BEFORE_NUMBER).exec(before);
  if (!m) return;
  const first: Axis = LAT_LABEL.test(m[1] as string) ? 'lat' : 'lon';
  const second: Axis = m[2] === undefined ? component.axis : LAT_LABEL.test(m[2]) ? 'lat' : 'lon';
  if (first !== second && (component.labelled || component.axis === undefined)) component.axis = first;
}

/** Every label has one of these; a text without one can hold only unlabelled pairs. */
const LABEL_HINT = /la[t]|lo[n]|lng/i;
/**
 * ASCII letters that may stand between the numbers of an unlabelled pair: degree, minute and second
 * marks (`d`, `deg`, `m`, `min`, `s`, `sec`), hemispheres, `x`, `and`, `%2C`; any case.
 */
const GAP_LETTER = Uint8Array.from({ length: 128 }, (_, c) => ('acdegimnswx'.includes(String.fromCharCode(c).toLowerCase()) ? 1 : 0));
/** What may follow a number in a marked component: degree, minute or second marks, or a hemisphere. */
const MARK_AFTER = /^\s?(?:[^\p{ASCII}]|[dms'"NSEW])/u;
/** What ends the text before a number with a leading hemisphere: `N `, `S-`, `E +`. */
const HEMISPHERE_BEFORE = /[NSEW]\s?[-+\u2212]?$/;

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

/**
 * A quick necessary test for a pair, which rules out most prose ("Turn 3 of 12: 9 turns left",
 * "heading 90°, field of view 60°") before the pattern runs. Without a label, a pair is two marked
 * numbers (a decimal, a degree, minute or second mark, a hemisphere) with nothing but marks,
 * separators and hemisphere letters between the last digits of one and the first of the other. So
 * it looks at each two consecutive runs of digits (a `%2C` between them counts as a separator).
 */
export function mayHoldPair(text: string): boolean {
  if (LABEL_HINT.test(text)) return true;
  // The previous run of digits [prevStart, prevEnd), and where the gap before it starts.
  let prevStart = -1;
  let prevEnd = -1;
  let gapBeforePrev = 0;
  let gapOk = true;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 37 && text.charCodeAt(i + 1) === 50 && (text.charCodeAt(i + 2) | 32) === 99) {
      i += 2; // %2C
      continue;
    }
    if (!isDigit(c)) {
      if (c < 128 && ((c >= 65 && c <= 90) || (c >= 97 && c <= 122)) && GAP_LETTER[c] === 0) {
        // This gap pairs nothing: on to the next digit or "%" (most of a text is such gaps).
        gapOk = false;
        while (i + 1 < text.length && !isDigit(text.charCodeAt(i + 1)) && text.charCodeAt(i + 1) !== 37) i++;
      }
      continue;
    }
    let end = i + 1;
    while (end < text.length && isDigit(text.charCodeAt(end))) end++;
    const gapStart = Math.max(prevEnd, 0);
    // A lone "." is a decimal point: the pattern never splits a number there.
    const pointOnly = i - prevEnd === 1 && text.charCodeAt(prevEnd) === 46;
    if (prevEnd >= 0 && gapOk && !pointOnly && marked(text, prevStart, prevEnd, gapBeforePrev) && marked(text, i, end, gapStart)) return true;
    prevStart = i;
    prevEnd = end;
    gapBeforePrev = gapStart;
    gapOk = true;
    i = end - 1;
  }
  return false;
}

/**
 * Whether the digits [start, end) may belong to a marked component: a decimal point or comma beside
 * them, a mark after them, or a hemisphere letter before them (within the gap from `gapStart`).
 */
function marked(text: string, start: number, end: number, gapStart: number): boolean {
  const before = text.charCodeAt(start - 1);
  const after = text.charCodeAt(end);
  if ((before === 46 || before === 44) && isDigit(text.charCodeAt(start - 2))) return true;
  if ((after === 46 || after === 44) && isDigit(text.charCodeAt(end + 1))) return true;
  return MARK_AFTER.test(text.slice(end, end + 2)) || HEMISPHERE_BEFORE.test(text.slice(Math.max(gapStart, start - 3), start));
}

const SIGN = /[-+\u2212]/;
const BEFORE_NUMBER = /[\s"':=NSEW]/;
const LABEL_CHAR = /[A-Za-z_]/;
const TRAILING_LETTER = /\s?[NSEW]$/;
const LAT_LABEL = /^lat/i;
const DECIMAL = /[.,]/;
/** The longest label ("longitude") with its `_x` suffix. */
const LABEL_MAX_CHARS = 11;

/**
 * A position no component that holds the first digit at or after `from` can start before (-1: no
 * digit left). Walks back from that digit over what may precede it in a component: a sign, a
 * hemisphere letter, spaces, quotes, `:` or `=`, and a label's letters. A lower bound (it may walk
 * back further than a match starts), so the pattern finds the same matches as run from `from`.
 */
function earliestStart(text: string, from: number): number {
  let at = from;
  while (at < text.length && !isDigit(text.charCodeAt(at))) at++;
  if (at >= text.length) return -1;
  while (at > from && SIGN.test(text[at - 1] as string)) at--;
  while (at > from && BEFORE_NUMBER.test(text[at - 1] as string)) at--;
  for (let letters = 0; letters < LABEL_MAX_CHARS && at > from && LABEL_CHAR.test(text[at - 1] as string); letters++) at--;
  return at;
}

function point(lat: number, lon: number, start: number, end: number, offset: number): FoundPoint {
  return { lat, lon, start: start + offset, end: end + offset };
}

function toComponent(m: RegExpExecArray): Component | null {
  const [whole, label, leading, sign, degrees, degreeMark, minutes, seconds, trailing] = m;
  const hemisphere = leading ?? trailing;
  // With a hemisphere before the number, a letter after it starts the next one.
  const end = m.index + (leading !== undefined && trailing !== undefined ? whole.replace(TRAILING_LETTER, '').length : whole.length);
  const min = minutes === undefined ? 0 : Number(minutes);
  const sec = seconds === undefined ? 0 : Number(seconds);
  if (min >= 60 || sec >= 60) return null;
  const magnitude = Number((degrees as string).replace(',', '.')) + min / 60 + sec / 3600;
  const negative = hemisphere ? hemisphere === 'S' || hemisphere === 'W' : sign === '-' || sign === '\u2212';
  const labelAxis: Axis = label ? (LAT_LABEL.test(label) ? 'lat' : 'lon') : undefined;
  const hemisphereAxis: Axis = hemisphere ? (hemisphere === 'N' || hemisphere === 'S' ? 'lat' : 'lon') : undefined;
  if (labelAxis && hemisphereAxis && labelAxis !== hemisphereAxis) return null;
  return {
    start: m.index,
    end,
    deg: negative ? -magnitude : magnitude,
    axis: labelAxis ?? hemisphereAxis,
    labelled: label !== undefined,
    marked: label !== undefined || hemisphere !== undefined || degreeMark !== undefined || DECIMAL.test(degrees as string),
  };
}
