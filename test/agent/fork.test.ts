/**
 * Forking an episode (src/agent/fork.ts, docs/episodes.md#fork-an-episode): an episode recorded against
 * the embedded environment by a model on a scripted endpoint, replayed up to turn K and played on by
 * a second scripted endpoint. The fork's turns before K are the original's, the request at turn K is
 * the one the original sent, and a changed environment is caught with nothing recorded.
 */
import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { openEnvironment, type OpenedEnvironment } from '../../src/agent/agent-run.js';
import { EnvironmentChangedError, forkEpisode, planFork } from '../../src/agent/fork.js';
import { createModelPolicy, type Protocol } from '../../src/agent/policies/model.js';
import { createRecorder } from '../../src/agent/recorder.js';
import { runEpisode } from '../../src/agent/runner.js';
import { isCompleted, type CompletedEpisode, type EpisodeRecord, type FailedEpisode, type Turn } from '../../src/core/episode.js';
import { compareEpisodes } from '../../src/eval/compare.js';
import { loadEpisode } from '../../src/store/episodes.js';
import type { Workspace } from '../../src/store/index.js';
import { startScriptedOpenAI, toolCall, type ChatRequestBody, type ScriptedOpenAI, type ScriptedReply } from '../helpers/scripted-openai.js';
import { tempWorkspaces } from '../helpers/workspaces.js';

const workspace = tempWorkspaces();
const servers: ScriptedOpenAI[] = [];
const environments: OpenedEnvironment[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
  await Promise.all(environments.splice(0).map((e) => e.close()));
});

const SPLIT = 'eval';
const INDEX = 1;

async function endpoint(script: ScriptedReply[]): Promise<ScriptedOpenAI> {
  const server = await startScriptedOpenAI({ script });
  servers.push(server);
  return server;
}

async function environment(ws: Workspace, index = INDEX): Promise<OpenedEnvironment> {
  const opened = await openEnvironment({ split: SPLIT, index }, ws);
  environments.push(opened);
  return opened;
}

function modelPolicy(server: ScriptedOpenAI, protocol: Protocol, opened: OpenedEnvironment) {
  return createModelPolicy({ endpoint: { baseUrl: server.baseUrl, model: 'scripted', baseDelayMs: 1, timeoutMs: 5_000 }, protocol, guard: opened.guard });
}

/** Records one episode in the workspace, as `geolab agent` does. */
async function record(ws: Workspace, protocol: Protocol, script: ScriptedReply[], maxTurns = 12): Promise<{ record: CompletedEpisode; server: ScriptedOpenAI }> {
  const server = await endpoint(script);
  const opened = await environment(ws);
  const config = { mode: 'agentic', protocol, max_turns: maxTurns };
  const episode = await runEpisode({
    client: opened.client,
    policy: modelPolicy(server, protocol, opened),
    split: SPLIT,
    index: INDEX,
    task: opened.task,
    maxTurns,
    config,
    sink: createRecorder(ws, { config }),
  });
  if (!isCompleted(episode)) throw new Error(`the original failed: ${String(episode.error)}`);
  return { record: episode, server };
}

async function fork(ws: Workspace, original: EpisodeRecord, turn: number, protocol: Protocol, script: ScriptedReply[], index = INDEX) {
  const server = await endpoint(script);
  const opened = await environment(ws, index);
  const plan = planFork({ label: original.episode_id.slice(0, 8), record: original }, turn);
  const sink = createRecorder(ws, { runId: `fork-test-${turn}-${protocol}` });
  const forked = await forkEpisode({ ws, plan, next: modelPolicy(server, protocol, opened), client: opened.client, sink });
  return { forked, server, sink };
}

function completed(record: CompletedEpisode | FailedEpisode): CompletedEpisode {
  if (!isCompleted(record)) throw new Error(`episode failed: ${String(record.error)}`);
  return record;
}

/** The fields of a turn a replay must keep. */
const replayedFields = (t: Turn) => ({ turn: t.turn, action: t.action, wire_action: t.wire_action, model: t.model, messages: t.messages, image_sha256: t.image_sha256 });

