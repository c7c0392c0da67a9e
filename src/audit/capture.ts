/**
 * Capture metadata of a task's frames in harness-authored text (docs/audit.md): a capture time given
 * beyond the year and month the task files keep (a day, a time, an epoch timestamp in a capture
 * month), a frame's compass angle written to three decimals or more, the camera's make or model
 * from the task's meta. "July 2023" or `2023-07` is what geolab itself may say; "80°" is its own
 * feedback about the agent's heading: neither is a leak.
 *
 * The dates and decimal numbers of a text are found once, whatever the task (kept on the text's
 * scan); each task compares them with its own capture facts. Camera names are words of the task's
 * dictionary, found among the scan's words as towns are.
 */
import { phraseEnd, SHAPE, type ShapedRange, textPatterns } from './fingerprints.js';
import { checkCurrent, type TextScan } from './scan.js';
import type { AuditSession } from './session.js';
import { foldWord, wordHash, words } from './words.js';
import { withItem } from './text.js';
import type { CaptureFacts, Severity } from './types.js';

export interface CaptureHit {
  kind: 'capture_metadata';
  severity: Severity;
  start: number;
  end: number;
  evidence: string;
}

/** A date or time given at least to the day: the months it may fall in (both readings of 03/07/2023). */
interface DateMark {
  start: number;
  end: number;
  months: readonly string[];
  /** How it was read: "date", "date and time", "epoch seconds", "epoch milliseconds". */
  how: string;
  /** For an epoch timestamp, the UTC time it stands for. */
  iso?: string;
}

/** A number in compass range with three decimals or more. */
interface DecimalMark {
  start: number;
  end: number;
  value: number;
  decimals: number;
}

interface TextMarks {
  dates: readonly DateMark[];
  decimals: readonly DecimalMark[];
}

const NONE: readonly never[] = Object.freeze([]);
const NO_MARKS: TextMarks = Object.freeze({ dates: NONE, decimals: NONE });

/** A frame's compass angle counts from this many decimals: geolab's own feedback writes one at most. */
const COMPASS_DECIMALS_MIN = 3;

const YEAR = '((?:19|20)\\d{2})';
/**
 * 2023-07-14, 2023/07/14, 2023.07.14, with a time perhaps (2023-07-14T09:31:22Z, 2023-07-14 09:31);
 * in a file name or URL too (`pano_2023-07-14.jpg`): only digits around it make it part of another number.
 */
const ISO_DATE = new RegExp(
  `(?<![\\d.+/-])${YEAR}([-/.])(0?[1-9]|1[0-2])\\2(0?[1-9]|[12]\\d|3[01])((?:[T ](?:[01]\\d|2[0-3]):[0-5]\\d(?::[0-5]\\d(?:\\.\\d+)?)?(?:Z|[+-]\\d{2}:?\\d{2})?)?)(?!\\d|[-/.:]\\d)`,
  'g',
);
/** 20230714T093122Z. */
const BASIC_DATE_TIME = new RegExp(`(?<![\\d.+-])${YEAR}(0[1-9]|1[0-2])(0[1-9]|[12]\\d|3[01])T\\d{4,6}(?:Z|[+-]\\d{4})?(?!\\d)`, 'g');
/** 14.07.2023, 14/07/2023 or 07/14/2023: day and month in either order. */
const NUMERIC_DATE = new RegExp(`(?<![\\w.+/-])(\\d{1,2})([./-])(\\d{1,2})\\2${YEAR}(?![\\w]|[-/.]\\d)`, 'g');
const MONTHS = 'January February March April May June July August September October November December'.split(' ');
const MONTH = '(Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)';
/** 14 July 2023, 14th Jul. 2023, 14-Jul-2023. */
const DAY_MONTH_YEAR = new RegExp(`(?<![\\w.])(0?[1-9]|[12]\\d|3[01])(?:st|nd|rd|th)?(?:\\s+|-)${MONTH}\\.?,?(?:\\s+|-)${YEAR}(?!\\w)`, 'g');
/** July 14, 2023. */
const MONTH_DAY_YEAR = new RegExp(`(?<![\\w.])${MONTH}\\.?\\s+([1-9]|[12]\\d|3[01])(?:st|nd|rd|th)?,?\\s+${YEAR}(?!\\w)`, 'g');
/** Unix time in seconds (fraction allowed) or milliseconds, 2001 to 2033, in a file name too (`pano_1689327082000.jpg`). */
const EPOCH = /(?<![\d.+-])(1\d{9}(?:\d{3})?)(\.\d+)?(?!\d|[.,]\d)/g;
/** Degrees with three decimals or more, as a number of its own. */
const DECIMAL = new RegExp(`(?<![\\w.,-])(\\d{1,3}\\.(\\d{${COMPASS_DECIMALS_MIN},}))(?![\\d.]|,\\d)`, 'g');

