/**
 * Country fingerprints (docs/audit.md): what says which country a place is in without naming it. A
 * calling code in a phone number (`+995 32 2 12 34 56`, `00381 11 ...`), a postcode in a format only
 * one country uses (`SW1A 1AA`, `K1A 0B1`, `1012 AB`), an international vehicle code on an oval,
 * sticker or plate band (`oval: SRB`, `sticker D`), a language only the country speaks officially
 * (`Hebrew`, `Tok Pisin`). The country-code top-level domain of a host is places.ts's.
 *
 * Found once per text, whatever the task (kept on the text's scan); a task keeps those that point
 * at its country. Each pattern needs a shape of characters most texts lack (`+` and a digit, a
 * capital and a digit, ...; one pass over the text finds which it has), a label word or a
 * language's first word among the scan's words: most texts run none of the patterns.
 */
import { countryByIso, countryByName } from '../geo/countries.js';
import { CALLING_PREFIXES, LANGUAGES } from './fingerprint-data.js';
import { checkCurrent, type TextScan } from './scan.js';
import type { AuditSession, SharedWords } from './session.js';
import { foldWord, sameWord, wordEnd, wordHash, words as wordsOf, wordStartAfter } from './words.js';
import { scannableRanges, withItem } from './text.js';
import type { Severity } from './types.js';

/** A fingerprint in a text: the countries (Natural Earth ADMIN names) it belongs to, and what it is. */
export interface FingerprintMention {
  start: number;
  end: number;
  /** The part of the text that names the countries: "+995", "SW1A 1AA", "SRB", "Hebrew". */
  shown: string;
  /** "calling code", "postcode format", "international vehicle code", "official language", "writing system". */
  what: string;
  countries: readonly string[];
}

export interface FingerprintHit {
  kind: 'fingerprint';
  severity: Severity;
  start: number;
  end: number;
  evidence: string;
}

const NONE: readonly never[] = Object.freeze([]);

/**
 * Shapes of characters the fingerprint and capture patterns start from, as bits. One pass over a
 * text's characters says which patterns can match at all: most texts run none of them.
 */
export const SHAPE = {
  /** `+` and a digit, perhaps after a space. */
  PLUS_DIGIT: 1,
  /** A run of digits starting with `00`. */
  DOUBLE_ZERO: 2,
  /** A capital letter and a digit, perhaps with a hyphen between (UK, Canadian, Irish, Argentine, prefixed postcodes). */
  UPPER_DIGIT: 4,
  /** Digit, hyphen, digit. */
  DIGIT_DASH_DIGIT: 8,
  /** Four digits or more, then two capitals (perhaps after a space). */
  DIGITS_CAPITALS: 16,
  /** A run of 4 or 8 digits starting with 19 or 20: a year, or a compact date. */
  YEAR: 32,
  /** A run of 10 or 13 digits starting with 1: Unix seconds or milliseconds. */
  EPOCH: 64,
  /** A digit, a dot and three digits or more. */
  DECIMALS: 128,
  /** The Japanese postal mark 〒. */
  POSTMARK: 256,
} as const;

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

function isCapital(c: number): boolean {
  return c >= 65 && c <= 90;
}

/** A part of a text outside base64 payloads of data URLs, and the SHAPE bits it has. */
export interface ShapedRange {
  from: number;
  to: number;
  shapes: number;
}

/**
 * What the patterns of this module and capture.ts found in one text, whatever the task: one value
 * kept on the text's scan for both (a scan keeps two values without allocating; see scan.ts).
 */
export interface TextPatterns {
  readonly ranges: readonly ShapedRange[];
  fingerprints?: readonly FingerprintMention[];
  /** capture.ts's dates and decimals, once it has looked. */
  capture?: unknown;
}

/** The key textPatterns keeps its answer under on a scan. */
const PATTERNS = {};
const WHOLE: readonly [number, number][] = [[0, Number.MAX_SAFE_INTEGER]];

/** A text's patterns: its ranges worth searching with their shapes, worked out once per text. */
export function textPatterns(text: string, scan: TextScan): TextPatterns {
  let found = scan.kept(PATTERNS) as TextPatterns | undefined;
  if (!found) {
    const ranges = text.includes(';base64,') ? scannableRanges(text) : WHOLE;
    found = {
      ranges: ranges.map(([from, upTo]) => {
        const to = Math.min(upTo, text.length);
        return { from, to, shapes: shapesOf(text, from, to) };
      }),
    };
    scan.keep(PATTERNS, found);
  }
  return found;
}

