import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseModelsFile } from '../../src/agent/models-file.js';
import { geolab } from '../helpers/cli.js';
import { tempDir } from '../helpers/fixtures.js';
import { fakeMachine } from './machine.js';

/** A run folder whose config says output_dir "out", with these checkpoints (complete unless listed as partial). */
function runTree(
  options: { checkpoints?: number[]; partial?: number[]; final?: boolean; lora?: Record<string, unknown>; python?: string; model?: string } = {},
): { run: string; out: string } {
  const run = join(tempDir(), 'my run');
  const out = join(run, 'out');
  mkdirSync(out, { recursive: true });
  const extra = { ...(options.python ? { python: options.python } : {}), ...(options.model ? { model: options.model } : {}) };
  writeFileSync(join(run, 'config.json'), JSON.stringify({ version: 1, name: 'geo1', output_dir: 'out', lora: options.lora ?? {}, grpo: { max_model_len: 16384 }, ...extra }));
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

/** A Python environment folder whose bin/ holds a python and a stand-in vllm that records its argv. */
function venv(): { python: string; record: string } {
  const dir = join(tempDir(), 'venv');
  mkdirSync(join(dir, 'bin'), { recursive: true });
  const record = join(dir, 'argv.txt');
  const script = (name: string, body: string) => {
    writeFileSync(join(dir, 'bin', name), `#!/bin/sh\n${body}\n`);
    chmodSync(join(dir, 'bin', name), 0o755);
  };
  script('python', 'exit 9');
  script('vllm', `for a in "$@"; do printf '%s\\n' "$a"; done > '${record}'\necho venv vllm says hello\nexit 7`);
  return { python: join(dir, 'bin', 'python'), record };
}

const THINKING_OFF = '{"enable_thinking": false}';

describe('geolab train serve', () => {
  it('serves the last complete checkpoint (by step, not by name), in the trained mode, and prints the eval line for adapter and base', () => {
    const { run, out } = runTree({ checkpoints: [25, 75, 100], partial: [125] });
    const r = geolab(['train', 'serve', run], { home: tempDir() });
    expect(r.code, r.stderr).toBe(0);
    const adapter = join(out, 'checkpoint-100');
    const models = join(out, 'eval-models.geo1-ckpt100.json');
    expect(r.stdout).toBe(
      [
        `checkpoint 100 of Qwen/Qwen3.5-4B: ${adapter}`,
        // No venv named (python3): the module entry point of that python, not whatever vllm is on PATH.
        `python3 -m vllm.entrypoints.openai.api_server --model Qwen/Qwen3.5-4B --enable-lora --lora-modules 'geo1-ckpt100=${adapter}' --max-lora-rank 16 --enable-auto-tool-choice --tool-call-parser qwen3_xml --reasoning-parser qwen3 --default-chat-template-kwargs '${THINKING_OFF}' --max-model-len 16384 --host 127.0.0.1 --port 8000`,
        `then score it against its base, both with chat_template_kwargs {"enable_thinking":false} (geo1-ckpt100, geo1-base in ${models}):`,
        `  geolab eval run --models '${models}'`,
        '',
      ].join('\n'),
    );
    // The models file eval run reads: two arms on the one server, each request with thinking off.
    const specs = parseModelsFile(readFileSync(models, 'utf8'), models);
    expect(specs.map((m) => [m.name, m.model, m.baseUrls])).toEqual([
      ['geo1-ckpt100', 'geo1-ckpt100', ['http://127.0.0.1:8000/v1']],
      ['geo1-base', 'Qwen/Qwen3.5-4B', ['http://127.0.0.1:8000/v1']],
    ]);
    for (const spec of specs) expect(spec.extraBody).toEqual({ chat_template_kwargs: { enable_thinking: false } });
  });

  it('the venv named by the config serves: its bin/vllm is the one run, not the vllm on PATH', () => {
    const env = venv();
    const tree = runTree({ checkpoints: [50], python: env.python });
    const onPath = join(tempDir(), 'path-vllm.txt');
    const { path } = fakeMachine({ bins: { vllm: `echo wrong > '${onPath}'\nexit 3` } });
    const r = geolab(['train', 'serve', tree.run, '--exec', '--port', '8011'], { env: { PATH: path }, home: tempDir() });
    expect(r.code).toBe(7);
    expect(r.stdout).toBe('venv vllm says hello\n');
    expect(r.stderr).toContain(`geolab eval run --models '${join(tree.out, 'eval-models.geo1-ckpt50.json')}'`);
    expect(readFileSync(env.record, 'utf8').split('\n').slice(0, -1)).toEqual([
      'serve', 'Qwen/Qwen3.5-4B', '--enable-lora', '--lora-modules', `geo1-ckpt50=${join(tree.out, 'checkpoint-50')}`, '--max-lora-rank', '16',
      '--enable-auto-tool-choice', '--tool-call-parser', 'qwen3_xml', '--reasoning-parser', 'qwen3', '--default-chat-template-kwargs', THINKING_OFF,
      '--max-model-len', '16384', '--host', '127.0.0.1', '--port', '8011',
    ]);
    expect(() => readFileSync(onPath)).toThrow();
    // The dry plan (--json) names the same executable.
    const plan = JSON.parse(geolab(['train', 'serve', tree.run, '--json'], { home: tempDir() }).stdout) as { command: string[]; adapter: string };
    expect(plan.command.slice(0, 3)).toEqual([join(dirname(env.python), 'vllm'), 'serve', 'Qwen/Qwen3.5-4B']);
    expect(plan.adapter).toBe(join(tree.out, 'checkpoint-50'));
  });

  it('a config python without a vllm beside it runs the module entry point; a python that is not there is named', () => {
    const dir = join(tempDir(), 'plain', 'bin');
    mkdirSync(dir, { recursive: true });
    const record = join(dir, 'argv.txt');
    writeFileSync(join(dir, 'python'), `#!/bin/sh\nfor a in "$@"; do printf '%s\\n' "$a"; done > '${record}'\nexit 0\n`);
    chmodSync(join(dir, 'python'), 0o755);
    const { run } = runTree({ checkpoints: [50], python: join(dir, 'python') });
    expect(geolab(['train', 'serve', run, '--exec'], { home: tempDir() }).code).toBe(0);
    expect(readFileSync(record, 'utf8').split('\n').slice(0, 4)).toEqual(['-m', 'vllm.entrypoints.openai.api_server', '--model', 'Qwen/Qwen3.5-4B']);
    const missing = geolab(['train', 'serve', runTree({ checkpoints: [50], python: '/nonexistent/venv/bin/python' }).run, '--exec'], { home: tempDir() });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("geolab: /nonexistent/venv/bin/python not found: install the trainer's requirements");
  });

  it('the reasoning parser only for Qwen3.x bases (an id or a local folder); --max-lora-rank rounded up to a rank vLLM takes', () => {
    const plan = (tree: { run: string }) => JSON.parse(geolab(['train', 'serve', tree.run, '--json'], { home: tempDir() }).stdout) as { command: string[] };
    expect(plan(runTree({ checkpoints: [5], model: 'meta-llama/Llama-3.1-8B-Instruct' })).command).not.toContain('--reasoning-parser');
    const local = join(tempDir(), 'weights');
    mkdirSync(local);
    writeFileSync(join(local, 'config.json'), JSON.stringify({ model_type: 'qwen3_5' }));
    const fromFolder = plan(runTree({ checkpoints: [5], model: local })).command;
    expect(fromFolder.slice(fromFolder.indexOf('--reasoning-parser'), fromFolder.indexOf('--reasoning-parser') + 2)).toEqual(['--reasoning-parser', 'qwen3']);
    const rank = (r: number) => {
      const command = plan(runTree({ checkpoints: [5], lora: { r } })).command;
      return command[command.indexOf('--max-lora-rank') + 1];
    };
    expect([rank(12), rank(16), rank(32), rank(100)]).toEqual(['16', '16', '32', '128']);
  });

  it('prefers the final adapter, takes --checkpoint and --port, and reads a config path as well as a run folder', () => {
    const { run, out } = runTree({ checkpoints: [25, 50], final: true, lora: { r: 32, alpha: 64 } });
    const final = JSON.parse(geolab(['train', 'serve', join(run, 'config.json'), '--json'], { home: tempDir() }).stdout) as Record<string, unknown>;
    expect(final).toMatchObject({ name: 'geo1', adapter: join(out, 'final'), checkpoint: null, port: 8000 });
    expect(final.command).toContain('--max-lora-rank');
    expect((final.command as string[])[(final.command as string[]).indexOf('--max-lora-rank') + 1]).toBe('32');
    const picked = JSON.parse(geolab(['train', 'serve', run, '--checkpoint', '25', '--port', '8123', '--json'], { home: tempDir() }).stdout) as Record<string, unknown>;
    expect(picked).toMatchObject({ name: 'geo1-ckpt25', adapter: join(out, 'checkpoint-25'), checkpoint: 25, port: 8123 });
    expect(picked.evalCommand).toEqual(['geolab', 'eval', 'run', '--models', join(out, 'eval-models.geo1-ckpt25.json')]);
    expect((picked.models as { base_url: string }[]).map((m) => m.base_url)).toEqual(['http://127.0.0.1:8123/v1', 'http://127.0.0.1:8123/v1']);
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
});