function month(year: string, m: number): string {
  return `${year}-${String(m).padStart(2, '0')}`;
}

function monthOfName(name: string): number {
  return MONTHS.findIndex((full) => full.startsWith(name.slice(0, 3))) + 1;
}

/** The dates and compass-like decimals of a text, whatever the task (outside base64 payloads), kept with its patterns. */
function captureMarksIn(text: string, scan: TextScan): TextMarks {
  const patterns = textPatterns(text, scan);
  patterns.capture ??= findMarks(text, patterns.ranges);
  return patterns.capture as TextMarks;
}

function findMarks(text: string, ranges: readonly ShapedRange[]): TextMarks {
  let dates: DateMark[] | undefined;
  let decimals: DecimalMark[] | undefined;
  for (const { from, to, shapes } of ranges) {
    if ((shapes & (SHAPE.YEAR | SHAPE.EPOCH | SHAPE.DECIMALS)) === 0) continue;
    const part = from === 0 && to === text.length ? text : text.slice(from, to);
    const date = (start: number, length: number, months: readonly string[], how: string, iso?: string) => {
      dates = withItem(dates, { start: from + start, end: from + start + length, months, how, ...(iso ? { iso } : {}) });
    };
    if (shapes & SHAPE.YEAR) findDates(part, date);
    if (shapes & SHAPE.EPOCH) {
      for (const m of part.matchAll(EPOCH)) {
        const digits = m[1] as string;
        const ms = digits.length === 13 ? Number(digits) : Number(digits + (m[2] ?? '')) * 1000;
        const iso = new Date(ms).toISOString();
        date(m.index, m[0].length, [iso.slice(0, 7)], digits.length === 13 ? 'epoch milliseconds' : 'epoch seconds', iso.replace('.000Z', 'Z'));
      }
    }
    if (shapes & SHAPE.DECIMALS) {
      for (const m of part.matchAll(DECIMAL)) {
        const value = Number(m[1]);
        if (value <= 360) decimals = withItem(decimals, { start: from + m.index, end: from + m.index + m[0].length, value, decimals: (m[2] as string).length });
      }
    }
  }
  return dates || decimals ? { dates: dates ?? NONE, decimals: decimals ?? NONE } : NO_MARKS;
}

type OnDate = (start: number, length: number, months: readonly string[], how: string) => void;

/** Dates given to the day in any of the forms above. */
function findDates(part: string, date: OnDate): void {
  for (const m of part.matchAll(ISO_DATE)) date(m.index, m[0].length, [month(m[1] as string, Number(m[3]))], m[5] ? 'date and time' : 'date');
  for (const m of part.matchAll(BASIC_DATE_TIME)) date(m.index, m[0].length, [month(m[1] as string, Number(m[2]))], 'date and time');
  for (const m of part.matchAll(NUMERIC_DATE)) {
    const [a, b] = [Number(m[1]), Number(m[3])];
    const months = [...new Set([a, b].filter((n) => n >= 1 && n <= 12))].map((n) => month(m[4] as string, n));
    if (months.length && a >= 1 && b >= 1 && a <= 31 && b <= 31) date(m.index, m[0].length, months, 'date');
  }
  for (const m of part.matchAll(DAY_MONTH_YEAR)) date(m.index, m[0].length, [month(m[3] as string, monthOfName(m[2] as string))], 'date');
  for (const m of part.matchAll(MONTH_DAY_YEAR)) date(m.index, m[0].length, [month(m[3] as string, monthOfName(m[1] as string))], 'date');
}

/** Values of meta.camera_make/camera_model that name no camera. */
const NO_CAMERA = new Set(['', 'none', 'unknown', 'n/a', 'na', 'null', 'undefined', 'other', 'generic', 'synthetic']);

interface CameraName {
  words: string[];
  field: 'camera_model' | 'camera_make';
  /** The meta fields it comes from, as the evidence quotes them: "meta.camera_model: GoPro Max". */
  quoted: string;
  /** Written with a capital, as the meta writes it: "Apple" is a camera, "apple" a fruit. */
  capital: boolean;
}