/**
 * The SHAPE bits of text[from, to). Runs over every text a task's prompts hold: letters (most
 * characters) cost one comparison, and digits are looked at where a run of them starts and ends.
 */
function shapesOf(text: string, from: number, to: number): number {
  let shapes = 0;
  let run = -1;
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c > 57) {
      if (c === 0x3012) shapes |= SHAPE.POSTMARK;
      else if (run >= 0) {
        shapes |= runShapes(text, run, i, c);
        run = -1;
      }
      continue;
    }
    if (c >= 48) {
      if (run < 0) {
        run = i;
        const before = i > from ? text.charCodeAt(i - 1) : 0;
        if (isCapital(before) || (before === 45 && i > from + 1 && isCapital(text.charCodeAt(i - 2)))) shapes |= SHAPE.UPPER_DIGIT;
      }
      continue;
    }
    if (run >= 0) {
      shapes |= runShapes(text, run, i, c);
      run = -1;
    }
    if (c === 43) {
      const next = text.charCodeAt(i + 1);
      if (isDigit(next) || (next === 32 && isDigit(text.charCodeAt(i + 2)))) shapes |= SHAPE.PLUS_DIGIT;
    }
  }
  return run >= 0 ? shapes | runShapes(text, run, to, 0) : shapes;
}

/** The shapes of the run of digits [run, end) and the character `c` after it. */
function runShapes(text: string, run: number, end: number, c: number): number {
  let shapes = 0;
  const length = end - run;
  const first = text.charCodeAt(run);
  const second = length > 1 ? text.charCodeAt(run + 1) : 0;
  if (first === 48 && second === 48) shapes |= SHAPE.DOUBLE_ZERO;
  if ((length === 4 || length === 8) && ((first === 49 && second === 57) || (first === 50 && second === 48))) shapes |= SHAPE.YEAR;
  if ((length === 10 || length === 13) && first === 49) shapes |= SHAPE.EPOCH;
  if (length >= 3 && text.charCodeAt(run - 1) === 46 && isDigit(text.charCodeAt(run - 2))) shapes |= SHAPE.DECIMALS;
  if (length >= 4 && (c === 32 ? isCapital(text.charCodeAt(end + 1)) && isCapital(text.charCodeAt(end + 2)) : isCapital(c) && isCapital(text.charCodeAt(end + 1)))) {
    shapes |= SHAPE.DIGITS_CAPITALS;
  }
  if (c === 45 && isDigit(text.charCodeAt(end + 1))) shapes |= SHAPE.DIGIT_DASH_DIGIT;
  return shapes;
}

/** What names countries by ISO alpha-2 codes, as the project's countries (several codes may fold into one). */
function admins(isos: readonly string[]): string[] {
  const found = new Set<string>();
  for (const iso of isos) {
    const row = countryByIso(iso);
    if (row) found.add(row.admin);
  }
  return [...found].sort();
}

// ---------------------------------------------------------------------------------------------
// Calling codes

/** Calling codes by prefix: data, built once per process and the same for every run (not AuditSession state). */
let prefixes: Map<string, readonly string[]> | undefined;
/** The longest prefix in the table: a calling code and, in zones 1 and 7, an area code. */
let prefixMax = 0;

function callingPrefixes(): Map<string, readonly string[]> {
  if (!prefixes) {
    prefixes = new Map();
    for (const line of CALLING_PREFIXES.trim().split('\n')) {
      const [isos = '', ...codes] = line.split(' ');
      const countries = admins(isos.split(','));
      if (!countries.length) continue;
      for (const code of codes) {
        prefixes.set(code, countries);
        prefixMax = Math.max(prefixMax, code.length);
      }
    }
  }
  return prefixes;
}

/** Where an international number may start: `+` or `00`, not inside a word, a number or an offset (`UTC+3`). */
const PHONE_START = /(?<![\w+.,/\\-])(?:\+|00(?=[ \u00a0]?[1-9]))/g;
/** E.164 numbers have at most 15 digits; fewer than 8 after the prefix is no phone number of any country. */
const PHONE_DIGITS_MIN = 8;
const PHONE_DIGITS_MAX = 15;

/**
 * The phone number starting at a `+` or `00` at `at`: its end and digits (an `x` standing for a
 * masked digit), or null. Digits come in groups split by one space, hyphen or slash, or by
 * brackets; a dot or a letter ends it (`+44.8123` is a coordinate, not a number).
 */
