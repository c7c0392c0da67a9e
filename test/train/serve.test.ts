import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { geolab } from '../helpers/cli.js';
import { tempDir } from '../helpers/fixtures.js';
import { fakeMachine } from './machine.js';

/** A run folder whose config says output_dir "out", with these checkpoints (complete unless listed as partial). */
function runTree(options: { checkpoints?: number[]; partial?: number[]; final?: boolean; lora?: Record<string, unknown> } = {}): { run: string; out: string } {
  const run = join(tempDir(), 'my run');
  const out = join(run, 'out');
  mkdirSync(out, { recursive: true });
  writeFileSync(join(run, 'config.json'), JSON.stringify({ version: 1, name: 'geo1', output_dir: 'out', lora: options.lora ?? {}, grpo: { max_model_len: 16384 } }));
  for (const step of [...(options.checkpoints ?? []), ...(options.partial ?? [])]) {
    mkdirSync(join(out, `checkpoint-${step}`));
    writeFileSync(join(out, `checkpoint-${step}`, 'trainer_state.json'), '{}');
    if (!options.partial?.includes(step)) writeFileSync(join(out, `checkpoint-${step}`, 'adapter_config.json'), '{}');
  }
  if (options.final) {
    mkdirSync(join(out, 'final'), { recursive: true });
    writeFileSync(join(out, 'final', 'adapter_config.json'), '{}');
  }
  return { run, out };
}

describe('geolab train serve', () => {
  it('serves the last complete checkpoint (by step, not by name) and prints the eval line', () => {
    const { run, out } = runTree({ checkpoints: [25, 75, 100], partial: [125] });
    const r = geolab(['train', 'serve', run], { home: tempDir() });
    expect(r.code, r.stderr).toBe(0);
    const adapter = join(out, 'checkpoint-100');
    expect(r.stdout).toBe(
      [
        `checkpoint 100 of Qwen/Qwen3.5-4B: ${adapter}`,
        `vllm serve Qwen/Qwen3.5-4B --enable-lora --lora-modules 'geo1-ckpt100=${adapter}' --max-lora-rank 16 --enable-auto-tool-choice --tool-call-parser qwen3_xml --max-model-len 16384 --host 127.0.0.1 --port 8000`,
        'then score it: geolab eval run --model geo1-ckpt100 --base-url http://127.0.0.1:8000/v1',
        '',
      ].join('\n'),
    );
  });

  it('prefers the final adapter, takes --checkpoint and --port, and reads a config path as well as a run folder', () => {
    const { run, out } = runTree({ checkpoints: [25, 50], final: true, lora: { r: 32, alpha: 64 } });
    const final = JSON.parse(geolab(['train', 'serve', join(run, 'config.json'), '--json'], { home: tempDir() }).stdout) as Record<string, unknown>;
    expect(final).toMatchObject({ name: 'geo1', adapter: join(out, 'final'), checkpoint: null, port: 8000 });
    expect(final.command).toContain('--max-lora-rank');
    expect((final.command as string[])[(final.command as string[]).indexOf('--max-lora-rank') + 1]).toBe('32');
    const picked = JSON.parse(geolab(['train', 'serve', run, '--checkpoint', '25', '--port', '8123', '--json'], { home: tempDir() }).stdout) as Record<string, unknown>;
    expect(picked).toMatchObject({ name: 'geo1-ckpt25', adapter: join(out, 'checkpoint-25'), checkpoint: 25, port: 8123 });
    expect(picked.evalCommand).toEqual(['geolab', 'eval', 'run', '--model', 'geo1-ckpt25', '--base-url', 'http://127.0.0.1:8123/v1']);
  });

  it('names what is missing: no adapter yet, an unknown checkpoint, a run folder without config', () => {
    const { run, out } = runTree({ partial: [25] });
    const none = geolab(['train', 'serve', run], { home: tempDir() });
    expect(none.code).toBe(2);
    expect(none.stderr).toBe(`geolab: ${out}: no adapter yet: neither a final adapter (final/adapter_config.json) nor a checkpoint-N with one; the trainer writes one every 25 steps\n`);
    const wrong = geolab(['train', 'serve', runTree({ checkpoints: [25, 50] }).run, '--checkpoint', '30'], { home: tempDir() });
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain('--checkpoint 30: no complete checkpoint-30 under');
    expect(wrong.stderr).toContain('(checkpoints: 25, 50)');
    const empty = geolab(['train', 'serve', tempDir()], { home: tempDir() });
    expect(empty.code).toBe(2);
    expect(empty.stderr).toMatch(/config\.json: cannot read the training config: ENOENT\n$/);
  });

  it('--exec runs vllm with exactly those arguments and passes its exit code on', () => {
    const { run, out } = runTree({ checkpoints: [50] });
    const record = join(tempDir(), 'argv.txt');
    const { path } = fakeMachine({ bins: { vllm: `for a in "$@"; do printf '%s\\n' "$a"; done > '${record}'\necho vllm says hello\nexit 7` } });
    const r = geolab(['train', 'serve', run, '--exec', '--port', '8011'], { env: { PATH: path }, home: tempDir() });
    expect(r.code).toBe(7);
    expect(r.stdout).toBe('vllm says hello\n');
    expect(r.stderr).toContain('then score it: geolab eval run --model geo1-ckpt50 --base-url http://127.0.0.1:8011/v1');
    expect(readFileSync(record, 'utf8').split('\n').slice(0, -1)).toEqual([
      'serve', 'Qwen/Qwen3.5-4B', '--enable-lora', '--lora-modules', `geo1-ckpt50=${join(out, 'checkpoint-50')}`, '--max-lora-rank', '16',
      '--enable-auto-tool-choice', '--tool-call-parser', 'qwen3_xml', '--max-model-len', '16384', '--host', '127.0.0.1', '--port', '8011',
    ]);
    const missing = geolab(['train', 'serve', run, '--exec'], { env: { PATH: fakeMachine().path.replace(/:.*/, '') }, home: tempDir() });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('geolab: vllm not found on PATH');
  });
});
