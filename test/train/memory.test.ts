import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseTrainConfig, type TrainConfig, type TrainConfigInput } from '../../src/train/config.js';
import { locateModel, readModelFacts } from '../../src/train/model-files.js';
import { runPreflight } from '../../src/train/preflight.js';
import type { PreflightCheck } from '../../src/train/types.js';
import { tempDir } from '../helpers/fixtures.js';
import { A100, RTX_24GB, closedPort, fakeMachine } from './machine.js';

/** nvidia-smi's memory.total in MiB: an A100 40 GB reports 40,960. */
const A100_40GB = 'NVIDIA A100-SXM4-40GB, 40960, 40000, 8.0';

/** Qwen3.5-4B as assumed here: ~8.4e9 bytes of bf16 weights; hidden 2560, 32 layers (every 4th full attention), 4 KV heads of 256. */
const QWEN35_4B_CONFIG = {
  architectures: ['Qwen3_5ForConditionalGeneration'],
  text_config: { hidden_size: 2560, num_hidden_layers: 32, intermediate_size: 9216, vocab_size: 248320, num_attention_heads: 16, num_key_value_heads: 4, head_dim: 256, full_attention_interval: 4 },
};

function modelFolder(dir: string, files: { index?: number; config?: object }): string {
  mkdirSync(dir, { recursive: true });
  if (files.index !== undefined) writeFileSync(join(dir, 'model.safetensors.index.json'), JSON.stringify({ metadata: { total_size: files.index }, weight_map: {} }));
  if (files.config) writeFileSync(join(dir, 'config.json'), JSON.stringify(files.config));
  return dir;
}

async function memoryCheck(input: Partial<TrainConfigInput>, gpu: string, env: Record<string, string> = {}): Promise<PreflightCheck> {
  const parsed = parseTrainConfig({ version: 1, name: 'run1', output_dir: tempDir(), env: { mode: 'remote', url: `http://127.0.0.1:${await closedPort()}` }, ...input });
  if ('problems' in parsed) throw new Error(JSON.stringify(parsed.problems));
  const config: TrainConfig = parsed.config;
  const report = await runPreflight(config, { env: { PATH: fakeMachine({ gpus: [gpu] }).path, HOME: tempDir(), ...env } });
  return report.checks.find((c) => c.id === 'gpu.memory')!;
}