function phoneAt(text: string, at: number, to: number): { end: number; digits: string } | null {
  let k = at + (text.charCodeAt(at) === 0x2b ? 1 : 2);
  let digits = '';
  let end = -1;
  let gap = 0;
  while (k < to) {
    const c = text.charCodeAt(k);
    if (c >= 48 && c <= 57) {
      digits += String.fromCharCode(c);
      end = k + 1;
      gap = 0;
    } else if ((c === 0x78 || c === 0x58) && digits.length >= 3) {
      digits += 'x';
      end = k + 1;
      gap = 0;
    } else if (c === 0x20 || c === 0xa0 || c === 0x2d || c === 0x2f || c === 0x28 || c === 0x29) {
      if (++gap > 3 || digits.length === 0) break;
    } else break;
    k++;
    if (digits.length > PHONE_DIGITS_MAX) return null;
  }
  if (end < 0 || digits.length < PHONE_DIGITS_MIN) return null;
  // A letter, a digit after a dot or comma, or more word characters: an id or a decimal, not a number.
  const next = text.charCodeAt(end);
  if (/[\p{L}\p{N}_]/u.test(text[end] ?? '') || ((next === 0x2e || next === 0x2c) && /\d/.test(text[end + 1] ?? ''))) return null;
  const real = digits.replace(/x/g, '');
  const masked = digits.indexOf('x');
  if (real.length < 5 || (masked >= 0 && masked < 3)) return null;
  return { end, digits };
}

/** Before a calling code written alone: a label that says it is one. */
const CALLING_LABEL = /(?:(?:calling|dialling|dialing|country|phone|telephone|international)[ _-]?(?:code|prefix)|tel\.?|phone|telephone)\s*[:=]?\s*$/i;

/**
 * A calling code written alone, `+381` without the number: counted in brackets, `(+381)`, or after a
 * label ("calling code +995", "tel.: +381"); the digits must be a whole calling code.
 */
function labelledCode(text: string, at: number, to: number, table: Map<string, readonly string[]>): { end: number; digits: string } | null {
  if (text.charCodeAt(at) !== 0x2b) return null;
  let end = at + 1;
  while (end < to && end - at <= 4 && isDigit(text.charCodeAt(end))) end++;
  const digits = text.slice(at + 1, end);
  if (digits.length === 0 || digits.length > 3 || isDigit(text.charCodeAt(end)) || /[\p{L}.,]/u.test(text[end] ?? '') || !table.has(digits)) return null;
  const bracketed = text[at - 1] === '(' && text[end] === ')';
  if (!bracketed && !CALLING_LABEL.test(text.slice(Math.max(0, at - 32), at))) return null;
  return { end: bracketed ? end + 1 : end, digits };
}

function callingCodes(text: string, from: number, to: number, found: FingerprintMention[] | undefined): FingerprintMention[] | undefined {
  const table = callingPrefixes();
  PHONE_START.lastIndex = from;
  for (let m = PHONE_START.exec(text); m !== null && m.index < to; m = PHONE_START.exec(text)) {
    const phone = phoneAt(text, m.index, to) ?? labelledCode(text, m.index, to, table);
    if (!phone) continue;
    const known = phone.digits.split('x')[0] as string;
    for (let n = Math.min(prefixMax, known.length); n > 0; n--) {
      const code = known.slice(0, n);
      const countries = table.get(code);
      if (!countries) continue;
      // In zones 1 and 7 the area code decides the country: "+1 876", "+7 727".
      const zoned = n > 1 && (code[0] === '1' || code[0] === '7');
      const shown = zoned ? `+${code[0]} ${known.slice(1, 4)}` : `+${code}`;
      // "(+381) 11 ...": the bracket that opens the code is the number's.
      const start = text[m.index - 1] === '(' && text.slice(m.index, phone.end).includes(')') ? m.index - 1 : m.index;
      found = withItem(found, { start, end: phone.end, shown, what: zoned ? 'calling and area code' : 'calling code', countries });
      break;
    }
    PHONE_START.lastIndex = phone.end;
  }
  return found;
}

// ---------------------------------------------------------------------------------------------
// Postcodes

/** UK postcode areas (and the Crown Dependencies' GY, JE, IM, which are theirs). */
const UK_AREAS = new Set(
  `AB AL B BA BB BD BF BH BL BN BR BS BT BX CA CB CF CH CM CO CR CT CV CW DA DD DE DG DH DL DN DT DY E EC EH EN EX FK FY G GL GU GY HA HD
HG HP HR HS HU HX IG IM IP IV JE KA KT KW KY L LA LD LE LL LN LS LU M ME MK ML N NE NG NN NP NR NW OL OX PA PE PH PL PO PR RG RH RM S
SA SE SG SK SL SM SN SO SP SR SS ST SW SY TA TD TF TN TQ TR TS TW UB W WA WC WD WF WN WR WS WV YO ZE`.split(/\s+/),
);
const CROWN_DEPENDENCIES: Readonly<Record<string, string>> = { GY: 'GG', JE: 'JE', IM: 'IM' };

