/**
 * `--images native` inside tmux, in a private tmux server (`tmux -L`): tmux swallows a graphics
 * escape unless its `allow-passthrough` is on and the escape comes wrapped in its passthrough. With it
 * off the Player draws half-blocks and says why in one line; with it on, the bytes the binary writes
 * (tmux pipe-pane) carry kitty's escapes wrapped, ESCs doubled, and no bare one.
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { imageDrawingFor, kittyDelete, kittyImage, iterm2Image, tmuxPassthrough, tmuxWrap, TMUX_PASSTHROUGH_OFF } from '../../src/tui/images/native.js';
import { BIN, geolab } from '../helpers/cli.js';
import { tempDir } from '../helpers/fixtures.js';

const ESC = '\u001b';

/** A tmux server of this test's own: its options (allow-passthrough) touch no other session. */
class PrivateTmux {
  readonly socket = `geolab-images-${randomUUID().slice(0, 8)}`;

  constructor() {
    // A session that only holds the server up, so options can be set before the program's starts.
    this.tmux(['new-session', '-d', '-s', 'hold', 'sleep 3600']);
  }

  tmux(args: string[]): string {
    return execFileSync('tmux', ['-L', this.socket, ...args], { encoding: 'utf8', env: withoutTmux() });
  }

  /** `args` in a new 120x40 session whose bytes go to a file from the start. */
  start(name: string, args: string[], env: Record<string, string>): { screen: () => string; output: () => string; send: (key: string) => void } {
    const file = join(tempDir('geolab-tmux-images-'), 'pane.bytes');
    writeFileSync(file, '');
    const assignments = Object.entries(env).map(([k, v]) => `${k}=${quote(v)}`);
    // Started held (`read`), so pipe-pane is on before the first byte; `env -u CI`: Ink draws live frames.
    const command = `read _; exec env -u CI ${assignments.join(' ')} ${args.map(quote).join(' ')}`;
    this.tmux(['new-session', '-d', '-s', name, '-x', '120', '-y', '40', command]);
    this.tmux(['set-option', '-t', name, 'remain-on-exit', 'on']);
    this.tmux(['pipe-pane', '-o', '-t', name, `cat >> ${quote(file)}`]);
    this.tmux(['send-keys', '-t', name, 'Enter']);
    return {
      screen: () => this.tmux(['capture-pane', '-p', '-t', name]),
      output: () => readFileSync(file, 'latin1'),
      send: (key: string) => this.tmux(['send-keys', '-t', name, key]),
    };
  }

  kill(): void {
    const socket = this.tmux(['display-message', '-p', '-t', 'hold', '#{socket_path}']).trim();
    try {
      this.tmux(['kill-server']);
    } catch {
      // already gone
    }
    rmSync(socket, { force: true });
  }
}

function withoutTmux(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.TMUX;
  delete env.TMUX_PANE;
  return env;
}

