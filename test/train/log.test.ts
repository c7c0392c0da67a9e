import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { RunLogParser, formatDuration } from '../../src/train/log.js';

const fixture = (name: string) => readFileSync(new URL(`../fixtures/train/${name}`, import.meta.url), 'utf8');

describe('training log parser', () => {
  it('reads the training bar redrawn with \\r, not the shard or vLLM bars, and the metric dicts', () => {
    const snap = RunLogParser.parse(fixture('trl-run.log')).snapshot();
    expect(snap).toMatchObject({ phase: 'training', step: 3, max_steps: 250, eta_s: 1 * 3600 + 41 * 60 + 40, s_per_it: 25.1 });
    expect(snap.metrics.map((p) => p.step)).toEqual([1, 2]);
    // np.float64(...) reprs and exponents are numbers like any other.
    expect(snap.metrics[0]!.values).toMatchObject({ reward: 0.3125, learning_rate: 3e-5, 'completions/mean_length': 912.5, 'tools/call_frequency': 7.5 });
    expect(snap.metrics[1]!.values.loss).toBe(-0.004);
    expect(snap.warnings.map((w) => w.message)).toEqual(['completions clipped (25%): raise max_completion_length or lower max_turns']);
    expect(snap.crashed).toBeUndefined();
  });

  it('gives the same snapshot fed in arbitrary chunks (bytes split mid-character included)', () => {
    const bytes = Buffer.from(fixture('trl-run.log'));
    const whole = RunLogParser.parse(fixture('trl-run.log')).snapshot();
    for (const size of [1, 7, 64]) {
      const parser = new RunLogParser();
      for (let at = 0; at < bytes.length; at += size) parser.feed(bytes.subarray(at, at + size));
      expect(parser.snapshot()).toEqual(whole);
    }
  });

  it('shows the bar being drawn before its line ends', () => {
    const parser = new RunLogParser({ maxSteps: 250 }).feed('\r  0%|   | 0/250 [00:00<?, ?it/s]\r  1%|   | 3/250 [01:15<1:42:55, 25.0s/it]');
    expect(parser.snapshot()).toMatchObject({ step: 3, eta_s: 6175, s_per_it: 25 });
    expect(new RunLogParser().feed(' 50%|##| 4/8 [00:02<00:02, 2.00it/s]').snapshot().s_per_it).toBe(0.5);
  });

  it('a described bar as long as the run is not the training bar (a two-step smoke run loads two shards)', () => {
    const parser = new RunLogParser({ maxSteps: 2 }).feed('Loading checkpoint shards: 100%|##########| 2/2 [00:03<00:00,  1.62s/it]\n');
    expect(parser.snapshot()).toMatchObject({ step: null, s_per_it: null });
    parser.feed('\r  0%|          | 0/2 [00:00<?, ?it/s]\r 50%|#####     | 1/2 [01:10<01:10, 70.0s/it]');
    expect(parser.snapshot()).toMatchObject({ step: 1, s_per_it: 70 });
  });

  it('cuts a resumed run at its last resume marker: steps logged past the checkpoint count once, as replayed', () => {
    const snap = RunLogParser.parse(fixture('trl-resumed.log')).snapshot();
    expect(snap.resumed_from).toEqual({ step: 25, checkpoint: 'runs/r1/checkpoint-25' });
    expect(snap.step).toBe(27);
    const steps = snap.metrics.map((p) => p.step);
    expect(steps).toEqual([...Array(26).keys()].map((i) => i + 1));
    // Steps 1-25 are the first process's, 26 the resumed one's (the old 26 and 27 were dropped).
    expect(snap.metrics[24]!.values.reward).toBe(0.125);
    expect(snap.metrics[25]!.values.reward).toBe(0.526);
    expect(snap.checkpoints).toEqual([{ step: 25, path: 'runs/r1/checkpoint-25' }]);
    // The first process's KeyboardInterrupt is history, not this run's crash.
    expect(snap.phase).toBe('training');
    expect(RunLogParser.parse(fixture('trl-resumed.log')).snapshot({ exited: { code: 1 } }).crashed!.last_lines.join('\n')).not.toContain('KeyboardInterrupt');
  });

  it('reports a crash with the traceback, not the noise before it', () => {
    const parser = RunLogParser.parse(fixture('trl-crash.log'));
    expect(parser.snapshot().crashed).toBeUndefined();
    const snap = parser.snapshot({ exited: { code: 1 } });
    expect(snap.phase).toBe('failed');
    expect(snap.crashed!.exit_code).toBe(1);
    expect(snap.crashed!.last_lines[0]).toBe('Traceback (most recent call last):');
    expect(snap.crashed!.last_lines.at(-1)).toMatch(/^torch.OutOfMemoryError: CUDA out of memory/);
    expect(snap.warnings.map((w) => w.id)).toEqual(['dead-groups']);
  });

  it('without a traceback, a crash shows the last lines of the log', () => {
    const lines = Array.from({ length: 60 }, (_, i) => `line ${i}`).join('\n') + '\n';
    const crashed = RunLogParser.parse(lines).snapshot({ exited: { code: null } }).crashed!;
    expect(crashed.last_lines).toHaveLength(40);
    expect(crashed.last_lines.at(-1)).toBe('line 59');
  });

  it("reads the trainer's own lines: phases, steps, checkpoints, resume; done is no crash", () => {
    const lines = [
      { geolab: 'phase', phase: 'loading', time: '2026-12-01T10:00:00Z' },
      { geolab: 'step', step: 1, max_steps: 4, metrics: { reward: 0.2 }, elapsed_s: 3, time: '2026-12-01T10:00:03Z' },
      { geolab: 'checkpoint', step: 1, path: '/o/checkpoint-1', time: '2026-12-01T10:00:04Z' },
      { geolab: 'step', step: 2, max_steps: 4, metrics: { reward: 0.3 }, elapsed_s: 6, time: '2026-12-01T10:00:06Z' },
      { geolab: 'resume', step: 1, checkpoint: '/o/checkpoint-1', time: '2026-12-01T10:01:00Z' },
      { geolab: 'step', step: 2, max_steps: 4, metrics: { reward: 0.4 }, elapsed_s: 3, time: '2026-12-01T10:01:03Z' },
      { geolab: 'phase', phase: 'done', time: '2026-12-01T10:02:00Z' },
    ];
    const snap = RunLogParser.parse(lines.map((l) => JSON.stringify(l)).join('\n') + '\n').snapshot({ exited: { code: 0 } });
    expect(snap).toMatchObject({ phase: 'done', step: 2, max_steps: 4, eta_s: 0, checkpoints: [{ step: 1, path: '/o/checkpoint-1' }] });
    expect(snap.metrics).toEqual([{ step: 1, values: { reward: 0.2 } }, { step: 2, values: { reward: 0.4 } }]);
    expect(snap.crashed).toBeUndefined();
  });

  it('warns when no step came for long, and not once the run ended', () => {
    const line = JSON.stringify({ geolab: 'step', step: 5, max_steps: 250, metrics: {}, elapsed_s: 100, time: '2026-12-01T10:00:00Z' }) + '\n';
    const parser = RunLogParser.parse(line);
    const at = Date.parse('2026-12-01T10:30:00Z');
    expect(parser.snapshot({ nowMs: at }).warnings).toEqual([{ id: 'stalled', message: 'no step progress for 30 min' }]);
    expect(parser.snapshot({ nowMs: Date.parse('2026-12-01T10:05:00Z') }).warnings).toEqual([]);
    expect(parser.snapshot({ nowMs: at, exited: { code: 1 } }).warnings).toEqual([]);
  });

  it('takes the checkpoint path a resume line names, absolute or not', () => {
    expect(RunLogParser.parse('Resuming from checkpoint /abs/run/checkpoint-50\n').snapshot().resumed_from).toEqual({ step: 50, checkpoint: '/abs/run/checkpoint-50' });
    expect(RunLogParser.parse('resuming from checkpoint-7\n').snapshot().resumed_from).toEqual({ step: 7, checkpoint: 'checkpoint-7' });
  });

  it('keeps only the end of a line that never ends, and reads the lines after it', () => {
    const parser = new RunLogParser({ maxSteps: 250 });
    const chunk = 'x'.repeat(1 << 20);
    for (let i = 0; i < 8; i++) parser.feed(chunk);
    expect((parser as unknown as { pending: string }).pending.length).toBeLessThanOrEqual(2 << 20);
    parser.feed('\r  1%|   | 3/250 [01:15<1:42:55, 25.0s/it]');
    expect(parser.snapshot().step).toBe(3);
  });

  it('formats durations', () => {
    expect([formatDuration(40), formatDuration(720), formatDuration(11_100)]).toEqual(['40 s', '12 min', '3 h 05 min']);
  });
});

