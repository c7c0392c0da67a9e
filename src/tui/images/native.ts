/**
 * Images through the terminal's own graphics protocol (kitty's, or iTerm2's inline files), at full
 * resolution, placed over a blank box Ink lays out and kept outside Ink's diff.
 *
 * The escapes are written here rather than by terminal-image: its kitty path writes to
 * process.stdout itself at the cursor, without an image id to delete by and without `q=2`, so
 * kitty's replies would arrive on stdin as keystrokes; its iTerm2 path is gated on a version check
 * that `--images native` must be able to override.
 *
 * Placement: after each frame Ink writes, the cursor stands on the row below the frame (or on its
 * last row when the frame fills the screen), so the image goes there relative to it: save the
 * cursor, move up and across to the box, write, restore. A frame that changes removes what the
 * image was over: kitty keeps images apart from text, so its image is deleted by id before another
 * is drawn or when the box goes; iTerm2 keeps the image in the cells, so Ink's rewrite of those
 * cells is what removes it, and the image is written again after every frame while it stays.
 */
import type { DOMElement } from 'ink';

export type ImageProtocol = 'kitty' | 'iterm2';

/** What `--images` (or GEOLAB_IMAGES) asks for; `auto` detects the terminal. */
export type ImagesSetting = 'auto' | 'native' | 'blocks';

export const IMAGES_SETTINGS: readonly ImagesSetting[] = ['auto', 'native', 'blocks'];

/** The environment variable the `--images` flag sets, so every TUI entry reads one setting. */
export const IMAGES_ENV = 'GEOLAB_IMAGES';

const ESC = '\u001b';
const ST = `${ESC}\\`;
const BEL = '\u0007';
/** kitty's limit for the payload of one escape. */
const KITTY_CHUNK = 4096;

function isMultiplexer(env: NodeJS.ProcessEnv): boolean {
  return Boolean(env.TMUX) || /^(screen|tmux)/.test(env.TERM ?? '');
}

function detectedProtocol(env: NodeJS.ProcessEnv): ImageProtocol | null {
  if (env.TERM === 'xterm-kitty' || env.KITTY_WINDOW_ID) return 'kitty';
  if (env.TERM_PROGRAM === 'ghostty' || env.TERM === 'xterm-ghostty') return 'kitty';
  if (env.TERM_PROGRAM === 'iTerm.app' || env.TERM_PROGRAM === 'WezTerm') return 'iterm2';
  return null;
}

/**
 * The protocol to draw with, or null for half-blocks. Inside tmux or screen a protocol escape
 * reaches the outer terminal at the wrong place (or not at all), so only `native` uses one there;
 * `native` in a terminal not recognised speaks kitty's, the one most graphics terminals implement.
 */
export function imageProtocolFor(env: NodeJS.ProcessEnv, setting: ImagesSetting, isTTY: boolean): ImageProtocol | null {
  if (setting === 'blocks') return null;
  if (setting === 'native') return detectedProtocol(env) ?? 'kitty';
  if (!isTTY || isMultiplexer(env)) return null;
  return detectedProtocol(env);
}

/** GEOLAB_IMAGES as a setting; anything else is `auto`, since the flag itself validated what it set. */
export function imagesSettingFromEnv(env: NodeJS.ProcessEnv): ImagesSetting {
  const value = env[IMAGES_ENV];
  return IMAGES_SETTINGS.includes(value as ImagesSetting) ? (value as ImagesSetting) : 'auto';
}

export interface Cells {
  width: number;
  height: number;
}

/** kitty: transmit a PNG as image `id` and show it over `cells`, the cursor left where it was. */
export function kittyImage(png: Buffer, cells: Cells, id: number): string {
  const data = png.toString('base64');
  const chunks: string[] = [];
  for (let at = 0; at < data.length; at += KITTY_CHUNK) chunks.push(data.slice(at, at + KITTY_CHUNK));
  return chunks
    .map((chunk, index) => {
      const more = index < chunks.length - 1 ? 1 : 0;
      const control = index === 0 ? `a=T,f=100,i=${id},p=1,c=${cells.width},r=${cells.height},C=1,q=2,m=${more}` : `m=${more}`;
      return `${ESC}_G${control};${chunk}${ST}`;
    })
    .join('');
}

/** kitty: show image `id`, already transmitted, over `cells` here (the same placement id moves it). */
export function kittyPlacement(id: number, cells: Cells): string {
  return `${ESC}_Ga=p,i=${id},p=1,c=${cells.width},r=${cells.height},C=1,q=2${ST}`;
}

/** kitty: delete every placement of image `id` and free its data. */
export function kittyDelete(id: number): string {
  return `${ESC}_Ga=d,d=I,i=${id},q=2${ST}`;
}

/** An image as kitty takes it (PNG; it reads no JPEG), fast to make rather than small: it goes down a pipe, not a disk. */
export async function kittyPng(bytes: Buffer): Promise<Buffer> {
  if (bytes.length > 8 && bytes.readUInt32BE(0) === 0x89504e47) return bytes;
  const { default: sharp } = await import('sharp');
  return sharp(bytes).png({ compressionLevel: 1 }).toBuffer();
}

