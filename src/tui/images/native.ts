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
 *
 * Inside tmux the escapes reach the outer terminal only through tmux's passthrough, and only when
 * its `allow-passthrough` is on (imageDrawingFor, tmuxWrap; docs/tui.md); otherwise half-blocks.
 */
import { spawnSync } from 'node:child_process';
import type { DOMElement } from 'ink';
import { sharpModule } from '../../vendor/commonjs.js';

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
 * Inside tmux, imageDrawingFor decides whether the escapes can get through at all.
 */
export function imageProtocolFor(env: NodeJS.ProcessEnv, setting: ImagesSetting, isTTY: boolean): ImageProtocol | null {
  if (setting === 'blocks') return null;
  if (setting === 'native') return detectedProtocol(env) ?? 'kitty';
  if (!isTTY || isMultiplexer(env)) return null;
  return detectedProtocol(env);
}

/** How images are drawn: the protocol (null: half-blocks), through tmux or not, and why not natively. */
export interface ImageDrawing {
  protocol: ImageProtocol | null;
  /** Each escape wrapped in tmux's passthrough, so tmux hands it to the terminal outside it. */
  tmux: boolean;
  /** One line saying why `--images native` draws half-blocks here, or null. */
  note: string | null;
}

/** What tmux says of `allow-passthrough` for this pane: on, off, or why it could not be asked. */
export type TmuxPassthrough = { allowed: true } | { allowed: false; reason: string };

/** The fallback's line when tmux keeps the escapes to itself. */
export const TMUX_PASSTHROUGH_OFF =
  'tmux allow-passthrough is off: images drawn as half-blocks; `tmux set -g allow-passthrough on` for native images';

/**
 * imageProtocolFor, and inside tmux ($TMUX) what tmux lets through: tmux swallows a graphics escape
 * unless `allow-passthrough` is on and the escape comes wrapped in its passthrough (tmuxWrap). With
 * it off, `native` draws half-blocks and says why, rather than sending escapes that vanish.
 */
export function imageDrawingFor(
  env: NodeJS.ProcessEnv,
  setting: ImagesSetting,
  isTTY: boolean,
  passthrough: (env: NodeJS.ProcessEnv) => TmuxPassthrough = tmuxPassthrough,
): ImageDrawing {
  const protocol = imageProtocolFor(env, setting, isTTY);
  if (!protocol || !env.TMUX) return { protocol, tmux: false, note: null };
  const state = passthrough(env);
  return state.allowed ? { protocol, tmux: true, note: null } : { protocol: null, tmux: false, note: state.reason };
}

let asked: TmuxPassthrough | undefined;

/**
 * `allow-passthrough` of the tmux this process runs in, asked once: the pane's own value, which
 * inherits the window's and the global one (`tmux show -Apv -t $TMUX_PANE`), else the global one
 * (`tmux show -gv`). `on` and `all` let escapes through; a tmux older than 3.3, which has no such
 * option, always did.
 */
export function tmuxPassthrough(env: NodeJS.ProcessEnv): TmuxPassthrough {
  if (asked) return asked;
  const args = env.TMUX_PANE ? ['show-options', '-Apv', '-t', env.TMUX_PANE, 'allow-passthrough'] : ['show-options', '-gv', 'allow-passthrough'];
  const r = spawnSync('tmux', args, { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 5000 });
  const value = r.stdout?.trim();
  if (r.status === 0 && value) asked = value === 'on' || value === 'all' ? { allowed: true } : { allowed: false, reason: TMUX_PASSTHROUGH_OFF };
  else if (/invalid option|unknown option/.test(r.stderr ?? '')) asked = { allowed: true };
  else {
    const why = r.error ? r.error.message : (r.stderr?.trim().split('\n')[0] ?? '') || `exit ${r.status}`;
    asked = { allowed: false, reason: `cannot ask tmux for allow-passthrough (${why}): images drawn as half-blocks` };
  }
  return asked;
}

/**
 * Graphics escapes through tmux to the terminal outside it: each escape in its own passthrough
 * (`ESC Ptmux; ... ESC \`, every ESC inside doubled), so none grows past what tmux buffers.
 * kitty's come as a run of escapes each ended by ST; iTerm2's is one, ended by BEL.
 */
export function tmuxWrap(escapes: string): string {
  const wrap = (escape: string) => `${ESC}Ptmux;${escape.replaceAll(ESC, ESC + ESC)}${ST}`;
  if (!escapes.endsWith(ST)) return wrap(escapes);
  return escapes
    .split(ST)
    .slice(0, -1)
    .map((escape) => wrap(escape + ST))
    .join('');
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
  const sharp = sharpModule();
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
  /** Inside tmux: the escapes go out wrapped in its passthrough (tmuxWrap). */
  tmux?: boolean;
  data: Buffer;
  cells: Cells;
  box: DOMElement;
}

interface OnScreen {
  protocol: ImageProtocol;
  tmux: boolean;
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
    const same =
      this.wanted &&
      this.wanted.key === request.key &&
      this.wanted.protocol === request.protocol &&
      Boolean(this.wanted.tmux) === Boolean(request.tmux) &&
      sameCells(this.wanted.cells, request.cells);
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
    if (this.shown?.protocol === 'kitty') this.write(this.shown.tmux ? tmuxWrap(kittyDelete(this.shown.id)) : kittyDelete(this.shown.id));
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
    // Inside tmux only the image goes through to the outer terminal; tmux itself moves the cursor.
    this.write(atBox(place, rows, request.tmux ? tmuxWrap(text) : text));
    this.shown = { protocol: request.protocol, tmux: Boolean(request.tmux), id };
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
