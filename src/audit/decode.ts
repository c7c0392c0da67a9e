/**
 * Text written in the encodings of URLs and HTML (docs/audit.md, "Image metadata and encodings"):
 * percent-encoding (`wiki/Ni%C5%A1`, `center=43.32%2C%2021.89`, URL-encoded JSON in a query) and
 * HTML character references (`&#1053;`, `&#x41D;`, `&eacute;`, `&amp;`). The detector scans a
 * decoded copy of a text that holds any, beside the text itself, and maps what it finds there back
 * to the text's own offsets through `origin`.
 *
 * Most texts hold none: `decodeText` answers null after one regular-expression test. One pass
 * decodes both encodings; a sequence that does not decode (bytes that are not UTF-8, an unknown
 * entity name) is kept as written.
 */

export interface DecodedText {
  readonly text: string;
  /**
   * Where each UTF-16 unit of `text` starts in the original (`origin[text.length]` is the original's
   * length), so a decoded span [s, e) is the original's [origin[s], origin[e]).
   */
  readonly origin: Int32Array;
}

/** A percent-encoded byte, or a character reference ended by `;`. */
const ENCODED = /%[0-9A-Fa-f]{2}|&(?:#[0-9]{1,7}|#[xX][0-9A-Fa-f]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});/;
/** The same, percent-encoded bytes taken as runs (a UTF-8 character is several). */
const SEQUENCE = /(?:%[0-9A-Fa-f]{2})+|&(?:#([0-9]{1,7})|#[xX]([0-9A-Fa-f]{1,6})|([A-Za-z][A-Za-z0-9]{1,31}));/g;

/** The decoded copy of a text, or null when the text holds nothing encoded. */
export function decodeText(text: string): DecodedText | null {
  if (!ENCODED.test(text)) return null;
  const out = new Decoded();
  let from = 0;
  SEQUENCE.lastIndex = 0;
  for (let m = SEQUENCE.exec(text); m !== null; m = SEQUENCE.exec(text)) {
    out.copy(text, from, m.index);
    if (m[0].charCodeAt(0) === 0x25) percent(out, m[0], m.index);
    else {
      const decoded = m[3] !== undefined ? namedReference(m[3]) : numericReference(m[1] !== undefined ? Number(m[1]) : parseInt(m[2] as string, 16));
      if (decoded === null) out.copy(text, m.index, m.index + m[0].length);
      else out.add(decoded, m.index);
    }
    from = m.index + m[0].length;
  }
  out.copy(text, from, text.length);
  return out.finish(text);
}

/** The decoded text as it grows, with the origin of each unit. */
class Decoded {
  private readonly parts: string[] = [];
  private readonly origin: number[] = [];
  private changed = false;

  /** `source`'s [from, to) unchanged, found at `at` in the original (`source` may be a piece of it). */
  copy(source: string, from: number, to: number, at = from): void {
    if (to <= from) return;
    this.parts.push(source.slice(from, to));
    for (let i = from; i < to; i++) this.origin.push(at + i - from);
  }

  /** A decoded character (one or two units) that starts at `at` in the original. */
  add(chars: string, at: number): void {
    this.parts.push(chars);
    for (let i = 0; i < chars.length; i++) this.origin.push(at);
    this.changed = true;
  }

  finish(text: string): DecodedText | null {
    if (!this.changed) return null;
    this.origin.push(text.length);
    return { text: this.parts.join(''), origin: Int32Array.from(this.origin) };
  }
}

/** A run of `%XX` bytes at `at`: each UTF-8 character decoded, any other byte kept as written. */
function percent(out: Decoded, run: string, at: number): void {
  const bytes = new Uint8Array(run.length / 3);
  for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(run.slice(3 * i + 1, 3 * i + 3), 16);
  for (let i = 0; i < bytes.length; ) {
    const length = utf8Length(bytes, i);
    const start = at + 3 * i;
    if (length === 0) out.copy(run, 3 * i, 3 * i + 3, start);
    else out.add(String.fromCodePoint(utf8CodePoint(bytes, i, length)), start);
    i += length || 1;
  }
}

/** Bytes of the UTF-8 character starting at `i` (0: not a well-formed character there). */
function utf8Length(bytes: Uint8Array, i: number): number {
  const b = bytes[i] as number;
  const length = b < 0x80 ? 1 : b >= 0xc2 && b <= 0xdf ? 2 : b >= 0xe0 && b <= 0xef ? 3 : b >= 0xf0 && b <= 0xf4 ? 4 : 0;
  if (length === 0 || i + length > bytes.length) return 0;
  for (let k = 1; k < length; k++) if (((bytes[i + k] as number) & 0xc0) !== 0x80) return 0;
  const cp = utf8CodePoint(bytes, i, length);
  const shortest = length === 1 || (length === 2 && cp >= 0x80) || (length === 3 && cp >= 0x800 && (cp < 0xd800 || cp > 0xdfff)) || (length === 4 && cp >= 0x10000 && cp <= 0x10ffff);
  return shortest ? length : 0;
}

function utf8CodePoint(bytes: Uint8Array, i: number, length: number): number {
  const first = bytes[i] as number;
  let cp = length === 1 ? first : first & (0xff >> (length + 1));
  for (let k = 1; k < length; k++) cp = (cp << 6) | ((bytes[i + k] as number) & 0x3f);
  return cp;
}

function numericReference(cp: number): string | null {
  return cp > 0 && cp <= 0x10ffff && (cp < 0xd800 || cp > 0xdfff) ? String.fromCodePoint(cp) : null;
}

/**
 * HTML's named references that are not a letter with an accent (those are composed below): markup
 * characters, spaces and punctuation that may stand between a place's words or a pair's numbers,
 * and letters of their own (HTML 4's Latin-1 set and HTML5's stroked letters).
 */
const NAMED: Readonly<Record<string, string>> = {
  amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0', ensp: '\u2002', emsp: '\u2003', thinsp: '\u2009', shy: '\u00ad',
  ndash: '\u2013', mdash: '\u2014', hyphen: '\u2010', minus: '\u2212', plus: '+', equals: '=', comma: ',', period: '.', colon: ':', semi: ';',
  sol: '/', bsol: '\\', lpar: '(', rpar: ')', lsqb: '[', rsqb: ']', lbrack: '[', rbrack: ']', lcub: '{', rcub: '}', lbrace: '{', rbrace: '}',
  num: '#', percnt: '%', quest: '?', excl: '!', lowbar: '_', verbar: '|', vert: '|', ast: '*', commat: '@', dollar: '$', grave: '`',
  lsquo: '\u2018', rsquo: '\u2019', sbquo: '\u201a', ldquo: '\u201c', rdquo: '\u201d', bdquo: '\u201e', laquo: '\u00ab', raquo: '\u00bb',
  hellip: '\u2026', middot: '\u00b7', bull: '\u2022', deg: '\u00b0', prime: '\u2032', Prime: '\u2033', ordm: '\u00ba', ordf: '\u00aa',
  acute: '\u00b4', uml: '\u00a8', cedil: '\u00b8', macr: '\u00af', circ: '\u02c6', tilde: '\u02dc',
  szlig: '\u00df', AElig: '\u00c6', aelig: '\u00e6', OElig: '\u0152', oelig: '\u0153', Oslash: '\u00d8', oslash: '\u00f8',
  ETH: '\u00d0', eth: '\u00f0', THORN: '\u00de', thorn: '\u00fe', Dstrok: '\u0110', dstrok: '\u0111', Lstrok: '\u0141', lstrok: '\u0142',
  Hstrok: '\u0126', hstrok: '\u0127', Tstrok: '\u0166', tstrok: '\u0167', ENG: '\u014a', eng: '\u014b', imath: '\u0131', inodot: '\u0131',
  IJlig: '\u0132', ijlig: '\u0133', Lmidot: '\u013f', lmidot: '\u0140', kgreen: '\u0138', napos: '\u0149',
};

/** HTML names a letter with an accent as the letter and the accent's name: `eacute`, `scaron`, `Zdot`. */
const ACCENTED = /^([A-Za-z])(acute|grave|circ|tilde|uml|ring|cedil|caron|macr|breve|ogon|dot|dblac)$/;
const COMBINING: Readonly<Record<string, string>> = {
  acute: '\u0301', grave: '\u0300', circ: '\u0302', tilde: '\u0303', uml: '\u0308', ring: '\u030a', cedil: '\u0327',
  caron: '\u030c', macr: '\u0304', breve: '\u0306', ogon: '\u0328', dot: '\u0307', dblac: '\u030b',
};

function namedReference(name: string): string | null {
  const plain = NAMED[name];
  if (plain !== undefined) return plain;
  const m = ACCENTED.exec(name);
  if (!m) return null;
  // Unicode composes the letter and its mark into one character exactly when that letter exists.
  const composed = `${m[1] as string}${COMBINING[m[2] as string] as string}`.normalize('NFC');
  return composed.length === 1 ? composed : null;
}
