import { sharpModule } from '../../vendor/commonjs.js';
/**
 * Coloured half-blocks written straight from sharp's raw pixels: one cell is the upper pixel in the
 * foreground and the lower one in the background of '▀'. A colour is written only when it differs
 * from the one in force on the line, because Ink tokenizes every escape of the frame on every
 * redraw (most of a step's cost); each line ends with a reset so nothing bleeds past the image.
 */

/** How many colours the terminal shows: the levels chalk (and so Ink) use. */
export type ColourDepth = 0 | 1 | 2 | 3;

const ESC = '\u001b';
const UPPER_HALF = '▀';
const RESET = `${ESC}[0m`;
/** Each channel is cut to this many levels so neighbouring cells share colours and escapes repeat less. */
const LEVELS_PER_CHANNEL = 32;
const STEP = 256 / LEVELS_PER_CHANNEL;

/**
 * The depth chalk would pick for a stream (its supports-color rules, the ones a TUI meets): FORCE_COLOR
 * wins, a stream that is not a terminal gets none, then COLORTERM, the terminal's name and TERM.
 */
export function colourDepthFromEnv(env: NodeJS.ProcessEnv, isTTY: boolean): ColourDepth {
  const force = env.FORCE_COLOR;
  if (force !== undefined) {
    if (force === '' || force === 'true') return 1;
    if (force === 'false') return 0;
    const level = Number.parseInt(force, 10);
    if (Number.isFinite(level)) return Math.max(0, Math.min(3, level)) as ColourDepth;
  }
  if (!isTTY || env.TERM === 'dumb') return 0;
  if (env.COLORTERM === 'truecolor' || env.COLORTERM === '24bit') return 3;
  if (env.TERM === 'xterm-kitty' || env.TERM === 'xterm-ghostty' || env.TERM === 'wezterm') return 3;
  if (env.TERM_PROGRAM === 'iTerm.app') return Number.parseInt(env.TERM_PROGRAM_VERSION ?? '', 10) >= 3 ? 3 : 2;
  if (env.TERM_PROGRAM === 'Apple_Terminal') return 2;
  if (/-256(color)?$/i.test(env.TERM ?? '')) return 2;
  if (/^screen|^xterm|^vt100|^vt220|^rxvt|color|ansi|cygwin|linux/i.test(env.TERM ?? '')) return 1;
  return env.COLORTERM !== undefined ? 1 : 0;
}

/** The xterm 256-colour index of a colour, as ansi-styles computes it (greys on the grey ramp). */
export function ansi256(r: number, g: number, b: number): number {
  if (r === g && g === b) {
    if (r < 8) return 16;
    if (r > 248) return 231;
    return Math.round(((r - 8) / 247) * 24) + 232;
  }
  return 16 + 36 * Math.round((r / 255) * 5) + 6 * Math.round((g / 255) * 5) + Math.round((b / 255) * 5);
}

/** The basic foreground code (30-37, 90-97) nearest a 256-colour index, as ansi-styles computes it. */
export function ansi16(code: number): number {
  if (code < 8) return 30 + code;
  if (code < 16) return 90 + (code - 8);
  let red: number;
  let green: number;
  let blue: number;
  if (code >= 232) {
    red = green = blue = ((code - 232) * 10 + 8) / 255;
  } else {
    const index = code - 16;
    const remainder = index % 36;
    red = Math.floor(index / 36) / 5;
    green = Math.floor(remainder / 6) / 5;
    blue = (remainder % 6) / 5;
  }
  const value = Math.max(red, green, blue) * 2;
  if (value === 0) return 30;
  const result = 30 + ((Math.round(blue) << 2) | (Math.round(green) << 1) | Math.round(red));
  return value === 2 ? result + 60 : result;
}

/** One colour escape; `background` shifts the codes as SGR does (38 -> 48, 30 -> 40). */
function colourEscape(depth: ColourDepth, background: boolean, r: number, g: number, b: number): string {
  if (depth === 3) return `${ESC}[${background ? 48 : 38};2;${r};${g};${b}m`;
  if (depth === 2) return `${ESC}[${background ? 48 : 38};5;${ansi256(r, g, b)}m`;
  return `${ESC}[${ansi16(ansi256(r, g, b)) + (background ? 10 : 0)}m`;
}

/** The nearest level, black and white kept exact. */
function quantise(value: number): number {
  return Math.min(255, Math.round(value / STEP) * STEP);
}

/**
 * Rows of half-blocks from packed RGB pixels (`channels` bytes each, the first three used), two
 * pixel rows per text row. At depth 0 the blocks carry no colour, as chalk would write them.
 */
export function halfBlockText(pixels: Uint8Array, widthPx: number, heightPx: number, channels: number, depth: ColourDepth): string {
  const lines: string[] = [];
  // Escapes are cached per quantised colour: a view has few after quantising.
  const cache = new Map<number, string>();
  const escape = (background: boolean, offset: number): string => {
    const r = quantise(pixels[offset]!);
    const g = quantise(pixels[offset + 1]!);
    const b = quantise(pixels[offset + 2]!);
    const id = ((r << 16) | (g << 8) | b) * 2 + (background ? 1 : 0);
    let text = cache.get(id);
    if (text === undefined) {
      text = colourEscape(depth, background, r, g, b);
      cache.set(id, text);
    }
    return text;
  };
  for (let y = 0; y < heightPx; y += 2) {
    if (depth === 0) {
      lines.push(UPPER_HALF.repeat(widthPx));
      continue;
    }
    let line = '';
    let fg = '';
    let bg = '';
    for (let x = 0; x < widthPx; x++) {
      const upper = (y * widthPx + x) * channels;
      const cellFg = escape(false, upper);
      // An odd last pixel row has nothing below it: the terminal's own background shows there.
      const cellBg = y + 1 < heightPx ? escape(true, upper + widthPx * channels) : `${ESC}[49m`;
      if (cellFg !== fg) line += fg = cellFg;
      if (cellBg !== bg) line += bg = cellBg;
      line += UPPER_HALF;
    }
    lines.push(line + RESET);
  }
  return lines.join('\n');
}

/** Bytes of a JPEG or PNG as at most `width` x `height` cells of half-blocks, aspect kept. */
export async function renderHalfBlocks(bytes: Buffer, width: number, height: number, depth: ColourDepth): Promise<string> {
  const sharp = sharpModule();
  const { data, info } = await sharp(bytes)
    .resize(width, height * 2, { fit: 'inside' })
    .removeAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  return halfBlockText(data, info.width, info.height, info.channels, depth);
}