/** iTerm2 (and WezTerm): an inline file stretched over exactly `cells`, so it covers the whole box. */
export function iterm2Image(bytes: Buffer, cells: Cells): string {
  return `${ESC}]1337;File=inline=1;size=${bytes.length};width=${cells.width};height=${cells.height};preserveAspectRatio=0:${bytes.toString('base64')}${BEL}`;
}

/** Where a box is in Ink's frame: its column and row from the frame's top left, and the frame's height. */
export interface BoxPlace {
  column: number;
  row: number;
  frameRows: number;
}

/**
 * `text` written at `place`, from the cursor Ink leaves after a frame: on the row below it, or on
 * its last row when the frame is as tall as the screen (Ink then writes no final newline).
 */
export function atBox(place: BoxPlace, screenRows: number, text: string): string {
  const cursorRow = place.frameRows >= screenRows ? place.frameRows - 1 : place.frameRows;
  const up = cursorRow - place.row;
  return `${ESC}7${up > 0 ? `${ESC}[${up}A` : ''}${ESC}[${place.column + 1}G${text}${ESC}8`;
}

/** The box's place from Ink's computed layout (Yoga), summed up to the root, whose height is the frame's. */
export function boxPlace(element: DOMElement): BoxPlace | undefined {
  let column = 0;
  let row = 0;
  let node: DOMElement | undefined = element;
  let root: DOMElement = element;
  while (node) {
    if (!node.yogaNode) return undefined;
    column += node.yogaNode.getComputedLeft();
    row += node.yogaNode.getComputedTop();
    root = node;
    node = node.parentNode;
  }
  return { column: Math.round(column), row: Math.round(row), frameRows: Math.round(root.yogaNode!.getComputedHeight()) };
}

/** One image to keep on screen: `data` is a PNG for kitty, the file as it is for iTerm2. */
export interface NativeImageRequest {
  key: string;
  protocol: ImageProtocol;
  data: Buffer;
  cells: Cells;
  box: DOMElement;
}

interface OnScreen {
  protocol: ImageProtocol;
  /** kitty's image id; 0 for iTerm2, which has none. */
  id: number;
}

type Write = (chunk: unknown, ...rest: unknown[]) => boolean;

/**
 * The image over one output stream. Ink's writes pass through; after a frame (a write with a line
 * break: Ink's synchronized-output markers and cursor escapes have none) the image is put back
 * over its box, once the commit's layout effects have said which image that is.
 */
export class ImageOverlay {
  private wanted: NativeImageRequest | undefined;
  private shown: OnScreen | undefined;
  private nextId = 1;
  private scheduled = false;
  private readonly write: Write;

  constructor(private readonly stream: NodeJS.WritableStream & { rows?: number }) {
    const original = stream.write.bind(stream) as Write;
    this.write = original;
    const intercept: Write = (chunk, ...rest) => {
      const written = original(chunk, ...rest);
      if (this.wanted && String(chunk).includes('\n')) this.redraw();
      return written;
    };
    stream.write = intercept as typeof stream.write;
  }

  /** Keeps `request` on screen; another image there is deleted first. */
  show(request: NativeImageRequest): void {
    const same = this.wanted && this.wanted.key === request.key && this.wanted.protocol === request.protocol && sameCells(this.wanted.cells, request.cells);
    this.wanted = request;
    if (same) return;
    this.remove();
    this.redraw();
  }

  /** Takes image `key` off the screen, if it is the one shown. */
  hide(key: string): void {
    if (this.wanted?.key !== key) return;
    this.wanted = undefined;
    this.remove();
  }

  private remove(): void {
    // iTerm2's image lives in the cells: the frame Ink writes for the change overwrites it.
    if (this.shown?.protocol === 'kitty') this.write(kittyDelete(this.shown.id));
    this.shown = undefined;
  }

  private redraw(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    // After the layout effects of the commit that wrote the frame, so a stale image is not redrawn.
    queueMicrotask(() => {
      this.scheduled = false;
      this.draw();
    });
  }

  private draw(): void {
    const request = this.wanted;
    const place = request && boxPlace(request.box);
    if (!request || !place) return;
    const rows = this.stream.rows ?? Number.POSITIVE_INFINITY;
    // Whatever is shown is this image: a change of image or size went through remove().
    const shown = this.shown;
    let text: string;
    let id = shown?.id ?? 0;
    if (request.protocol === 'iterm2') text = iterm2Image(request.data, request.cells);
    else if (shown) text = kittyPlacement(shown.id, request.cells);
    else text = kittyImage(request.data, request.cells, (id = this.nextId++));
    this.write(atBox(place, rows, text));
    this.shown = { protocol: request.protocol, id };
  }
}

function sameCells(a: Cells, b: Cells): boolean {
  return a.width === b.width && a.height === b.height;
}

const overlays = new WeakMap<object, ImageOverlay>();

/** The one overlay of a stream, made on first use. */
export function overlayFor(stream: NodeJS.WritableStream & { rows?: number }): ImageOverlay {
  let overlay = overlays.get(stream);
  if (!overlay) {
    overlay = new ImageOverlay(stream);
    overlays.set(stream, overlay);
  }
  return overlay;
}