/** A request's messages with images by the sha256 of their bytes, as the record keeps them. */
function byHash(messages: ChatRequestBody['messages']): unknown[] {
  return messages.map((m) => ({
    role: m.role,
    content: Array.isArray(m.content)
      ? (m.content as { type: string; text?: string; image_url?: { url: string } }[]).map((part) =>
          part.type === 'image_url'
            ? { type: 'image', sha256: createHash('sha256').update(Buffer.from(part.image_url!.url.split(',')[1]!, 'base64')).digest('hex') }
            : { type: 'text', text: part.text },
        )
      : (m.content ?? ''),
  }));
}

function recordedByHash(messages: unknown): unknown[] {
  return (messages as { role: string; content: unknown }[]).map((m) => ({
    role: m.role,
    content: Array.isArray(m.content) ? (m.content as { type: string; sha256?: string; text?: string }[]).map((p) => (p.type === 'image' ? { type: 'image', sha256: p.sha256 } : { type: 'text', text: p.text })) : m.content,
  }));
}

const count = (ws: Workspace) => ws.db.prepare('SELECT COUNT(*) FROM episodes').pluck().get() as number;

const TOOLS_SCRIPT: ScriptedReply[] = [
  { toolCalls: [toolCall('look', { heading_deg: 90, fov_deg: 60 })], reasoning: 'look east' },
  { toolCalls: [toolCall('zoom', { fov_deg: 40 })] },
  { toolCalls: [toolCall('pin', { lat: 10, lon: 20 })] },
  { toolCalls: [toolCall('guess', { lat: 40, lon: -3 })] },
];

const JSON_SCRIPT: ScriptedReply[] = [
  { text: 'East first.\n```json\n{"action": "look", "heading_deg": 90}\n```' },
  { text: '{"action": "place_pin", "lat": 10, "lon": 20}' },
  { text: '{"action": "look", "heading_deg": 200, "fov": 50}' },
  { text: '{"action": "submit_guess", "lat": 40, "lon": -3}' },
];