/**
 * A task's capture facts, compiled: its camera names are words of a dictionary (registered before
 * the task's texts are scanned, see scan.ts), its months and angles are compared with a text's marks.
 */
export class CaptureDictionary {
  private readonly months: ReadonlySet<string>;
  private readonly angles: readonly number[];
  /** Camera names by the hash of their first word, the model before the make (it is longer). */
  private readonly cameras = new Map<number, CameraName[]>();

  constructor(
    capture: CaptureFacts | undefined,
    /** The session whose dictionaries its words are registered in. */
    private readonly session: AuditSession,
  ) {
    this.months = new Set(capture?.months ?? []);
    // An angle in whole degrees has no digits to give away beyond geolab's own "80°" (0 is also the schema's default).
    this.angles = (capture?.compassAngles ?? []).filter((a) => !Number.isInteger(a));
    for (const name of cameraNames(capture?.cameraMake, capture?.cameraModel)) {
      const hash = wordHash(name.words[0] as string);
      session.addDictionaryWord(hash);
      this.cameras.set(hash, [...(this.cameras.get(hash) ?? []), name].sort((a, b) => b.words.length - a.words.length));
    }
  }

  /** What a text says of the task's capture. */
  hits(text: string, scan: TextScan): readonly CaptureHit[] {
    let hits: CaptureHit[] | undefined;
    const marks = this.months.size || this.angles.length ? captureMarksIn(text, scan) : NO_MARKS;
    for (const d of marks.dates) {
      const month = d.months.find((m) => this.months.has(m));
      if (!month) continue;
      const as = d.iso ? `${d.how} for ${d.iso}` : `a ${d.how}`;
      hits = withItem(hits, { kind: 'capture_metadata', severity: 'medium', start: d.start, end: d.end, evidence: `${as} in the frames' capture month (${month}): the capture time beyond its month` });
    }
    for (const n of marks.decimals) {
      const angle = this.angles.find((a) => Math.abs(a - n.value) < 10 ** -n.decimals);
      if (angle === undefined) continue;
      hits = withItem(hits, { kind: 'capture_metadata', severity: 'medium', start: n.start, end: n.end, evidence: `a frame's compass angle (${angle}) to ${n.decimals} decimals` });
    }
    if (this.cameras.size && scan.count) {
      checkCurrent(scan, this.session);
      for (let i = 0; i < scan.count; i++) {
        const names = this.cameras.get(scan.hash(i));
        if (!names) continue;
        const start = scan.start(i);
        const first = text[start] as string;
        for (const name of names) {
          if (name.capital && first === first.toLowerCase()) continue;
          const end = phraseEnd(text, start, scan.end(i), name.words);
          if (end < 0) continue;
          const what = name.field === 'camera_model' ? 'camera model' : 'camera make';
          hits = withItem(hits, { kind: 'capture_metadata', severity: 'low', start, end, evidence: `the ${what} of the task's frames (${name.quoted})` });
          break;
        }
      }
    }
    return hits ? hits.sort((a, b) => a.start - b.start) : NONE;
  }
}

/**
 * The names a text may give the camera by: the model with its make ("GoPro MAX"), the model alone
 * where it says more than a word could (two words or a digit: "Pilot One", "HERO9"; not "MAX",
 * "X3"), and the make alone. Values that name no camera ("none") and names under three letters are left out.
 */
function cameraNames(make: string | undefined, model: string | undefined): CameraName[] {
  const names: CameraName[] = [];
  const add = (text: string, field: CameraName['field'], quoted: string) => {
    const folded = words(text).map(foldWord);
    if (folded.join('').length >= 3) names.push({ words: folded, field, quoted, capital: /^\p{Lu}/u.test(text) });
  };
  const makeName = make && !NO_CAMERA.has(make.toLowerCase()) ? make : undefined;
  const modelName = model && !NO_CAMERA.has(model.toLowerCase()) ? model : undefined;
  if (modelName) {
    const withMake = makeName && !foldWord(modelName).startsWith(foldWord(makeName)) ? `${makeName} ${modelName}` : modelName;
    if (withMake !== modelName) add(withMake, 'camera_model', `meta.camera_make: ${makeName}, meta.camera_model: ${modelName}`);
    if (withMake === modelName || /\s|\d/.test(modelName.trim())) add(modelName, 'camera_model', `meta.camera_model: ${modelName}`);
  }
  if (makeName) add(makeName, 'camera_make', `meta.camera_make: ${makeName}`);
  return names;
}
