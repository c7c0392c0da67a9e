/**
 * The runner against the real embedded environment, with model policies talking to a scripted
 * OpenAI-compatible server over HTTP.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { knowledgeFromTask } from '../../src/agent/leak-guard.js';
import { fixedPolicy } from '../../src/agent/policies/baselines.js';
import { createModelPolicy, type Protocol } from '../../src/agent/policies/model.js';
import { ONE_CALL_AT_A_TIME } from '../../src/agent/protocols/tools.js';
import { runEpisode } from '../../src/agent/runner.js';
import { runHeadless } from '../../src/agent/headless.js';
import type { EpisodeSink, Policy, RunnerEvent, RunOptions } from '../../src/agent/types.js';
import { isCompleted, parseEpisodeRecord, type CompletedEpisode, type FailedEpisode } from '../../src/core/episode.js';
import { destinationPoint, haversineKm } from '../../src/core/geodesy.js';
import { referenceReward } from '../../src/core/scoring.js';
import { truthOf, type Task } from '../../src/core/tasks.js';
import { EmbeddedEnvClient } from '../../src/env/client/embedded.js';
import type { EnvClient } from '../../src/env/client/types.js';
import { createEnvironment, type Environment } from '../../src/env/environment.js';
import { demoSplits } from '../../src/env/task-splits.js';
import { EnvError, type Action, type StepResult } from '../../src/env/types.js';
import { tempDir } from '../helpers/fixtures.js';
import { startScriptedOpenAI, toolCall, type ScriptedOpenAI, type ScriptedReply } from '../helpers/scripted-openai.js';

const SPLIT = 'eval';
const INDEX = 1;
let env: Environment;
let task: Task;
let server: ScriptedOpenAI | undefined;

beforeAll(async () => {
  const splits = await demoSplits();
  task = splits.get(SPLIT)![INDEX]!;
  env = createEnvironment({ splits, panoramasDir: tempDir('geolab-agent-panos-'), demo: true, workers: 0 });
});
afterAll(() => env.close());
afterEach(async () => {
  await server?.close();
  server = undefined;
});

interface Written {
  record: CompletedEpisode | FailedEpisode;
  images: ReadonlyMap<string, { bytes: Buffer; mime: string }>;
}

function memorySink(): EpisodeSink & { written: Written[] } {
  const written: Written[] = [];
  return { written, write: async (record, images) => void written.push({ record, images }) };
}

async function play(
  script: ScriptedReply[],
  options: { protocol?: Protocol; maxTurns?: number; client?: EnvClient; signal?: AbortSignal; events?: RunnerEvent[] } = {},
) {
  server = await startScriptedOpenAI({ script });
  const policy = createModelPolicy({
    endpoint: { baseUrl: server.baseUrl, model: 'scripted', baseDelayMs: 1, timeoutMs: 2_000 },
    protocol: options.protocol ?? 'tools',
    guard: knowledgeFromTask(task),
  });
  return run(policy, options);
}

async function run(policy: Policy, options: { maxTurns?: number; client?: EnvClient; signal?: AbortSignal; events?: RunnerEvent[] } = {}) {
  const sink = memorySink();
  const record = await runEpisode({
    client: options.client ?? new EmbeddedEnvClient(env),
    policy,
    split: SPLIT,
    index: INDEX,
    maxTurns: options.maxTurns,
    config: { mode: 'test', prompt_version: 'test' },
    sink,
    signal: options.signal,
    onEvent: (event) => options.events?.push(event),
  });
  expect(sink.written).toHaveLength(1);
  expect(parseEpisodeRecord(JSON.parse(JSON.stringify(record)))).toMatchObject({ ok: true });
  return { record, images: sink.written[0]!.images };
}

function completed(record: CompletedEpisode | FailedEpisode): CompletedEpisode {
  if (!isCompleted(record)) throw new Error(`episode failed: ${String(record.error)}`);
  return record;
}

/** The embedded client with its step replaced. */
function wrapClient(inner: EnvClient, step: (inner: EnvClient, action: Action) => Promise<StepResult>): EnvClient {
  return {
    kind: inner.kind,
    location: inner.location,
    reset: (request) => inner.reset(request),
    step: (action) => step(inner, action),
    state: () => inner.state(),
    mcp: (request) => inner.mcp(request),
    splits: () => inner.splits(),
    close: () => inner.close(),
  };
}

