/**
 * Records the demo episodes shipped in datasets/demo/episodes/ so the Player has something to show
 * on a fresh machine: the three baselines, and a scripted tool-calling "model" served by a local
 * OpenAI-compatible endpoint (the one the tests use) that looks, walks, pins and guesses.
 *
 *   npx tsx datasets/demo/record-episodes.ts
 *
 * Episodes are played by the real binary against the embedded environment, then copied with their
 * images (by content hash: the turns' images and the views sent to the model) beside the JSONL,
 * which a new workspace imports.
 */
import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startScriptedOpenAI, toolCall } from '../../test/helpers/scripted-openai.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const out = join(root, 'datasets', 'demo', 'episodes');
const home = mkdtempSync(join(tmpdir(), 'geolab-demo-episodes-'));

function geolab(args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(root, 'bin', 'geolab.js'), ...args], {
      env: { ...process.env, GEOLAB_HOME: home },
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`geolab ${args.join(' ')} exited ${code}`))));
  });
}

// A plausible play of eval task 6 (Serbia): look around, walk, pin the Balkans, guess Belgrade.
const model = await startScriptedOpenAI({
  models: [{ id: 'scripted-demo' }],
  script: [
    { toolCalls: [toolCall('look', { heading_deg: 90, fov_deg: 90, pitch_deg: 0 })], reasoning: 'Check the sign side of the road first.' },
    { toolCalls: [toolCall('zoom', { fov_deg: 40 })], reasoning: 'The sign is in Cyrillic; zoom in to read it.' },
    { toolCalls: [toolCall('move', { direction: 'forward', meters: 15 })], reasoning: 'Walk on for another view.' },
    { toolCalls: [toolCall('pin', { lat: 44.8, lon: 20.5 })], reasoning: 'Cyrillic with Latin below, driving on the right: Serbia.' },
    { toolCalls: [toolCall('guess', { lat: 44.8, lon: 20.45 })], reasoning: 'Belgrade is my best guess.' },
  ],
});
try {
  const common = ['agent', '--headless', '--split', 'eval'];
  await geolab([...common, '--task', '6', '--model', 'scripted-demo', '--base-url', model.baseUrl]);
  await geolab([...common, '--task', '0', '--policy', 'prior']);
  await geolab([...common, '--task', '1', '--policy', 'random-land']);
  await geolab([...common, '--task', '3', '--policy', 'fixed', '--point', '48.8566,2.3522']);
} finally {
  await model.close();
}

rmSync(out, { recursive: true, force: true });
mkdirSync(join(out, 'images'), { recursive: true });
const lines: string[] = [];
for (const run of readdirSync(join(home, 'runs')).sort()) {
  for (const line of readFileSync(join(home, 'runs', run, 'episodes.jsonl'), 'utf8').split('\n').filter(Boolean)) {
    const record = JSON.parse(line) as { turns?: { image_sha256?: string | null; image_path?: string | null; messages?: { content?: unknown }[] }[] };
    for (const turn of record.turns ?? []) {
      // The views sent to the model, named by hash in the messages: the import stores them from
      // images/ too, so that the demo workspace's audit can check them.
      for (const message of turn.messages ?? []) {
        for (const part of Array.isArray(message.content) ? (message.content as { type?: string; sha256?: string }[]) : []) {
          if (part.type !== 'image' || !part.sha256) continue;
          const stored = join(home, 'images', part.sha256.slice(0, 2));
          const file = readdirSync(stored).find((name) => name.startsWith(part.sha256 as string)) as string;
          copyFileSync(join(stored, file), join(out, 'images', file));
        }
      }
      if (!turn.image_sha256 || !turn.image_path) continue;
      const file = basename(turn.image_path);
      copyFileSync(join(home, 'runs', run, turn.image_path), join(out, 'images', file));
      turn.image_path = `images/${file}`;
    }
    lines.push(JSON.stringify(record));
  }
}
writeFileSync(join(out, 'episodes.jsonl'), lines.join('\n') + '\n');
rmSync(home, { recursive: true, force: true });
process.stderr.write(`wrote ${lines.length} episodes to ${out}\n`);
