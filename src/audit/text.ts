/**
 * What the detectors share about texts: which parts of a text are worth scanning (never the base64
 * payload of a data URL), the context shown around a span, and how they collect what they find.
 */

/**
 * `list` with `item` added; a new list of exactly one item when there is none yet. Detectors keep
 * what they find in long-lived caches, and `[]` grown by a push reserves room for 17.
 */
export function withItem<T>(list: T[] | undefined, item: T): T[] {
  if (!list) return [item];
  list.push(item);
  return list;
}

/** Characters of context either side of a span (Finding.context). */
const CONTEXT_CHARS = 40;

export function around(text: string, start: number, end: number): string {
  return text.slice(Math.max(0, start - CONTEXT_CHARS), Math.min(text.length, end + CONTEXT_CHARS));
}

const BASE64_MARK = ';base64,';
// Whitespace ends a payload: the text after it is scanned (a line-wrapped payload's next line too, harmlessly).
const BASE64_RUN = /[A-Za-z0-9+/=\\]*/y;

/**
 * The [start, end) ranges of a text outside base64 payloads of data URLs. An image's bytes are read
 * by the image detector; scanning their base64 text would be slow and would find coordinates and
 * "codes" by chance. Ranges keep the text's own offsets, so spans need no translation.
 */
export function scannableRanges(text: string): [number, number][] {
  let mark = text.indexOf(BASE64_MARK);
  if (mark < 0) return [[0, text.length]];
  const ranges: [number, number][] = [];
  let from = 0;
  while (mark >= 0) {
    const payload = mark + BASE64_MARK.length;
    ranges.push([from, payload]);
    BASE64_RUN.lastIndex = payload;
    BASE64_RUN.exec(text);
    from = BASE64_RUN.lastIndex;
    mark = text.indexOf(BASE64_MARK, from);
  }
  ranges.push([from, text.length]);
  return ranges;
}