/** Paths of every object key whose value is null (the record leaves such keys out). */
function nullKeys(value: unknown, path = ''): string[] {
  if (Array.isArray(value)) return value.flatMap((item, i) => nullKeys(item, `${path}[${i}]`));
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([key, item]) => (item === null ? [`${path}.${key}`] : nullKeys(item, `${path}.${key}`)));
}

const texts = (body: ScriptedOpenAI['requests'][number]['body']) => JSON.stringify(body.messages);

describe('runEpisode with native tools', () => {
  it('plays, records every turn field and scores like the environment', async () => {
    const truth = truthOf(task);
    const ownPin = destinationPoint(truth.lat, truth.lon, 45, 5);
    const guess = destinationPoint(truth.lat, truth.lon, 200, 50);
    const events: RunnerEvent[] = [];
    const { record, images } = await play(
      [
        { toolCalls: [toolCall('look', { heading_deg: 90, fov_deg: 60 })], reasoning: 'look east' },
        { toolCalls: [toolCall('pin', { lat: ownPin.lat, lon: ownPin.lon })] },
        { toolCalls: [toolCall('guess', { lat: guess.lat, lon: guess.lon })] },
      ],
      { events },
    );
    const episode = completed(record);
    expect(episode.turns!.map((t) => t.action?.action)).toEqual(['reset', 'look', 'pin', 'guess']);
    const [reset, look, pin, guessTurn] = episode.turns!;
    expect(reset).toMatchObject({ turn: 0, camera_after: { heading_deg: 0, fov_deg: 90, frame_index: task.start_frame }, image_kind: 'view' });
    expect(look).toMatchObject({
      turn: 1,
      status: 'ok',
      camera_before: { heading_deg: 0, fov_deg: 90 },
      camera_after: { heading_deg: 90, fov_deg: 60, pitch_deg: 0 },
      image_kind: 'view',
      action_cost: 0.01,
      steps_remaining: 23,
      moved_meters: 0,
      done: false,
      model: { reasoning: 'look east', finish_reason: 'tool_calls', attempts: 1, errors: [] },
    });
    expect(look).not.toHaveProperty('reward');
    expect(look!.available_tools).toContain('guess');
    expect(images.has(look!.image_sha256!)).toBe(true);
    expect(pin).toMatchObject({ image_kind: 'map', pins: [[ownPin.lat, ownPin.lon]], action_cost: 0.03 });
    expect(guessTurn).toMatchObject({ done: true, reward: episode.outcome.reward });

    const d = haversineKm(guess.lat, guess.lon, truth.lat, truth.lon);
    expect(episode.outcome).toMatchObject({
      guess: [guess.lat, guess.lon],
      truth: [truth.lat, truth.lon],
      verdict: 'Close',
      parsed_ok: true,
      forced_guess: false,
      action_cost: 0.03,
      n_looks: 1,
      n_pins: 1,
      turns_used: 3,
      turns_ok: 3,
      turns_unparseable: 0,
      turns_provider_error: 0,
      tokens_in: 101 + 102 + 103,
      tokens_out: 11 + 12 + 13,
    });
    expect(episode.outcome.distance_km).toBeCloseTo(d, 6);
    expect(episode.outcome.reward).toBeCloseTo(Math.exp(-d / 1492.7) - 0.03, 9);
    expect(episode.outcome.train_reward).toBeCloseTo(referenceReward(d, 0.03), 12);
    expect(episode.task).toMatchObject({ split: SPLIT, index: INDEX, sample: 0, task_id: task.task_id, country: task.country });
    expect(episode).toMatchObject({ model_name: 'scripted', model: { provider: 'openai-compatible', protocol: 'tools' }, config: { max_turns: 12 } });
    expect(events.map((e) => e.type)).toEqual(['started', 'thinking', 'turn', 'thinking', 'turn', 'thinking', 'turn', 'finished']);

    // What the model saw: the harness's instruction and budget, never the environment's.
    const [first, second, third] = server!.requests.map((r) => r.body);
    expect(first!.messages).toHaveLength(1);
    expect(texts(first!)).toContain('You have 12 tool calls');
    expect(texts(first!)).toContain('data:image/jpeg;base64,');
    expect(texts(first!)).not.toContain('submit_guess');
    expect(first!.tools!.map((t) => t.function.name)).toEqual(['look', 'zoom', 'move', 'pin', 'guess']);
    expect(second!.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'user']);
    expect(second!.messages[2]!.content).toBe('Facing 90° (E), pitch 0°, field of view 60°. 11 tool calls left.');
    expect(texts(third!)).not.toMatch(/actions left/);

    // Recorded messages refer to images by hash, and the sink got every one of them.
    expect(JSON.stringify(record)).not.toContain('base64');
    const recorded = guessTurn!.messages as { content: unknown }[];
    const hashes = JSON.stringify(recorded).match(/"sha256":"[0-9a-f]{64}"/g)!;
    expect(hashes.length).toBe(3);
    for (const h of hashes) expect(images.has(h.slice(10, -1))).toBe(true);
  });

  it("writes the harness's dialect: token names, camera_before on turn 0, no null keys, environment base_url", async () => {
    const { record } = await play([{ content: 'Looking east.', toolCalls: [toolCall('look', { heading_deg: '90' })] }, { toolCalls: [toolCall('guess', { lat: 1, lon: 2 })] }]);
    const episode = completed(record);
    expect(nullKeys(record)).toEqual([]);
    const [reset, look] = episode.turns!;
    expect(reset!.camera_before).toEqual(reset!.camera_after);
    expect(reset).not.toHaveProperty('model');
    expect(reset).not.toHaveProperty('prompt');
    // What the model sent (a quoted number), and what was executed.
    expect(look!.action).toEqual({ action: 'look', heading_deg: '90' });
    expect(look!.wire_action).toMatchObject({ op: 'look', heading_deg: 90 });
    expect(look!.model).toMatchObject({
      reply: 'Looking east.',
      tool_calls: [{ function: { name: 'look' } }],
      tokens: { input: 101, output: 11, total: 112 },
    });
    expect(look!.model!.tokens).not.toHaveProperty('in');
    expect(episode.config).toMatchObject({ mode: 'agentic', base_url: 'embedded', max_turns: 12 });
    expect(episode.model).toMatchObject({ base_url: server!.baseUrl, prompt_version: 'geolab-tools-1' });
    expect(episode.outcome).toMatchObject({ tokens_in: 101 + 102, tokens_out: 11 + 12 });
  });

  it('records a provider error on the turn and goes on', async () => {
    const { record } = await play([{ status: 500 }, { status: 502 }, { status: 503 }, { status: 500 }, { toolCalls: [toolCall('guess', { lat: 1, lon: 2 })] }]);
    const episode = completed(record);
    expect(episode.turns![1]).not.toHaveProperty('action');
    expect(episode.turns![1]).toMatchObject({
      status: 'provider_error',
      image_kind: 'none',
      steps_remaining: 24,
      model: { attempts: 3, errors: [expect.stringMatching(/^attempt 1: HTTP 500/), expect.anything(), expect.stringMatching(/^attempt 3: HTTP 503/)] },
    });
    expect(episode.turns![1]!.feedback).toContain('failed after 3 attempts');
    expect(episode.turns![2]).toMatchObject({ status: 'ok', model: { attempts: 2, errors: [expect.stringMatching(/^attempt 1: HTTP 500/)] } });
    expect(episode.outcome).toMatchObject({ turns_provider_error: 1, turns_ok: 1, turns_used: 2 });
  });

  it('answers extra calls of a reply with an error and executes only the first', async () => {
    const { record } = await play([
      { toolCalls: [toolCall('look', { heading_deg: 180 }), toolCall('zoom', { fov_deg: 30 })] },
      { toolCalls: [toolCall('guess', { lat: 1, lon: 2 })] },
    ]);
    expect(completed(record).turns![1]).toMatchObject({ action: { action: 'look', heading_deg: 180 }, camera_after: { fov_deg: 90 } });
    const second = server!.requests[1]!.body.messages;
    expect(second.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'tool', 'user']);
    expect(second[3]).toMatchObject({ name: 'zoom', content: ONE_CALL_AT_A_TIME });
  });

  it('spends the turn on a malformed tool call without an environment step', async () => {
    const { record } = await play([{ toolCalls: [toolCall('pin', '{"lat": 10, "lon": ')] }, { toolCalls: [toolCall('guess', { lat: 1, lon: 2 })] }]);
    const episode = completed(record);
    expect(episode.turns![1]).toMatchObject({ status: 'unparseable', steps_remaining: 24, action_cost: 0, image_kind: 'none' });
    // What the model sent, arguments as written; nothing was executed.
    expect(episode.turns![1]!.action).toEqual({ action: 'pin', arguments: '{"lat": 10, "lon": ' });
    expect(episode.turns![1]).not.toHaveProperty('wire_action');
    expect(episode.outcome).toMatchObject({ turns_unparseable: 1, n_pins: 0 });
    const answer = server!.requests[1]!.body.messages[2]!;
    expect(answer).toMatchObject({ role: 'tool', name: 'pin' });
    expect(String(answer.content)).toMatch(/^Error: The arguments of pin are not a JSON object .* 11 tool calls left\.$/);
  });

  it('forces a guess at the turn limit and submits an empty one when none comes', async () => {
    const { record } = await play(
      [{ toolCalls: [toolCall('look', { heading_deg: 90 })] }, { toolCalls: [toolCall('zoom', { fov_deg: 40 })] }, { text: 'Still not sure.' }],
      { maxTurns: 2 },
    );
    const episode = completed(record);
    expect(episode.turns!.at(-1)).toMatchObject({ turn: 3, status: 'unparseable', action: { action: 'forced_guess' }, done: true, reward: 0 });
    expect(episode.outcome).toMatchObject({ forced_guess: true, parsed_ok: false, reward: 0, train_reward: 0, turns_used: 3 });
    expect(episode.outcome).not.toHaveProperty('distance_km');
    expect(episode.turns!.at(-1)!.wire_action).toEqual({ op: 'guess', response: '' });
    expect(server!.requests[1]!.body.messages[2]!.content).toContain('1 tool call left: THIS IS YOUR FINAL ACTION');
    const forced = server!.requests[2]!.body;
    expect(forced.tools!.map((t) => t.function.name)).toEqual(['guess']);
    expect(String(forced.messages.at(-1)!.content)).toContain('Call guess now');
    expect(forced.messages.map((m) => m.role).slice(-3)).toEqual(['tool', 'user', 'user']);
    expect(forced.messages.at(-3)!.content).toBe('Field of view now 40°, facing 90° (E). No tool calls left.');
  });

  it('takes the guess the forced turn yields', async () => {
    const { record } = await play([{ toolCalls: [toolCall('look', { heading_deg: 90 })] }, { toolCalls: [toolCall('guess', { lat: 10, lon: 20 })] }], {
      maxTurns: 1,
    });
    expect(completed(record).outcome).toMatchObject({ forced_guess: false, guess: [10, 20], parsed_ok: true });
    expect(JSON.stringify(server!.requests[1]!.body.messages)).toContain('No tool calls left.');
  });
});