describe('forkEpisode with the native-tools protocol', () => {
  it('replays turns 1..K-1 as recorded and sends the recorded turn-K request', async () => {
    const ws = await workspace();
    const { record: original, server: first } = await record(ws, 'tools', TOOLS_SCRIPT);
    expect(original.turns.map((t) => t.action?.action)).toEqual(['reset', 'look', 'zoom', 'pin', 'guess']);

    const { forked, server: second, sink } = await fork(ws, original, 3, 'tools', [
      { toolCalls: [toolCall('look', { heading_deg: 270 })] },
      { toolCalls: [toolCall('guess', { lat: 41, lon: 2 })] },
    ]);
    const episode = completed(forked);
    // Turns 0..K-1 are the original's; from K on the second model played.
    expect(episode.turns.slice(0, 3).map(replayedFields)).toEqual(original.turns.slice(0, 3).map(replayedFields));
    expect(episode.turns.slice(3).map((t) => t.action)).toEqual([
      { action: 'look', heading_deg: 270 },
      { action: 'guess', lat: 41, lon: 2 },
    ]);
    expect(episode.outcome.guess).toEqual([41, 2]);
    expect(episode.episode_id).not.toBe(original.episode_id);
    expect(episode.task).toMatchObject({ split: original.task.split, index: original.task.index, sample: original.task.sample, task_id: original.task.task_id });

    // The second endpoint got the original's third request, byte for byte, and it is the recorded one.
    expect(second.requests).toHaveLength(2);
    expect(second.requests[0]!.body.messages).toEqual(first.requests[2]!.body.messages);
    expect(second.requests[0]!.body.tools).toEqual(first.requests[2]!.body.tools);
    expect(byHash(second.requests[0]!.body.messages)).toEqual(recordedByHash(original.turns[3]!.messages));
    // And the conversation carries on from there: the fork's own look is answered.
    expect(second.requests[1]!.body.messages.map((m) => m.role)).toEqual([...second.requests[0]!.body.messages.map((m) => m.role), 'assistant', 'tool', 'user']);

    expect(episode).toMatchObject({ forked_from: { episode_id: original.episode_id, turn: 3 } });
    const stored = loadEpisode(ws.db, episode.episode_id);
    expect(stored).toMatchObject({ forked_from: { episode_id: original.episode_id, turn: 3 }, task: { index: INDEX } });
    expect(ws.db.prepare('SELECT run_id FROM episodes WHERE episode_id = ?').pluck().get(episode.episode_id)).toBe(sink.runId);

    // The pair compares turn by turn (one task).
    const comparison = compareEpisodes({ label: 'orig', record: original }, { label: 'fork', record: episode });
    expect(comparison.rows.length).toBeGreaterThanOrEqual(5);
  });

  it('forks at turn 1 with the opening request', async () => {
    const ws = await workspace();
    const { record: original, server: first } = await record(ws, 'tools', TOOLS_SCRIPT);
    const { forked, server: second } = await fork(ws, original, 1, 'tools', [{ toolCalls: [toolCall('guess', { lat: 1, lon: 2 })] }]);
    expect(completed(forked).turns.map((t) => t.action?.action)).toEqual(['reset', 'guess']);
    expect(second.requests[0]!.body.messages).toEqual(first.requests[0]!.body.messages);
  });

  it('forks at the forced guess with the forced request, only guess offered', async () => {
    const ws = await workspace();
    const { record: original, server: first } = await record(
      ws,
      'tools',
      [{ toolCalls: [toolCall('look', { heading_deg: 90 })] }, { toolCalls: [toolCall('zoom', { fov_deg: 40 })] }, { toolCalls: [toolCall('guess', { lat: 40, lon: -3 })] }],
      2,
    );
    expect(original.turns.map((t) => t.action?.action)).toEqual(['reset', 'look', 'zoom', 'guess']);
    const { forked, server: second } = await fork(ws, original, 3, 'tools', [{ toolCalls: [toolCall('guess', { lat: 1, lon: 2 })] }]);
    expect(completed(forked).outcome.guess).toEqual([1, 2]);
    // The forced line was in the recorded request: sent once, not twice.
    expect(second.requests[0]!.body.messages).toEqual(first.requests[2]!.body.messages);
    expect(second.requests[0]!.body.tools!.map((t) => t.function.name)).toEqual(['guess']);
  });

  it('stops with EnvironmentChangedError when a replayed view differs, recording nothing', async () => {
    const ws = await workspace();
    const { record: original } = await record(ws, 'tools', TOOLS_SCRIPT);
    const before = count(ws);
    const edited = structuredClone(original);
    const recorded = 'ab'.repeat(32);
    edited.turns[2]!.image_sha256 = recorded;
    const attempt = fork(ws, edited, 4, 'tools', [{ toolCalls: [toolCall('guess', { lat: 1, lon: 2 })] }]);
    await expect(attempt).rejects.toThrow(EnvironmentChangedError);
    await expect(attempt).rejects.toThrow(
      `the environment changed since this was recorded: turn 2's view differs (recorded ${recorded.slice(0, 12)}, now ${original.turns[2]!.image_sha256!.slice(0, 12)})`,
    );
    expect(count(ws)).toBe(before);
    expect(servers.at(-1)!.requests).toHaveLength(0);
  });

  it('catches a fork pointed at another task at the reset', async () => {
    const ws = await workspace();
    const { record: original } = await record(ws, 'tools', TOOLS_SCRIPT);
    const before = count(ws);
    const elsewhere = structuredClone(original);
    elsewhere.task.index = INDEX + 1;
    await expect(fork(ws, elsewhere, 2, 'tools', [{ toolCalls: [toolCall('guess', { lat: 1, lon: 2 })] }], INDEX + 1)).rejects.toThrow(/turn 0's view differs \(recorded [0-9a-f]{12}, now [0-9a-f]{12}\)/);
    expect(count(ws)).toBe(before);
  });

  it('says which turns can be forked at', async () => {
    const ws = await workspace();
    const { record: original } = await record(ws, 'tools', TOOLS_SCRIPT);
    const named = { label: 'abcd1234', record: original };
    expect(() => planFork(named, 0)).toThrow('turn 0 cannot be forked at: episode abcd1234 has turns 1 to 4');
    expect(() => planFork(named, 5)).toThrow('has turns 1 to 4');
    expect(planFork(named, 4).replayed.map((t) => t.turn)).toEqual([1, 2, 3]);
  });

  it('names a missing image of the seeded request and how to get it', async () => {
    const ws = await workspace();
    const { record: original } = await record(ws, 'tools', TOOLS_SCRIPT);
    const image = (original.turns[2]!.messages as { content: unknown }[]).flatMap((m) => (Array.isArray(m.content) ? (m.content as { type: string; sha256?: string }[]) : [])).find((p) => p.type === 'image')!;
    ws.db.prepare('DELETE FROM images WHERE sha256 = ?').run(image.sha256);
    await expect(fork(ws, original, 2, 'tools', [{ toolCalls: [toolCall('guess', { lat: 1, lon: 2 })] }])).rejects.toThrow(
      `image ${image.sha256} of the recorded request is not in the workspace's image store: import the run folder`,
    );
  });
});

describe('forkEpisode with the JSON protocol', () => {
  it('replays and rebuilds the turn-K request from the history and the latest image', async () => {
    const ws = await workspace();
    const { record: original, server: first } = await record(ws, 'json', JSON_SCRIPT);
    expect(original.turns.map((t) => t.action?.action)).toEqual(['reset', 'look', 'place_pin', 'look', 'submit_guess']);
    // K = 3 follows the pin: the latest image then is the map the pin returned.
    const { forked, server: second } = await fork(ws, original, 3, 'json', [{ text: '{"action": "guess", "lat": 5, "lon": 6}' }]);
    const episode = completed(forked);
    expect(episode.turns.slice(0, 3).map(replayedFields)).toEqual(original.turns.slice(0, 3).map(replayedFields));
    expect(second.requests[0]!.body.messages).toEqual(first.requests[2]!.body.messages);
    expect(episode.outcome.guess).toEqual([5, 6]);
    expect(episode).toMatchObject({ forked_from: { episode_id: original.episode_id, turn: 3 } });
  });

  it('seeds the latest image when the turn before K returned none (a measure)', async () => {
    const ws = await workspace();
    const { record: original, server: first } = await record(ws, 'json', [
      { text: '{"action": "look", "heading_deg": 90}' },
      { text: '{"action": "measure", "lat_a": 10, "lon_a": 20, "lat_b": 11, "lon_b": 21}' },
      { text: '{"action": "submit_guess", "lat": 40, "lon": -3}' },
    ]);
    expect(original.turns.map((t) => t.image_kind)).toEqual(['view', 'view', 'none', expect.anything()]);
    const { server: second } = await fork(ws, original, 3, 'json', [{ text: '{"action": "submit_guess", "lat": 5, "lon": 6}' }]);
    // Turn 3's request shows turn 1's view, which the JSON policy only knows from the seed.
    expect(JSON.stringify(first.requests[2]!.body.messages)).toContain('data:image/jpeg;base64,');
    expect(second.requests[0]!.body.messages).toEqual(first.requests[2]!.body.messages);
  });

  it("forks a record in the public harness's dialect: harness actions, no wire actions or messages", async () => {
    const ws = await workspace();
    const { record: original } = await record(ws, 'json', JSON_SCRIPT);
    const harness = structuredClone(original) as CompletedEpisode;
    harness.config = { mode: 'agentic', prompt_version: 'v2', max_turns: 12 };
    harness.model = { provider: 'openai', model: 'some-model' };
    for (const turn of harness.turns) {
      delete turn.wire_action;
      delete turn.messages;
      delete turn.prompt;
    }
    const { forked, server: second } = await fork(ws, harness, 4, 'json', [{ text: '{"action": "submit_guess", "lat": 5, "lon": 6}' }]);
    const episode = completed(forked);
    // The harness's actions were read as the JSON protocol reads them, and the views matched.
    expect(episode.turns.slice(0, 4).map((t) => [t.action, t.image_sha256])).toEqual(original.turns.slice(0, 4).map((t) => [t.action, t.image_sha256]));
    expect(episode.turns.slice(1, 4).map((t) => t.wire_action)).toEqual(original.turns.slice(1, 4).map((t) => t.wire_action));
    expect(second.requests).toHaveLength(1);
    expect(episode.outcome.guess).toEqual([5, 6]);
  });

  it('refuses a native-tools model on a JSON record before playing', async () => {
    const ws = await workspace();
    const { record: original } = await record(ws, 'json', JSON_SCRIPT);
    await expect(fork(ws, original, 2, 'tools', [{ toolCalls: [toolCall('guess', { lat: 1, lon: 2 })] }])).rejects.toThrow(
      'was played with the json protocol: a native-tools model cannot take over its transcript',
    );
  });
});
