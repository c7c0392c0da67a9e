/**
 * TUI budgets (docs/budgets.md): the first frame of `geolab` (Home) against a bare Ink hello-world
 * measured in the same run, and keypress-to-redraw in the Player and in the Episodes list over
 * 100,000 episodes, all in a pseudo-terminal (util-linux `script`) with CI unset so Ink draws live
 * frames; an inline panorama, warm.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../src/paths.js';
import { workspaceWith100kEpisodes } from './episodes.js';
import { median, round, type Bench } from './harness.js';

const BIN = join(PACKAGE_ROOT, 'bin', 'geolab.js');

/**
 * A command in a 120x40 pty (util-linux `script`; a new pty has no size until told, and Ink would
 * lay out for zero columns): keys in, the text it draws (escapes removed) out. Waiting is driven by
 * the output itself, so the bench takes no CPU from the program it times.
 */
export class Pty {
  private readonly child: ChildProcess;
  private screen = '';
  private waiting: { text: string; found: () => void } | undefined;

  constructor(command: string, env: NodeJS.ProcessEnv) {
    this.child = spawn('script', ['-qfec', `stty cols 120 rows 40; ${command}`, '/dev/null'], {
      env: { ...env, COLORTERM: 'truecolor', TERM: 'xterm-256color' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const escapes = new RegExp(`${String.fromCharCode(27)}\\[[0-9;?]*[A-Za-z]`, 'g');
    this.child.stdout!.on('data', (chunk: Buffer) => {
      this.screen += chunk.toString().replace(escapes, '');
      if (this.waiting && this.screen.includes(this.waiting.text)) this.waiting.found();
    });
  }

  /** Waits until the output since the last key contains `text`. */
  until(text: string): Promise<void> {
    if (this.screen.includes(text)) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting = undefined;
        reject(new Error(`"${text}" never appeared within 20 s; last output: ${this.screen.slice(-300)}`));
      }, 20_000);
      this.waiting = {
        text,
        found: () => {
          this.waiting = undefined;
          clearTimeout(timer);
          resolve();
        },
      };
    });
  }

  write(keys: string): void {
    this.screen = '';
    this.child.stdin!.write(keys);
  }

  /** Milliseconds from writing `keys` until `text` is drawn. */
  async press(keys: string, text: string): Promise<number> {
    const start = performance.now();
    this.write(keys);
    await this.until(text);
    return performance.now() - start;
  }

  kill(): void {
    this.child.kill('SIGKILL');
  }
}

/** Milliseconds from starting `command` in a pty until its output contains `marker`. */
async function timeToText(command: string, marker: string, env: NodeJS.ProcessEnv): Promise<number> {
  const start = performance.now();
  const pty = new Pty(command, env);
  try {
    await pty.until(marker);
    return performance.now() - start;
  } finally {
    pty.kill();
  }
}

export function withoutCi(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.CI;
  return env;
}