/**
 * Two capital letters after four digits that are units, eras, bearings and abbreviations rather
 * than a Dutch postcode's letters ("2024 AD", "1200 PM", "4000 KM", "1500 NE of"); SA, SD and SS
 * are not used by the Dutch post.
 */
const NOT_DUTCH = new Set(
  'AD BC CE AM PM KM MB GB KB TB MW KW GW HZ PX CM MM DB EU US UK HP CC ML KG LB MG XP MP AH DC AC VA BP ID NO OK PS TV SA SD SS UT NE NW SE SW'.split(' '),
);

/** A capitalised word after a postcode: the town an address names after it ("00-950 Warszawa"). */
const TOWN_AFTER = /^[ \u00a0]{1,2}\p{Lu}\p{Ll}/u;
/** Japanese script after a postcode: the address it starts. */
const JAPANESE_AFTER = /^[ \u3000]*[\u3040-\u30ff\u4e00-\u9fff]/;
const POSTCODE_LABEL = /(?:post(?:al)?[ _-]?code|postcode|zip(?:[ _-]?code)?|plz|cep|kod pocztowy|código postal|〒)["']?\s*[:=]?\s*["']?$/i;

interface PostcodeFormat {
  /** The SHAPE it starts from: the pattern runs only on texts that have it. */
  shape: number;
  pattern: RegExp;
  /** The country's ISO code, from the match (null: not a postcode after all). */
  country: (m: RegExpExecArray) => string | null;
  /** What must follow (a town, Japanese script) unless a postcode label comes before. */
  after?: RegExp;
  /** `after` is not needed when one of the pattern's groups of digits starts with 0. */
  unlessZero?: boolean;
}

/**
 * Postcode formats of one country each, written as that country's post writes them (facts of the
 * national formats; see docs/audit.md). Plain four- or five-digit codes are everybody's and are left out.
 */
const POSTCODES: readonly PostcodeFormat[] = [
  // United Kingdom: outward code (area + district), space, inward code (no C I K M O V in its letters).
  { shape: SHAPE.UPPER_DIGIT, pattern: /(?<![\w-])([A-Z]{1,2})\d[A-Z\d]? \d[ABD-HJLNP-UW-Z]{2}(?![\w-])/g, country: (m) => (UK_AREAS.has(m[1] as string) ? (CROWN_DEPENDENCIES[m[1] as string] ?? 'GB') : null) },
  { shape: SHAPE.UPPER_DIGIT, pattern: /(?<![\w-])GX11 1AA(?![\w-])/g, country: () => 'GI' },
  // Canada: letter digit letter, space, digit letter digit (no D F I O Q U).
  { shape: SHAPE.UPPER_DIGIT, pattern: /(?<![\w-])[ABCEGHJ-NPRSTVXY]\d[ABCEGHJ-NPRSTV-Z] \d[ABCEGHJ-NPRSTV-Z]\d(?![\w-])/g, country: () => 'CA' },
  // Ireland's Eircode: routing key, space, four characters of its alphabet with a letter and a digit.
  { shape: SHAPE.UPPER_DIGIT, pattern: /(?<![\w-])(?:[AC-FHKNPRTV-Y]\d{2}|D6W) (?=[0-9]*[AC-FHKNPRTV-Y])(?=[A-Z]*\d)[0-9AC-FHKNPRTV-Y]{4}(?![\w-])/g, country: () => 'IE' },
  // Argentina's CPA: province letter, four digits, three letters.
  { shape: SHAPE.UPPER_DIGIT, pattern: /(?<![\w-])[A-HJ-NP-Z]\d{4}[A-Z]{3}(?![\w-])/g, country: () => 'AR' },
  // Netherlands: four digits (no leading 0), two letters.
  { shape: SHAPE.DIGITS_CAPITALS, pattern: /(?<![\w.,+/-])[1-9]\d{3} ?([A-Z]{2})(?![\w-])/g, country: (m) => (NOT_DUTCH.has(m[1] as string) ? null : 'NL') },
  // Brazil's CEP and the United States' ZIP+4.
  { shape: SHAPE.DIGIT_DASH_DIGIT, pattern: /(?<![\w.,+/-])\d{5}-\d{3}(?![\w-]|[.,]\d)/g, country: () => 'BR' },
  { shape: SHAPE.DIGIT_DASH_DIGIT, pattern: /(?<![\w.,+/-])\d{5}-\d{4}(?![\w-]|[.,]\d)/g, country: () => 'US' },
  // Poland (00-950) and Portugal (1100-048): ranges of numbers look the same, so a town must follow,
  // unless a part starts with 0 as no range's does.
  { shape: SHAPE.DIGIT_DASH_DIGIT, pattern: /(?<![\w.,+/-])(\d{2})-(\d{3})(?![\w-]|[.,]\d)/g, country: () => 'PL', after: TOWN_AFTER, unlessZero: true },
  { shape: SHAPE.DIGIT_DASH_DIGIT, pattern: /(?<![\w.,+/-])\d{4}-(\d{3})(?![\w-]|[.,]\d)/g, country: () => 'PT', after: TOWN_AFTER, unlessZero: true },
  // A postcode after its country's letters and a hyphen, then the town: "D-10117 Berlin", "CH-8001 Zürich", "SE-114 55 Stockholm".
  { shape: SHAPE.UPPER_DIGIT, pattern: /(?<![\w-])([A-Z]{1,3})-(?:\d{4,5}|\d{3} \d{2})(?![\w-]|[.,]\d)/g, country: (m) => postalPrefixCountry(m[1] as string), after: TOWN_AFTER },
  // Japan: 〒 and three digits, hyphen, four; without the mark, an address in Japanese must follow.
  { shape: SHAPE.POSTMARK, pattern: /〒[ \u3000]?\d{3}-\d{4}(?!\d)/g, country: () => 'JP' },
  { shape: SHAPE.DIGIT_DASH_DIGIT, pattern: /(?<![\w.,+/〒-])\d{3}-\d{4}(?![\w-]|[.,]\d)/g, country: () => 'JP', after: JAPANESE_AFTER },
];

/** The country of a postcode's prefix: an ISO alpha-2 code, else a vehicle code (D, A, F, I, SLO...). */
function postalPrefixCountry(prefix: string): string | null {
  if (prefix.length === 2 && countryByIso(prefix)) return prefix;
  const vehicle = vehicleIsos().get(prefix);
  return vehicle ?? null;
}

function postcodes(text: string, from: number, to: number, shapes: number, found: FingerprintMention[] | undefined): FingerprintMention[] | undefined {
  const part = from === 0 && to === text.length ? text : text.slice(from, to);
  for (const format of POSTCODES) {
    if ((shapes & format.shape) === 0) continue;
    format.pattern.lastIndex = 0;
    for (let m = format.pattern.exec(part); m !== null; m = format.pattern.exec(part)) {
      const iso = format.country(m);
      if (!iso) continue;
      const end = m.index + m[0].length;
      const zero = format.unlessZero && m.slice(1).some((group) => group?.startsWith('0'));
      if (format.after && !zero && !format.after.test(part.slice(end, end + 8)) && !POSTCODE_LABEL.test(part.slice(Math.max(0, m.index - 24), m.index))) continue;
      const countries = admins([iso]);
      if (countries.length) found = withItem(found, { start: from + m.index, end: from + end, shown: m[0], what: 'postcode format', countries });
    }
  }
  return found;
}

// ---------------------------------------------------------------------------------------------
// Vehicle codes

/**
 * International distinguishing signs of vehicles (the ovals of the 1949 and 1968 road traffic
 * conventions, as registered with the UN) by the ISO code of their country: code ISO, ...
 */
const VEHICLE_CODES = `A AT;AFG AF;AL AL;AM AM;AND AD;ANG AO;AUS AU;AX AX;AZ AZ;B BE;BD BD;BDS BB;BF BF;BG BG;BH BZ;BIH BA;BOL BO;BR BR;
BRN BH;BRU BN;BS BS;BY BY;C CU;CAM CM;CDN CA;CH CH;CI CI;CL LK;CO CO;CR CR;CY CY;CZ CZ;D DE;DK DK;DOM DO;DY BJ;DZ DZ;E ES;EAK KE;EAT TZ;
EAU UG;EC EC;ER ER;ES SV;EST EE;ET EG;ETH ET;F FR;FIN FI;FJI FJ;FL LI;FO FO;GB GB;GBA GG;GBG GG;GBJ JE;GBM IM;GBZ GI;GCA GT;GE GE;GH GH;
GR GR;GUY GY;H HU;HK HK;HN HN;HR HR;I IT;IL IL;IND IN;IR IR;IRL IE;IRQ IQ;IS IS;J JP;JA JM;JOR JO;K KH;KS KG;KSA SA;KWT KW;KZ KZ;L LU;LAO LA;
LAR LY;LB LR;LS LS;LT LT;LV LV;M MT;MA MA;MAL MY;MC MC;MD MD;MEX MX;MGL MN;MNE ME;MOC MZ;MS MU;MW MW;N NO;NAM NA;NEP NP;NIC NI;NL NL;
NMK MK;NZ NZ;OM OM;P PT;PA PA;PE PE;PK PK;PL PL;PNG PG;PY PY;Q QA;RA AR;RB BW;RC TW;RCA CF;RCB CG;RCH CL;RG GN;RH HT;RI ID;RIM MR;RKS XK;
RL LB;RM MG;RMM ML;RN NE;RO RO;ROK KR;ROU UY;RP PH;RSM SM;RU BI;RUS RU;RWA RW;S SE;SD SZ;SGP SG;SK SK;SLO SI;SME SR;SN SN;SO SO;SRB RS;
SUD SD;SY SC;SYR SY;T TH;TCH TD;TG TG;TJ TJ;TM TM;TN TN;TR TR;TT TT;UA UA;UAE AE;USA US;UZ UZ;V VA;VN VN;WAG GM;WAL SL;WAN NG;WD DM;WG GD;
WL LC;WS WS;WV VC;YAR YE;YV VE;Z ZM;ZA ZA;ZW ZW;UK GB`;

/** Data, built once per process and the same for every run (not AuditSession state). */
let vehicleCodes: Map<string, string> | undefined;

/** ISO codes by vehicle code. */
function vehicleIsos(): Map<string, string> {
  if (!vehicleCodes) {
    vehicleCodes = new Map();
    for (const pair of VEHICLE_CODES.split(';')) {
      const [sign = '', iso = ''] = pair.trim().split(' ');
      vehicleCodes.set(sign, iso);
    }
  }
  return vehicleCodes;
}

function vehicleCountries(code: string): readonly string[] | undefined {
  const iso = vehicleIsos().get(code);
  const countries = iso ? admins([iso]) : [];
  return countries.length ? countries : undefined;
}

/**
 * Words that say a code is a vehicle's country: only after (or before) one is a capital letter or
 * three a code. Words of the fingerprint dictionary: a text none of whose words is one is not searched.
 */
const VEHICLE_WORDS = 'oval ovals sticker stickers band euroband plate plates nationality distinguishing vehicle registration'.split(' ').map(wordHash);
const VEHICLE_LABEL =
  /\b(?:(oval|sticker|euro-?band|(?:blue|eu|euro|country|plate) band|nationality (?:sign|code|plate|sticker|letters?)|distinguishing (?:sign|mark|code|letters?)|(?:international )?vehicle (?:code|sign|letters?)|(?:international )?registration (?:code|letters?)|country (?:code|letters?|identifier|oval|sticker) on (?:the |its |a )?plates?)|(plates?))\b/gi;
/** After a label: a colon, or a few words ("with the letter"), then the code in capitals, perhaps quoted or bracketed. */
const CODE_AFTER_LABEL = /(?:\s*[:=]\s*|\s+(?:(?:with|showing|shows|reading|reads|says|saying|bearing|marked|of)\s+)?(?:(?:the|a|an)\s+)?(?:(?:letters?|code|band)\s+)?)(["'([]?)([A-Z]{1,3})(["')\]]?)(?![\p{L}\p{N}])/uy;
const CODE_BEFORE_WORD = /(?<![\p{L}\p{N}])([A-Z]{1,3})[ -](?:oval|sticker|euroband|plates?)\b/gu;
/** Letters that are English words (a plate, I saw): a code only quoted, bracketed or after a colon. */
const WORD_LETTERS = new Set(['A', 'I']);
/**
 * After "plate", a code must stand alone ("plate: NL.", "plates with D band") or be its band before
 * the registration ("plate: F AB-123-CD"); "plate: B-MW 123" is the plate's own letters.
 */
const ALONE_AFTER_PLATE = /^(?:\s*(?:$|[.,;)\]]|(?:band|sticker|oval|code|letters?)\b)| [A-Z0-9]{1,4}(?:[- ][A-Z0-9]{1,4}){1,3}(?![\w-]))/;

function vehicleCodesIn(text: string, from: number, to: number, found: FingerprintMention[] | undefined): FingerprintMention[] | undefined {
  const part = from === 0 && to === text.length ? text : text.slice(from, to);
  VEHICLE_LABEL.lastIndex = 0;
  for (let label = VEHICLE_LABEL.exec(part); label !== null; label = VEHICLE_LABEL.exec(part)) {
    CODE_AFTER_LABEL.lastIndex = label.index + label[0].length;
    const m = CODE_AFTER_LABEL.exec(part);
    if (!m) continue;
    const [whole, open = '', code = '', close = ''] = m;
    const marked = open !== '' || close !== '' || /[:=]/.test(whole);
    if (WORD_LETTERS.has(code) && !marked) continue;
    const end = m.index + whole.length;
    if (label[2] && !open && !ALONE_AFTER_PLATE.test(part.slice(end, end + 12))) continue;
    const countries = vehicleCountries(code);
    if (!countries) continue;
    const start = from + end - close.length - code.length;
    found = withItem(found, { start, end: start + code.length, shown: code, what: 'international vehicle code', countries });
  }
  CODE_BEFORE_WORD.lastIndex = 0;
  for (let m = CODE_BEFORE_WORD.exec(part); m !== null; m = CODE_BEFORE_WORD.exec(part)) {
    const code = m[1] as string;
    const countries = WORD_LETTERS.has(code) ? undefined : vehicleCountries(code);
    if (countries) found = withItem(found, { start: from + m.index, end: from + m.index + code.length, shown: code, what: 'international vehicle code', countries });
  }
  return found;
}

// ---------------------------------------------------------------------------------------------
// Languages

interface Language {
  name: string;
  what: 'official language' | 'writing system';
  /** Folded words (see scan.ts foldWord). */
  words: string[];
  countries: readonly string[];
}

/** Data, the same for every run: built once per process, its words added to each session's tables (see session.ts). */
let languages: Map<number, Language[]> | undefined;
let fingerprintWords: SharedWords | undefined;

/** Writing systems of one country or two (facts of the scripts' use; "Georgian script" is the lexicon's demonym). */
const SCRIPTS = 'Hangul|KP,KR;Hiragana|JP;Katakana|JP;Thaana|MV;Mkhedruli|GE;Ethiopic|ER,ET;Tifinagh|DZ,MA';
/** Other names of official languages, which the data names otherwise (Filipino, Persian, Sinhala, Indonesian). */
const LANGUAGE_NAMES = 'Tagalog|PH;Farsi|IR;Sinhalese|LK;Bahasa Indonesia|ID';

/**
 * Makes the language dictionary, if not made yet, and adds its words and the vehicle words to the
 * session's dictionaries: before any text is scanned for them (a scan keeps only the words some
 * dictionary of its session holds).
 */
export function loadFingerprints(session: AuditSession): void {
  session.addShared(fingerprintWords ?? makeLanguages());
}

/** The language dictionary; names that are also a country's name (Tonga, Nauru) are the country lexicon's. */
function makeLanguages(): SharedWords {
  languages = new Map();
  const words: number[] = [...VEHICLE_WORDS];
  const entries = [
    ...LANGUAGES.trim()
      .split('\n')
      .map((line) => ({ line, what: 'official language' as const })),
    ...LANGUAGE_NAMES.split(';').map((line) => ({ line, what: 'official language' as const })),
    ...SCRIPTS.split(';').map((line) => ({ line, what: 'writing system' as const })),
  ];
  for (const { line, what } of entries) {
    const [name = '', isos = ''] = line.split('|');
    if (countryByName(name)) continue;
    const countries = admins(isos.split(','));
    const names = wordsOf(name).map(foldWord);
    if (!countries.length || !names.length) continue;
    const hash = wordHash(names[0] as string);
    words.push(hash);
    const list = languages.get(hash) ?? [];
    list.push({ name, what, words: names, countries });
    list.sort((a, b) => b.words.length - a.words.length);
    languages.set(hash, list);
  }
  fingerprintWords = { words, codes: [] };
  return fingerprintWords;
}

/** Where the phrase of these folded words ends if it starts at the word [start, end) of the text, else -1. */
export function phraseEnd(text: string, start: number, end: number, words: readonly string[]): number {
  if (!sameWord(text, start, end, words[0] as string)) return -1;
  let last = end;
  for (let k = 1; k < words.length; k++) {
    const next = wordStartAfter(text, last, 1);
    if (next < 0) return -1;
    last = wordEnd(text, next);
    if (!sameWord(text, next, last, words[k] as string)) return -1;
  }
  return last;
}

function hasVehicleWord(scan: TextScan): boolean {
  for (let i = 0; i < scan.count; i++) if (VEHICLE_WORDS.includes(scan.hash(i))) return true;
  return false;
}

/** Language names are proper nouns: written with a capital. */
function languagesIn(text: string, scan: TextScan, found: FingerprintMention[] | undefined): FingerprintMention[] | undefined {
  const table = languages as Map<number, Language[]>;
  for (let i = 0; i < scan.count; i++) {
    const list = table.get(scan.hash(i));
    if (!list) continue;
    const start = scan.start(i);
    const first = text[start] as string;
    if (first === first.toLowerCase()) continue;
    for (const language of list) {
      const end = phraseEnd(text, start, scan.end(i), language.words);
      if (end < 0) continue;
      found = withItem(found, { start, end, shown: text.slice(start, end), what: language.what, countries: language.countries });
      break;
    }
  }
  return found;
}

// ---------------------------------------------------------------------------------------------

/** Every fingerprint in a text, whatever the task (outside the base64 payloads of data URLs). */
export function fingerprintsIn(text: string, scan: TextScan): readonly FingerprintMention[] {
  const patterns = textPatterns(text, scan);
  patterns.fingerprints ??= findFingerprints(text, scan, patterns.ranges);
  return patterns.fingerprints;
}

function findFingerprints(text: string, scan: TextScan, ranges: readonly ShapedRange[]): readonly FingerprintMention[] {
  loadFingerprints(scan.session);
  checkCurrent(scan, scan.session);
  let found: FingerprintMention[] | undefined;
  const vehicleWord = scan.count > 0 && hasVehicleWord(scan);
  for (const { from, to, shapes } of ranges) {
    if (shapes & (SHAPE.PLUS_DIGIT | SHAPE.DOUBLE_ZERO)) found = callingCodes(text, from, to, found);
    if (shapes & (SHAPE.UPPER_DIGIT | SHAPE.DIGITS_CAPITALS | SHAPE.DIGIT_DASH_DIGIT | SHAPE.POSTMARK)) found = postcodes(text, from, to, shapes, found);
    if (vehicleWord) found = vehicleCodesIn(text, from, to, found);
  }
  if (scan.count) found = languagesIn(text, scan, found);
  return found ? found.sort((a, b) => a.start - b.start) : NONE;
}

type Span = { readonly start: number; readonly end: number };

/**
 * The fingerprints of a text that point at the true country, as hits: medium when they name it
 * alone, low when they narrow the place to a few countries it is among. A span the country lexicon
 * already reports for the true country (a language that is its demonym, a vehicle code that is its
 * ISO code) is left to it, and so is a word of a longer place name ("Slovak Republic" is Slovakia,
 * whatever Slovak is).
 */
export function fingerprintHits(mentions: readonly FingerprintMention[], admin: string, reported: readonly Span[], places: readonly Span[]): FingerprintHit[] {
  let hits: FingerprintHit[] | undefined;
  for (const mention of mentions) {
    if (!mention.countries.includes(admin)) continue;
    if (reported.some((r) => r.start < mention.end && mention.start < r.end)) continue;
    if (places.some((p) => p.start <= mention.start && mention.end <= p.end && p.end - p.start > mention.end - mention.start)) continue;
    const alone = mention.countries.length === 1;
    hits = withItem(hits, { kind: 'fingerprint', severity: alone ? 'medium' : 'low', start: mention.start, end: mention.end, evidence: evidence(mention, admin) });
  }
  return hits ?? [];
}

function evidence(mention: FingerprintMention, admin: string): string {
  const { shown, what, countries } = mention;
  if (countries.length === 1) {
    if (what === 'postcode format') return `${shown} is a postcode in ${possessive(admin)} format`;
    if (what === 'official language') return `${shown} is an official language of ${admin} only`;
    if (what === 'writing system') return `${shown} is a writing system of ${admin} only`;
    return `${shown} is ${possessive(admin)} ${what}`;
  }
  const of = countries.length <= 4 ? listed(countries) : `${countries.length} countries`;
  const is = what === 'official language' ? `is an official language of ${of}` : what === 'writing system' ? `is a writing system of ${of}` : `is the ${what} of ${of}`;
  return `${shown} ${is}, the true country (${admin}) among them: it narrows the place without naming it`;
}

function possessive(name: string): string {
  return name.endsWith('s') ? `${name}'` : `${name}'s`;
}

function listed(names: readonly string[]): string {
  return names.length <= 1 ? (names[0] ?? '') : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
}