function quote(s: string): string {
  return /^[A-Za-z0-9_./:=%-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/** The text inside the Player's view box (the screen's left box), its rows joined by spaces. */
function viewBox(screen: string): string {
  return screen
    .split('\n')
    .map((line) => /^ ?│([^│]*)│/.exec(line)?.[1] ?? '')
    .join(' ')
    .replace(/\s+/g, ' ');
}

async function until(ok: () => boolean, what: () => string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`timed out: ${what()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const servers: PrivateTmux[] = [];
afterEach(() => servers.splice(0).forEach((s) => s.kill()));

const HOME = tempDir('geolab-tmux-images-home-');
let episodeId = '';
beforeAll(() => {
  const list = JSON.parse(geolab(['episodes', 'list', '--json'], { home: HOME }).stdout) as { episode_id: string; model: string }[];
  episodeId = list.find((e) => e.model === 'scripted-demo')!.episode_id;
});

/** The Player with `--images native` in a pane whose outer terminal claims to be kitty. */
function player(server: PrivateTmux) {
  return server.start('player', [process.execPath, BIN, '--images', 'native', 'episodes', 'show', episodeId.slice(0, 8)], {
    GEOLAB_HOME: HOME,
    TERM: 'xterm-kitty',
    KITTY_WINDOW_ID: '1',
    COLORTERM: 'truecolor',
  });
}

const WRAPPED_TRANSMIT = `${ESC}Ptmux;${ESC}${ESC}_Ga=T,f=100,`;
const WRAPPED_DELETE = `${ESC}Ptmux;${ESC}${ESC}_Ga=d,d=I,`;
/** Kitty escapes as tmux would swallow them: ESC _ G not preceded by the ESC that doubles it. */
function bareKitty(bytes: string): number {
  let count = 0;
  for (let at = bytes.indexOf(`${ESC}_G`); at >= 0; at = bytes.indexOf(`${ESC}_G`, at + 1)) if (bytes[at - 1] !== ESC) count++;
  return count;
}

describe('--images native inside tmux, in a real tmux', () => {
  it('with allow-passthrough off: half-blocks, one line saying why and how to turn it on, no kitty escape', async () => {
    const server = new PrivateTmux();
    servers.push(server);
    expect(server.tmux(['show-options', '-gv', 'allow-passthrough']).trim()).toBe('off');
    const pane = player(server);
    await until(
      () => pane.screen().includes('▀') && viewBox(pane.screen()).includes(TMUX_PASSTHROUGH_OFF),
      () => pane.screen(),
    );
    expect(pane.output()).not.toContain('_Ga=');
    pane.send('q');
  });

  it('with allow-passthrough on: kitty escapes wrapped in tmux passthrough, ESCs doubled, none bare; the old image deleted before the next', async () => {
    const server = new PrivateTmux();
    servers.push(server);
    server.tmux(['set-option', '-g', 'allow-passthrough', 'on']);
    expect(server.tmux(['show-options', '-gv', 'allow-passthrough']).trim()).toBe('on');
    const pane = player(server);
    await until(
      () => pane.output().includes(WRAPPED_TRANSMIT) && !pane.screen().includes('rendering…'),
      () => JSON.stringify(pane.output().slice(-300)),
    );
    expect(pane.screen()).not.toContain('▀');
    expect(pane.screen()).not.toContain('allow-passthrough');
    const sent = pane.output().length;
    pane.send('Right');
    await until(
      () => pane.output().slice(sent).includes(WRAPPED_TRANSMIT),
      () => JSON.stringify(pane.output().slice(sent).slice(-300)),
    );
    const next = pane.output().slice(sent);
    expect(next.indexOf(WRAPPED_DELETE)).toBeGreaterThanOrEqual(0);
    expect(next.indexOf(WRAPPED_DELETE)).toBeLessThan(next.indexOf(WRAPPED_TRANSMIT));
    // Every passthrough is closed: as many ends (ESC \ after the doubled escape's own) as starts, once
    // the image's last chunk is out (the output was read once before while it was still streaming).
    const starts = (bytes: string) => bytes.split(`${ESC}Ptmux;`).length - 1;
    const ends = (bytes: string) => bytes.split(`${ESC}${ESC}\\${ESC}\\`).length - 1;
    await until(
      () => ends(pane.output()) === starts(pane.output()),
      () => `${starts(pane.output())} passthroughs opened, ${ends(pane.output())} closed`,
    );
    const all = pane.output();
    expect(bareKitty(all)).toBe(0);
    expect(starts(all)).toBeGreaterThanOrEqual(3);
    pane.send('q');
  });

  it('asks the tmux it runs in once: a later change of the option is not asked again', () => {
    const server = new PrivateTmux();
    servers.push(server);
    const socketPath = server.tmux(['display-message', '-p', '-t', 'hold', '#{socket_path}']).trim();
    const pane = server.tmux(['display-message', '-p', '-t', 'hold', '#{pane_id}']).trim();
    const env = { TMUX: `${socketPath},1,0`, TMUX_PANE: pane };
    expect(tmuxPassthrough(env)).toEqual({ allowed: false, reason: TMUX_PASSTHROUGH_OFF });
    server.tmux(['set-option', '-g', 'allow-passthrough', 'on']);
    expect(tmuxPassthrough(env)).toEqual({ allowed: false, reason: TMUX_PASSTHROUGH_OFF });
  });
});

describe('what is drawn where', () => {
  const on = () => ({ allowed: true as const });
  const off = () => ({ allowed: false as const, reason: TMUX_PASSTHROUGH_OFF });
  const kitty = { TERM: 'xterm-kitty', TMUX: '/tmp/tmux-0/x,1,0' };

  it('native inside tmux: through the passthrough when allowed, else half-blocks with the reason', () => {
    expect(imageDrawingFor(kitty, 'native', true, on)).toEqual({ protocol: 'kitty', tmux: true, note: null });
    expect(imageDrawingFor(kitty, 'native', true, off)).toEqual({ protocol: null, tmux: false, note: TMUX_PASSTHROUGH_OFF });
  });

  it('tmux is not asked when nothing native is wanted, or outside tmux', () => {
    const never = () => {
      throw new Error('asked tmux');
    };
    expect(imageDrawingFor(kitty, 'auto', true, never)).toEqual({ protocol: null, tmux: false, note: null });
    expect(imageDrawingFor(kitty, 'blocks', true, never)).toEqual({ protocol: null, tmux: false, note: null });
    expect(imageDrawingFor({ TERM: 'xterm-kitty' }, 'native', true, never)).toEqual({ protocol: 'kitty', tmux: false, note: null });
  });

  it('wraps each escape in its own passthrough, its ESCs doubled', () => {
    const png = Buffer.alloc(3073, 7); // two kitty chunks
    const chunks = kittyImage(png, { width: 4, height: 2 }, 3).split(`${ESC}\\`).slice(0, -1);
    expect(chunks).toHaveLength(2);
    expect(tmuxWrap(kittyImage(png, { width: 4, height: 2 }, 3))).toBe(chunks.map((c) => `${ESC}Ptmux;${ESC}${c}${ESC}${ESC}\\${ESC}\\`).join(''));
    expect(tmuxWrap(kittyDelete(3))).toBe(`${ESC}Ptmux;${ESC}${ESC}_Ga=d,d=I,i=3,q=2${ESC}${ESC}\\${ESC}\\`);
    const iterm = iterm2Image(Buffer.from('jpeg'), { width: 4, height: 2 });
    expect(tmuxWrap(iterm)).toBe(`${ESC}Ptmux;${ESC}${iterm}${ESC}\\`);
  });
});

afterAll(() => servers.splice(0).forEach((s) => s.kill()));