export const tuiBenches: Bench[] = [
  {
    name: 'tui.first_frame',
    unit: 'starts',
    async run() {
      const dir = mkdtempSync(join(tmpdir(), 'geolab-bench-tui-'));
      const hello = join(PACKAGE_ROOT, 'bench', 'hello-ink.mjs');
      const env = { ...withoutCi(), GEOLAB_HOME: join(dir, 'ws') };
      // The first start creates the demo workspace: not what this figure measures.
      await timeToText(`${process.execPath} ${BIN}`, 'Episodes', env);
      const geolab: number[] = [];
      const bare: number[] = [];
      for (let i = 0; i < 3; i++) {
        bare.push(await timeToText(`${process.execPath} ${hello}`, 'hello from ink', env));
        geolab.push(await timeToText(`${process.execPath} ${BIN}`, 'Episodes', env));
      }
      const ms = median(geolab);
      const bareMs = median(bare);
      return { median_ms: round(ms, 1), per_s: round(1000 / ms, 2), bare_ink_ms: round(bareMs, 1), ratio: round(ms / bareMs, 2) };
    },
  },
  {
    // A recorded demo episode in the Player, stepping right and left: from the key written to the
    // pty until the other turn's header is on screen.
    name: 'tui.step_redraw',
    unit: 'redraws',
    async run() {
      const home = mkdtempSync(join(tmpdir(), 'geolab-bench-tui-'));
      const env = { ...withoutCi(), GEOLAB_HOME: home };
      const list = spawnSync(process.execPath, [BIN, 'episodes', 'list', '--json'], { env, encoding: 'utf8' });
      const episode = (JSON.parse(list.stdout) as { episode_id: string; model: string }[]).find((e) => e.model === 'scripted-demo');
      if (!episode) throw new Error('the demo workspace has no scripted-demo episode');
      const pty = new Pty(`${process.execPath} ${BIN} episodes show ${episode.episode_id}`, env);
      try {
        await pty.until('turn 0/');
        // Both turns' images rendered once (they are cached), as when a person steps back and forth.
        await pty.press('\x1b[C', 'turn 1/');
        await new Promise((r) => setTimeout(r, 400));
        await pty.press('\x1b[D', 'turn 0/');
        await new Promise((r) => setTimeout(r, 400));
        const times: number[] = [];
        for (let i = 0; i < 11; i++) {
          const forward = i % 2 === 0;
          times.push(await pty.press(forward ? '\x1b[C' : '\x1b[D', forward ? 'turn 1/' : 'turn 0/'));
          await new Promise((r) => setTimeout(r, 50));
        }
        const ms = median(times);
        return { median_ms: round(ms, 1), per_s: round(1000 / ms, 1) };
      } finally {
        pty.kill();
      }
    },
  },
  {
    // The Episodes list over 100,000 episodes: from a down arrow written to the pty until the
    // cursor's new position is on screen (a page read per move), and from the enter that applies
    // a filter until its count is (a count and a page under the filter).
    name: 'tui.episodes_keypress_100k',
    unit: 'redraws',
    async run() {
      const { dir } = await workspaceWith100kEpisodes();
      const pty = new Pty(`${process.execPath} ${BIN}`, { ...withoutCi(), GEOLAB_HOME: dir });
      try {
        await pty.until('Watch a model');
        await pty.press('\r', ' 1/100000');
        const moves: number[] = [];
        for (let k = 2; k <= 12; k++) moves.push(await pty.press('\x1b[B', ` ${k}/100000`));
        const filters: number[] = [];
        for (const verdict of ['Pinpoint', 'Right region', 'Right country']) {
          await pty.press('/', 'filter');
          pty.write(`verdict:"${verdict}"`); // the prompt starts empty: `c` cleared the filter
          await new Promise((r) => setTimeout(r, 100));
          filters.push(await pty.press('\r', 'of 100000'));
          await pty.press('c', '100000 recorded');
        }
        const ms = median(moves);
        return { median_ms: round(ms, 1), per_s: round(1000 / ms, 1), filter_ms: round(median(filters), 1) };
      } finally {
        pty.kill();
      }
    },
  },
  {
    // Truecolor, as in a modern terminal: the most escapes per cell. Warm: the modules are loaded.
    name: 'tui.inline_panorama',
    unit: 'images',
    async run() {
      const { renderHalfBlocks } = await import('../src/tui/images/half-blocks.js');
      const view = await demoView();
      await renderHalfBlocks(view, 58, 29, 3);
      const times: number[] = [];
      for (let i = 0; i < 11; i++) {
        const start = performance.now();
        await renderHalfBlocks(view, 58 - (i % 2), 29, 3);
        times.push(performance.now() - start);
      }
      const ms = median(times);
      return { median_ms: round(ms, 1), per_s: round(1000 / ms, 1) };
    },
  },
  {
    // The same view for kitty's protocol: the PNG it takes and the escapes that carry it.
    name: 'tui.inline_panorama_kitty',
    unit: 'images',
    async run() {
      const { kittyImage, kittyPng } = await import('../src/tui/images/native.js');
      const view = await demoView();
      kittyImage(await kittyPng(view), { width: 58, height: 29 }, 1);
      const times: number[] = [];
      for (let i = 0; i < 11; i++) {
        const start = performance.now();
        kittyImage(await kittyPng(view), { width: 58, height: 29 }, i + 2);
        times.push(performance.now() - start);
      }
      const ms = median(times);
      return { median_ms: round(ms, 1), per_s: round(1000 / ms, 1) };
    },
  },
];

/** A 640 px view of a demo panorama as the environment serves it. */
async function demoView(): Promise<Buffer> {
  const { createEnvironment } = await import('../src/env/environment.js');
  const { demoSplits } = await import('../src/env/task-splits.js');
  const env = createEnvironment({ splits: await demoSplits(), panoramasDir: mkdtempSync(join(tmpdir(), 'geolab-bench-panos-')), demo: true, workers: 0 });
  const episode = env.newEpisode();
  const first = await episode.reset({ split: 'eval', index: 6 });
  await env.close();
  return Buffer.from(first.observation.image_base64 ?? '', 'base64');
}
