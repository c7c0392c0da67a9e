/**
 * TUI budgets (DESIGN §11): the first frame of `geolab` (Home) against a bare Ink hello-world
 * measured in the same run, and a keypress-to-redraw in the Player, both in a pseudo-terminal
 * (util-linux `script`) with CI unset so Ink draws live frames, in truecolor; an inline panorama, warm.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../src/paths.js';
import { median, round, type Bench } from './harness.js';

/** Milliseconds from spawning `command` in a pty until its output contains `marker`. */
function timeToText(command: string, marker: string, env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    // A new pty has no size until told: Ink would lay out for zero columns.
    const child = spawn('script', ['-qfec', `stty cols 120 rows 40; ${command}`, '/dev/null'], {
      env: { ...env, TERM: 'xterm-256color' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let seen = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`"${marker}" did not appear within 20 s; output: ${seen.slice(-500)}`));
    }, 20_000);
    child.stdout.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      if (seen.includes(marker)) {
        const ms = performance.now() - start;
        clearTimeout(timer);
        child.kill('SIGKILL');
        resolve(ms);
      }
    });
  });
}

function withoutCi(): NodeJS.ProcessEnv {
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
      const bin = join(PACKAGE_ROOT, 'bin', 'geolab.js');
      // The first start creates the demo workspace: not what this figure measures.
      await timeToText(`${process.execPath} ${bin}`, 'Episodes', env);
      const geolab: number[] = [];
      const bare: number[] = [];
      for (let i = 0; i < 3; i++) {
        bare.push(await timeToText(`${process.execPath} ${hello}`, 'hello from ink', env));
        geolab.push(await timeToText(`${process.execPath} ${bin}`, 'Episodes', env));
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
      const env = { ...withoutCi(), GEOLAB_HOME: home, COLORTERM: 'truecolor', TERM: 'xterm-256color' };
      const bin = join(PACKAGE_ROOT, 'bin', 'geolab.js');
      const list = spawnSync(process.execPath, [bin, 'episodes', 'list', '--json'], { env, encoding: 'utf8' });
      const episode = (JSON.parse(list.stdout) as { episode_id: string; model: string }[]).find((e) => e.model === 'scripted-demo');
      if (!episode) throw new Error('the demo workspace has no scripted-demo episode');
      const child = spawn('script', ['-qfec', `stty cols 120 rows 40; ${process.execPath} ${bin} episodes show ${episode.episode_id}`, '/dev/null'], {
        env,
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      let screen = '';
      const escapes = new RegExp(`${String.fromCharCode(27)}\\[[0-9;?]*[A-Za-z]`, 'g');
      child.stdout.on('data', (chunk: Buffer) => (screen += chunk.toString().replace(escapes, '')));
      const until = async (text: string) => {
        const deadline = performance.now() + 10_000;
        while (!screen.includes(text)) {
          if (performance.now() > deadline) throw new Error(`"${text}" never appeared`);
          await new Promise((r) => setImmediate(r));
        }
      };
      await until('turn 0/');
      // Both turns' images rendered once (they are cached), as when a person steps back and forth.
      child.stdin.write('\x1b[C');
      await new Promise((r) => setTimeout(r, 800));
      child.stdin.write('\x1b[D');
      await new Promise((r) => setTimeout(r, 800));
      const times: number[] = [];
      for (let i = 0; i < 11; i++) {
        const forward = i % 2 === 0;
        screen = '';
        const start = performance.now();
        child.stdin.write(forward ? '\x1b[C' : '\x1b[D');
        await until(forward ? 'turn 1/' : 'turn 0/');
        times.push(performance.now() - start);
        await new Promise((r) => setTimeout(r, 50));
      }
      child.kill('SIGKILL');
      const ms = median(times);
      return { median_ms: round(ms, 1), per_s: round(1000 / ms, 1) };
    },
  },
  {
    // Truecolor, as in a modern terminal: the most escapes per cell. Warm: the modules are loaded.
    name: 'tui.inline_panorama',
    unit: 'images',
    async run() {
      process.env.COLORTERM = 'truecolor';
      const { renderHalfBlocks } = await import('../src/tui/hooks/useImage.js');
      const view = await demoView();
      await renderHalfBlocks(view, 58, 29);
      const times: number[] = [];
      for (let i = 0; i < 11; i++) {
        const start = performance.now();
        await renderHalfBlocks(view, 58 - (i % 2), 29);
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