describe("TRL's metric rows", () => {
  it("reads the keys GRPOTrainer logs, and warns of a collapsed importance-sampling ratio and of groups all scored alike", () => {
    const snap = RunLogParser.parse(fixture('trl-collapse.log'), { maxSteps: 250 }).snapshot();
    expect(snap.metrics.map((p) => p.step)).toEqual([1, 2]);
    expect(snap.metrics[0]!.values).toMatchObject({
      reward: 0.28,
      reward_std: 0.21,
      frac_reward_zero_std: 0,
      kl: 0,
      entropy: 0.74,
      'completions/mean_length': 1184,
      'completions/clipped_ratio': 0,
      'tools/call_frequency': 6.25,
      'sampling/importance_sampling_ratio/min': 0,
      'sampling/importance_sampling_ratio/mean': 0.03,
      'sampling/importance_sampling_ratio/max': 1.9,
    });
    expect(snap.metrics[1]!.values).toMatchObject({ kl: 0.0012, frac_reward_zero_std: 1, 'sampling/importance_sampling_ratio/mean': 0.000118 });
    expect(snap.warnings.map((w) => w.id)).toEqual(['all-groups-equal', 'is-collapse']);
    expect(snap.warnings[1]!.message).toBe(
      'importance-sampling ratio collapsed (mean 1.2e-4): the gradient is scaled to almost nothing; set grpo.vllm_importance_sampling_correction to false',
    );
    // Step 1 alone: a ratio of 0.03 and no dead group warn of nothing.
    const first = RunLogParser.parse(fixture('trl-collapse.log').split('\n').slice(0, 4).join('\n'), { maxSteps: 250 }).snapshot();
    expect(first.warnings).toEqual([]);
  });

  it('reads a value printed as a string like a number', () => {
    const snap = RunLogParser.parse("{'loss': '0.0123', 'reward': '0.4', 'epoch': '0.01'}\n").snapshot();
    expect(snap.metrics[0]!.values).toEqual({ loss: 0.0123, reward: 0.4, epoch: 0.01 });
  });
});