describe('runEpisode with JSON actions', () => {
  it('plays stateless requests, reads aliases and counts an unparseable reply', async () => {
    const truth = truthOf(task);
    const { record } = await play(
      [
        { text: 'Let me look east.\n```json\n{"action": "look", "heading_deg": 90}\n```' },
        { text: 'I will pin a guess area. {"action": "place_pin", "lat": 10, "lon": 20, "span_deg": 3}' },
        { text: 'Hmm, no idea.' },
        { text: `Final: {"action": "submit_guess", "lat": ${truth.lat}, "lon": ${truth.lon + 1}}` },
      ],
      { protocol: 'json' },
    );
    const episode = completed(record);
    expect(episode.turns!.map((t) => t.status)).toEqual(['ok', 'ok', 'ok', 'unparseable', 'ok']);
    expect(episode.turns![2]!.action).toEqual({ action: 'place_pin', lat: 10, lon: 20, span_deg: 3 });
    expect(episode.turns![2]!.wire_action).toEqual({ op: 'pin', lat: 10, lon: 20, span_deg: 3 });
    expect(episode.turns![3]).not.toHaveProperty('action');
    expect(episode.outcome).toMatchObject({ turns_unparseable: 1, n_pins: 1, verdict: 'Close' });
    expect(episode.model).toMatchObject({ prompt_version: 'geolab-json-1' });
    for (const { body } of server!.requests) {
      expect(body.messages.map((m) => m.role)).toEqual(['system', 'user']);
      expect(body.tools).toBeUndefined();
      expect(JSON.stringify(body).match(/data:image/g)).toHaveLength(1);
    }
    const fourth = texts(server!.requests[3]!.body);
    expect(fourth).toContain('Turn 2: pin(lat=10, lon=20, span_deg=3)');
    expect(fourth).toContain('Turn 3: no valid action');
    expect(fourth).toContain('the map returned by turn 2');
  });
});