describe('pre-flight: the memory gate by size', () => {
  it('weighs a local folder of Qwen3.5-4B: the recipe fits 80 GB, not 40 GB or 24 GB, with the arithmetic printed', async () => {
    const model = modelFolder(join(tempDir(), 'qwen35-4b'), { index: 8.4e9, config: QWEN35_4B_CONFIG });
    const big = await memoryCheck({ model }, A100);
    expect(big).toMatchObject({ status: 'pass', message: 'NVIDIA A100-SXM4-80GB, 81,920 MiB total: the run fits (about 40.9 GiB of 80.0 GiB)' });
    expect(big.detail).toEqual([
      `${model} (${model}; shape: config.json)`,
      'weights         7.8 GiB  model.safetensors.index.json metadata.total_size',
      'LoRA            0.1 GiB  10.5M params (r=16 on q_proj,k_proj,v_proj,o_proj) x 8 B (fp32 weight + gradient)',
      'optimizer       0.1 GiB  AdamW, 2 fp32 moments per LoRA param',
      "vLLM's share   17.6 GiB  grpo.vllm_gpu_memory_utilization 0.22 x 80.0 GiB",
      'activations    13.3 GiB  1 x 7168 tokens (max_completion_length 6144 + 1024 prompt): checkpointed layers 1.9 GiB + logits 6144 x 248,320 x 8 B 11.4 GiB',
      'CUDA context    2.0 GiB  context and allocator slack',
      'total          40.9 GiB  of 80.0 GiB on the card',
      "vLLM's share 17.6 GiB must hold weights 7.8 GiB + KV for one 32768-token sequence 1.0 GiB (8 attention layers x 4,096 B/token) + 2.0 GiB working = 10.8 GiB",
    ]);
    const mid = await memoryCheck({ model }, A100_40GB);
    expect(mid).toMatchObject({ status: 'fail', message: expect.stringContaining("vLLM's share (8.8 GiB) cannot hold the weights and one 32768-token sequence (10.8 GiB)") });
    expect(mid.fix).toContain('grpo.vllm_gpu_memory_utilization (0.22; it needs >= 0.27 here)');
    const small = await memoryCheck({ model }, RTX_24GB);
    expect(small.status).toBe('fail');
    expect(small.detail).toContain('total          28.6 GiB  of 24.0 GiB on the card: does not fit');
    // More of the card for vLLM on 40 GB: then the sum is what decides, and it fits.
    expect((await memoryCheck({ model, grpo: { vllm_gpu_memory_utilization: 0.3 } }, A100_40GB)).status).toBe('pass');
  });

  it('finds a hub id in the Hugging Face cache: a 16 GB model without config.json fails even the 80 GB card', async () => {
    const hub = tempDir();
    const snapshot = modelFolder(join(hub, 'models--Org--Big-8B', 'snapshots', 'abc123'), { index: 16e9 });
    mkdirSync(join(hub, 'models--Org--Big-8B', 'refs'));
    writeFileSync(join(hub, 'models--Org--Big-8B', 'refs', 'main'), 'abc123\n');
    expect(locateModel('Org/Big-8B', { HF_HUB_CACHE: hub })).toBe(snapshot);
    expect(locateModel('Org/Big-8B', { HF_HOME: join(hub, '..') })).toBeUndefined();
    const found = await memoryCheck({ model: 'Org/Big-8B' }, A100, { HF_HUB_CACHE: hub });
    expect(found.status).toBe('fail');
    expect(found.detail?.[0]).toBe(`Org/Big-8B (${snapshot}; shape: estimated from the size (no config.json))`);
    expect(found.detail?.[1]).toBe('weights        14.9 GiB  model.safetensors.index.json metadata.total_size');
    // The default cache is ~/.cache/huggingface/hub under HOME.
    const home = tempDir();
    modelFolder(join(home, '.cache', 'huggingface', 'hub', 'models--Org--Small', 'snapshots', 'r1'), { config: QWEN35_4B_CONFIG });
    expect(locateModel('Org/Small', { HOME: home })).toBe(join(home, '.cache', 'huggingface', 'hub', 'models--Org--Small', 'snapshots', 'r1'));
  });

  it('estimates the size from config.json alone, and reads a single safetensors file by its header', () => {
    const onlyConfig = readModelFacts(modelFolder(join(tempDir(), 'c'), { config: QWEN35_4B_CONFIG }))!;
    expect(onlyConfig.sizeFrom).toMatch(/^config\.json/);
    // Untied: 2 x 248,320 x 2,560 embeddings + 32 x (4 x 2,560^2 + 3 x 2,560 x 9,216) = 4.44e9 params, bf16.
    expect(onlyConfig.weightBytes).toBe(2 * (2 * 248320 * 2560 + 32 * (4 * 2560 * 2560 + 3 * 2560 * 9216)));
    const dir = join(tempDir(), 's');
    mkdirSync(dir);
    const header = Buffer.from(JSON.stringify({ a: { dtype: 'BF16', shape: [1000, 1000], data_offsets: [0, 2e6] }, b: { dtype: 'BF16', shape: [10], data_offsets: [2e6, 2e6 + 20] } }));
    const len = Buffer.alloc(8);
    len.writeBigUInt64LE(BigInt(header.length));
    writeFileSync(join(dir, 'model.safetensors'), Buffer.concat([len, header]));
    expect(readModelFacts(dir)).toMatchObject({ weightBytes: 2e6 + 20, sizeFrom: 'model.safetensors header', shapeFrom: 'estimated from the size (no config.json)' });
    expect(readModelFacts(tempDir())).toBeUndefined();
  });
});
