import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { minDriver, torchCuda } from '../../src/train/driver.js';
import { TRAINER_REQUIREMENTS } from '../../src/train/python-path.js';
import { compareVersions, meetsPin, parseRequirements, trainerPins } from '../../src/train/requirements.js';

describe('the trainer requirements', () => {
  it('pins the stack exactly, jmespath among it, and every pin has its source in a comment above it', () => {
    const pins = new Map(trainerPins().map((p) => [p.name, p]));
    for (const [name, version] of Object.entries({ torch: '2.13.0', vllm: '0.27.1', trl: '1.12.0', transformers: '5.5.3', peft: '0.18.1', accelerate: '1.13.0', jmespath: '1.0.1' })) {
      expect(pins.get(name)).toEqual({ name, op: '==', version });
    }
    const lines = readFileSync(TRAINER_REQUIREMENTS, 'utf8').split('\n');
    lines.forEach((line, i) => {
      if (line.trim() && !line.startsWith('#')) expect(lines[i - 1], `no comment above ${line}`).toMatch(/^#|^[a-z]/);
    });
  });

  it('reads pins and compares versions the way pip would for these forms', () => {
    expect(parseRequirements('a[x]==1.0 # c\n\nB>=2\n')).toEqual([
      { name: 'a', op: '==', version: '1.0' },
      { name: 'b', op: '>=', version: '2' },
    ]);
    expect(() => parseRequirements('c~=1')).toThrow(/cannot read/);
    expect(meetsPin('2.13.0+cu128', { name: 'torch', op: '==', version: '2.13.0' })).toBe(true);
    expect(meetsPin('2.13.1', { name: 'torch', op: '==', version: '2.13.0' })).toBe(false);
    expect(meetsPin('4.10.0', { name: 'datasets', op: '>=', version: '4.7.0' })).toBe(true);
    expect(compareVersions('5.2.0.dev0', '5.2.0')).toBe(-1);
    expect(compareVersions('570.26', '570.124.06')).toBe(-1);
  });

  it('finds the CUDA of a torch wheel and the driver its toolkit release needs', () => {
    expect(torchCuda('2.13.0+cu130', [])).toBe('13.0');
    expect(torchCuda('2.13.0', ['nvidia-cuda-runtime-cu12==12.8.90; platform_system == "Linux"'])).toBe('12.8');
    expect(torchCuda('2.13.0', ['filelock'])).toBeUndefined();
    expect(minDriver('12.8')).toEqual({ driver: '570.26', row: '12.8' });
    expect(minDriver('12.7')).toEqual({ driver: '560.28.03', row: '12.6' });
    expect(minDriver('11.0')).toBeUndefined();
  });
});