describe('runEpisode failures', () => {
  it('refuses to send a request that leaks the task id, and fails the episode', async () => {
    const leaky = wrapClient(new EmbeddedEnvClient(env), async (inner, action) => {
      const result = await inner.step(action);
      return { ...result, observation: { ...result.observation, feedback: `${result.observation.feedback} (task ${task.task_id})` } };
    });
    const { record } = await play([{ toolCalls: [toolCall('look', { heading_deg: 90 })] }, { toolCalls: [toolCall('guess', { lat: 1, lon: 2 })] }], {
      client: leaky,
    });
    expect(isCompleted(record)).toBe(false);
    expect(record.error).toMatch(new RegExp(`^leak guard: task_id "${task.task_id}" in message 2 \\(tool\\)`));
    expect(record).toMatchObject({ schema_version: 2, model_name: 'scripted', task: { split: SPLIT, index: INDEX }, config: { prompt_version: 'test' } });
    expect(record.leak_findings).toMatchObject([{ kind: 'identity' }]);
    // The leaking request never left.
    expect(server!.requests).toHaveLength(1);
  });

  it('ends an aborted episode as failed with "aborted"', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    const { record } = await play([{ hang: true }], { signal: controller.signal });
    expect(record).toMatchObject({ error: 'aborted', traceback: null });
  });

  it('fails the episode on an environment error', async () => {
    const broken = wrapClient(new EmbeddedEnvClient(env), async () => {
      throw new EnvError('EXECUTION_ERROR', 'could not draw the view; nothing changed, try again');
    });
    const { record } = await run(fixedPolicy({ lat: 1, lon: 2 }), { client: broken });
    expect(record.error).toBe('environment EXECUTION_ERROR: could not draw the view; nothing changed, try again');
    expect(record.traceback).toContain('EnvError');
  });

  it('spends the turn on an action the environment refuses, and tells the policy', async () => {
    const seen: string[] = [];
    const policy: Policy = {
      name: 'clumsy',
      identity: {},
      async decide({ turn }) {
        return turn === 1
          ? { action: { op: 'pin', lat: 500, lon: 0 }, status: 'ok' }
          : { action: { op: 'guess', lat: 1, lon: 2 }, status: 'ok' };
      },
      observe: (result) => void seen.push(result.observation.feedback),
    };
    const episode = completed((await run(policy)).record);
    expect(episode.turns![1]).toMatchObject({ status: 'unparseable', steps_remaining: 24, feedback: expect.stringMatching(/^Invalid action: pin\.lat/) });
    expect(seen[0]).toMatch(/^Invalid action/);
  });
});

describe('baselines and headless output', () => {
  it('guesses at turn 1 and prints one line per turn and the outcome', async () => {
    const lines: string[] = [];
    const truth = truthOf(task);
    const options: RunOptions = { client: new EmbeddedEnvClient(env), policy: fixedPolicy({ lat: 0, lon: 0 }), split: SPLIT, index: INDEX };
    const episode = completed(await runHeadless({ ...options, print: (line) => lines.push(line) }));
    expect(episode.outcome.distance_km).toBeCloseTo(haversineKm(0, 0, truth.lat, truth.lon), 6);
    expect(episode.outcome.turns_used).toBe(1);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^turn {2}1 {2}guess\(lat=0, lon=0\) {2}Wrong continent: .* {2}cost 0\.00$/);
    expect(lines[1]).toMatch(/^outcome {2}Wrong continent, \d+\.\d km {2}reward 0\.\d{4} {2}reference 0\.\d{4} {2}cost 0\.00 {2}guess 0\.0000, 0\.0000 {2}turns 1 \(1 ok, 0 unparseable, 0 provider errors\)$/);
  });
});
