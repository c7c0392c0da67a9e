/**
 * Where a JSON text goes wrong, for messages that point at a line of a file a person edits (a
 * training config, the messages `episodes retry --edit` opens). Node's own message names a
 * position for some mistakes only, and quotes the text over several lines for others.
 */

/** The offset at which a JSON text first goes wrong (its length when it ends too soon or is valid): a small recursive-descent reader that only finds the place. */
export function jsonErrorOffset(text: string): number {
  let i = 0;
  const space = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i]!)) i++;
  };
  const fail = (): never => {
    throw i;
  };
  const literal = (word: string) => (text.startsWith(word, i) ? (i += word.length) : fail());
  const string = () => {
    i++;
    while (i < text.length && text[i] !== '"') {
      if (text[i] === '\\') i++;
      else if (text.charCodeAt(i) < 0x20) fail();
      i++;
    }
    if (i >= text.length) fail();
    i++;
  };
  const value = (): void => {
    space();
    const c = text[i];
    if (c === '{' || c === '[') {
      const close = c === '{' ? '}' : ']';
      i++;
      space();
      if (text[i] === close) return void i++;
      for (;;) {
        if (c === '{') {
          space();
          if (text[i] !== '"') fail();
          string();
          space();
          if (text[i] !== ':') fail();
          i++;
        }
        value();
        space();
        if (text[i] === ',') i++;
        else if (text[i] === close) return void i++;
        else fail();
      }
    }
    if (c === '"') return string();
    if (c === 't') return void literal('true');
    if (c === 'f') return void literal('false');
    if (c === 'n') return void literal('null');
    const number = /^-?\d+(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i));
    if (!number) fail();
    i += number![0].length;
  };
  try {
    value();
    space();
    return i < text.length ? i : text.length;
  } catch (at) {
    return typeof at === 'number' ? Math.min(at, text.length) : 0;
  }
}

/** The 1-based line of `offset` in `text`. */
export function lineAtOffset(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset && i < text.length; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}
