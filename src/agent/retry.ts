/**
 * Retrying one recorded turn (docs/episodes.md, "Retry a turn"): "would the model do that again?". The
 * request of turn K is rebuilt from the record (its recorded messages, images from the workspace
 * store by sha256, the tools and sampling geolab sends for that turn), checked against the hash the
 * agent recorded when it sent it (`turn.request_sha256`), and sent N times through the agent's own
 * client code; each reply is read by the protocol's own reader, so an action means what it meant
 * in the episode. No printing: the CLI (`geolab episodes retry`) and the TUI both call this.
 *
 * The canonical request and its hash live here, and the agent's recorder side
 * (src/agent/policies/model.ts) calls the same function, so "the same request" has one definition.
 */
import { createHash } from 'node:crypto';
import { join, resolve } from 'node:path';
import { isCompleted, tokenCounts, withoutEmptyKeys, type EpisodeRecord, type Turn } from '../core/episode.js';
import { GeolabError, UsageError } from '../core/errors.js';
import { haversineKm, type LatLon } from '../core/geodesy.js';
import type { NamedEpisode } from '../store/episode-refs.js';
import { readContainedFile } from '../files.js';
import { MAX_IMAGE_BYTES } from '../store/import-episodes.js';
import { readImage, sha256Hex, sniffImageMime } from '../store/images.js';
import type { Workspace } from '../store/index.js';
import { anthropicCompletion } from './anthropic.js';
import { wireMessage } from './images.js';
import { guardRequest, type GuardKnowledge } from './leak-guard.js';
import { chatCompletion, type ChatCall, type Endpoint } from './openai.js';
import { pointsOfAction } from '../env/action-facts.js';
import { readJsonReply } from './protocols/json.js';
import { readToolReply, sentAction, toolSpec, toolSpecs, withCallIds, type ToolSet } from './protocols/tools.js';
import type { RecordedMessage, RecordedPart } from './types.js';

// ---------------------------------------------------------------------------------------------
// The canonical request and its hash

/** A request as geolab defines it for hashing: what decides the model's reply, images by sha256. */
export interface CanonicalRequest {
  model: string;
  messages: readonly RecordedMessage[];
  tools: readonly unknown[] | null;
  sampling: { temperature: number | null; max_tokens: number | null; extra_body: Record<string, unknown> | null };
}

/**
 * JSON with every object's keys sorted. Messages lose their empty keys first, as the record keeps
 * them (docs/formats.md: a key without a value is omitted), so a request and its record hash alike.
 */
export function canonicalRequestJson(request: CanonicalRequest): string {
  return JSON.stringify(sortedKeys({ ...request, messages: withoutEmptyKeys(request.messages) }));
}

/** sha256 (hex) of the canonical JSON: turn.request_sha256. */
export function requestSha256(request: CanonicalRequest): string {
  return createHash('sha256').update(canonicalRequestJson(request)).digest('hex');
}

function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
      .map((key) => [key, sortedKeys((value as Record<string, unknown>)[key])]),
  );
}

// ---------------------------------------------------------------------------------------------
// Rebuilding a turn's request

export interface RetrySample {
  /** The executed op the reply asked for (`look`, `guess`...), or the tool/action name it sent when unusable. */
  action: string | null;
  arguments: Record<string, unknown> | null;
  status: 'ok' | 'unparseable' | 'provider_error';
  reply: string | null;
  reasoning: string | null;
  tokens: { input?: number; output?: number; total?: number } | null;
  latency_s: number | null;
  guess: [number, number] | null;
  distance_km: number | null;
  /** Why there is no action (the reader's note), or the provider's last error. */
  error?: string;
}

export interface RebuiltRequest {
  turn: number;
  messages: RecordedMessage[];
  tools: unknown[] | null;
  sampling: { model: string; temperature: number | null; max_tokens: number | null; extra_body?: Record<string, unknown> };
  sha256: string;
  recordedSha256: string | null;
  /** What differs when the hashes differ; empty when they are equal. */
  differences: string[];
  images: Map<string, { bytes: Buffer; mime: string }>;
  recordedReply: RetrySample;
  /** How replies are read: the record's protocol (`json` for the harness's records). */
  protocol: 'tools' | 'json';
  toolSet: ToolSet;
  forced: boolean;
  maxTurns: number;
  /** True for a record of the public harness (no turn.messages): the request was rebuilt in its shape. */
  harness: boolean;
  /** True once the messages were replaced by `withEditedMessages`. */
  edited: boolean;
  /** What the leak guard checks the request against: the record's task and the agent's own points before this turn. */
  guard: { knowledge: GuardKnowledge; agentPoints: LatLon[] };
  /** The record's truth, for distances. */
  truth: [number, number] | null;
}

export interface RebuildOptions {
  /** In place of the recorded temperature. */
  temperature?: number;
}

/** The request turn `turn` of an episode sent, rebuilt from the record and the workspace's images. */
export function rebuildRequest(ws: Workspace, named: NamedEpisode, turn: number, options: RebuildOptions = {}): RebuiltRequest {
  const { record } = named;
  if (!isCompleted(record)) throw new GeolabError(`episode ${named.label} failed (${record.error}): it has no turns to retry`);
  const modelTurns = record.turns.filter((t) => t.turn >= 1 && t.model).map((t) => t.turn);
  const recordedTurn = record.turns.find((t) => t.turn === turn);
  if (!Number.isInteger(turn) || turn < 1 || !recordedTurn?.model) {
    const which = modelTurns.length ? `its model turns are ${ranges(modelTurns)}` : 'it has no model turns';
    throw new UsageError(`turn ${turn} of episode ${named.label} is not a model turn: ${which}`);
  }
  const model = (record.model ?? {}) as Record<string, unknown>;
  const config = (record.config ?? {}) as Record<string, unknown>;
  const recordedMessages = (recordedTurn as Turn & { messages?: unknown }).messages;
  const harness = !Array.isArray(recordedMessages) || recordedMessages.length === 0;
  const protocol: 'tools' | 'json' = !harness && model.protocol === 'tools' ? 'tools' : 'json';
  const toolSet: ToolSet = model.tools === 'all' ? 'all' : 'trained';
  const maxTurns = typeof config.max_turns === 'number' ? config.max_turns : Math.max(...modelTurns);
  // Past max_turns only a guess is allowed; the harness's single_shot turn is a guess too (its reply read for coordinates).
  const forced = turn > maxTurns || config.mode === 'single_shot';

  const messages = harness ? harnessMessages(record, turn, named) : (recordedMessages as RecordedMessage[]);
  const tools = protocol === 'tools' ? (forced ? [toolSpec('guess', toolSet)] : toolSpecs(toolSet)) : null;
  const recordedTemperature = numberOrNull(model.temperature);
  const extraBody = isObject(model.extra_body) ? model.extra_body : undefined;
  const sampling = {
    model: String(model.model ?? record.model_name ?? ''),
    temperature: options.temperature ?? recordedTemperature,
    max_tokens: numberOrNull(model.max_tokens),
    ...(extraBody ? { extra_body: extraBody } : {}),
  };
  const sha256 = hashOf(sampling, messages, tools);
  const recordedSha256 = typeof recordedTurn.request_sha256 === 'string' ? recordedTurn.request_sha256 : null;
  const differences: string[] = [];
  if (recordedSha256 && recordedSha256 !== sha256) {
    if (options.temperature !== undefined && options.temperature !== recordedTemperature) {
      differences.push(`temperature: recorded ${recordedTemperature ?? 'unset'}, this retry ${options.temperature}`);
    }
    if (differences.length === 0 || hashOf({ ...sampling, temperature: recordedTemperature }, messages, tools) !== recordedSha256) {
      differences.push(...unexplained({ sampling: { ...sampling, temperature: recordedTemperature }, messages, tools, protocol, toolSet, forced, recordedSha256 }));
    }
  }

  const truth = isCompleted(record) && record.outcome.truth ? ([record.outcome.truth[0], record.outcome.truth[1]] as [number, number]) : null;
  const readOptions = { protocol, toolSet, forced, maxTurns, turn, truth };
  return {
    turn,
    messages,
    tools,
    sampling,
    sha256,
    recordedSha256,
    differences,
    images: imagesOf(ws, named, messages),
    recordedReply: recordedSample(recordedTurn, readOptions),
    protocol,
    toolSet,
    forced,
    maxTurns,
    harness,
    edited: false,
    guard: {
      knowledge: knowledgeOf(record, truth),
      agentPoints: record.turns
        .filter((t) => t.turn < turn)
        .flatMap((t) => pointsOfAction(((t as Turn & { wire_action?: unknown }).wire_action ?? t.action) as Record<string, unknown> | null | undefined)),
    },
    truth,
  };
}

/** The request with the user's messages in place of the recorded ones (`--edit`); its images must be the request's. */
export function withEditedMessages(request: RebuiltRequest, edited: unknown, source = 'the edited messages'): RebuiltRequest {
  const messages = checkMessages(edited, source);
  for (const message of messages) {
    for (const part of typeof message.content === 'string' ? [] : message.content) {
      if (part.type === 'image' && !request.images.has(part.sha256)) {
        throw new UsageError(`${source}: image ${part.sha256} is not one of the request's images (${[...request.images.keys()].join(', ') || 'none'})`);
      }
    }
  }
  const sha256 = hashOf(request.sampling, messages, request.tools);
  const same = sha256 === hashOf(request.sampling, request.messages, request.tools);
  return { ...request, messages, sha256, edited: !same, differences: same ? request.differences : ['messages: edited'] };
}

function hashOf(sampling: RebuiltRequest['sampling'], messages: readonly RecordedMessage[], tools: readonly unknown[] | null): string {
  return requestSha256({
    model: sampling.model,
    messages,
    tools,
    sampling: { temperature: sampling.temperature, max_tokens: sampling.max_tokens, extra_body: sampling.extra_body ?? null },
  });
}

/**
 * Why a rebuilt request no longer hashes as recorded, as far as can be told: the messages and
 * sampling are the record's own, so the tools (rebuilt from the tool set's name) are tried first.
 */
function unexplained(input: {
  sampling: RebuiltRequest['sampling'];
  messages: RecordedMessage[];
  tools: unknown[] | null;
  protocol: 'tools' | 'json';
  toolSet: ToolSet;
  forced: boolean;
  recordedSha256: string;
}): string[] {
  const { sampling, messages, tools, recordedSha256 } = input;
  const count = (t: readonly unknown[] | null) => (t === null ? 'none' : String(t.length));
  const candidates: [string, unknown[] | null][] = [
    ['none', null],
    ...(['trained', 'all'] as const).flatMap((set): [string, unknown[]][] => [
      [`the ${set} set`, toolSpecs(set)],
      [`the forced guess of the ${set} set`, [toolSpec('guess', set)]],
    ]),
  ];
  for (const [name, candidate] of candidates) {
    if (hashOf(sampling, messages, candidate) === recordedSha256) return [`tools: recorded ${count(candidate)} (${name}), rebuilt ${count(tools)}`];
  }
  return [
    `the recorded request hashes otherwise: the messages and sampling are the record's own, so either the record was changed since, or geolab's tool definitions (rebuilt: ${count(tools)} tools) changed`,
  ];
}

/**
 * The public harness's request for turn K (its run_episode): one user message, the prompt text and
 * then the observation's image, the one the turn before returned (turn 0's for turn 1).
 */
function harnessMessages(record: EpisodeRecord & { turns: Turn[] }, turn: number, named: NamedEpisode): RecordedMessage[] {
  const current = record.turns.find((t) => t.turn === turn)!;
  if (typeof current.prompt !== 'string') {
    throw new GeolabError(`turn ${turn} of episode ${named.label} has neither messages nor a prompt: its request cannot be rebuilt`);
  }
  const before = record.turns.find((t) => t.turn === turn - 1);
  const content: RecordedPart[] = [{ type: 'text', text: current.prompt }];
  if (before?.image_sha256) content.push({ type: 'image', sha256: before.image_sha256, mime: before.image_kind === 'map' ? 'image/png' : 'image/jpeg' });
  return [{ role: 'user', content }];
}

/**
 * Every image the messages reference, from the workspace store, or else from beside the episode
 * file (its run folder's images/, a turn's image_path). Each one's bytes must still hash to its name.
 */
function imagesOf(ws: Workspace, named: NamedEpisode, messages: readonly RecordedMessage[]): Map<string, { bytes: Buffer; mime: string }> {
  const images = new Map<string, { bytes: Buffer; mime: string }>();
  const missing: string[] = [];
  const changed: string[] = [];
  for (const message of messages) {
    for (const part of typeof message.content === 'string' ? [] : message.content) {
      if (part.type !== 'image' || images.has(part.sha256)) continue;
      const bytes = readImage(ws, part.sha256) ?? besideFile(named, part.sha256);
      if (!bytes) {
        missing.push(part.sha256);
        continue;
      }
      const actual = sha256Hex(bytes);
      if (actual !== part.sha256) {
        changed.push(`${part.sha256} (its bytes now hash to ${actual})`);
        continue;
      }
      images.set(part.sha256, { bytes, mime: sniffImageMime(bytes) ?? part.mime });
    }
  }
  if (changed.length) throw new GeolabError(`the workspace's image store has changed: image ${changed.join(', ')}; the request cannot be rebuilt as sent`);
  if (missing.length) {
    const from = named.fileDir
      ? `import the run folder that holds them (\`geolab episodes import ${named.fileDir}\`, with its images/)`
      : 'import the run folder that holds them with `geolab episodes import DIR` (its images/ beside episodes.jsonl)';
    throw new GeolabError(`the workspace's image store has no image ${missing.join(', ')} (the request of this turn sent ${missing.length === 1 ? 'it' : 'them'}): ${from}`);
  }
  return images;
}

/**
 * An image beside the episode's file: its run folder's images/ (named by hash), or a turn's
 * image_path. Read as the import reads it: only inside that folder and under the size cap.
 */
function besideFile(named: NamedEpisode, sha256: string): Buffer | undefined {
  if (!named.fileDir || !/^[0-9a-f]{64}$/.test(sha256)) return undefined;
  const root = resolve(named.fileDir);
  const turns = isCompleted(named.record) ? named.record.turns : [];
  const candidates = [
    join(root, 'images', `${sha256}.jpg`),
    join(root, 'images', `${sha256}.png`),
    ...turns.filter((t) => t.image_sha256 === sha256 && typeof t.image_path === 'string').map((t) => resolve(root, t.image_path!)),
  ];
  for (const file of candidates) {
    const read = readContainedFile(file, [root], MAX_IMAGE_BYTES);
    if (read.ok) return read.bytes;
  }
  return undefined;
}

/** The leak guard's knowledge of the task, from what the record says of it. */
function knowledgeOf(record: EpisodeRecord, truth: [number, number] | null): GuardKnowledge {
  const task = (record.task ?? {}) as Record<string, unknown>;
  const attribution = isObject(task.attribution) ? task.attribution : {};
  const identity: GuardKnowledge['identity'] = [];
  const add = (kind: GuardKnowledge['identity'][number]['kind'], value: unknown) => {
    if ((typeof value === 'string' && value) || typeof value === 'number') identity.push({ kind, value: String(value) });
  };
  add('task_id', task.task_id);
  add('sequence_id', task.sequence_id);
  add('creator_username', attribution.creator_username);
  add('creator_id', attribution.creator_id);
  return { truth: truth ? { lat: truth[0], lon: truth[1] } : null, identity, ...(typeof task.country === 'string' && task.country ? { country: task.country } : {}) };
}

// ---------------------------------------------------------------------------------------------
// Sending it again

export interface RetrySummary {
  samples: number;
  /** Samples whose action is the recorded reply's. */
  sameAction: number;
  recordedAction: string | null;
  /** Samples that guessed coordinates. */
  guesses: number;
  /** The largest distance between two samples' guesses. */
  spreadKm: number | null;
  meanDistanceKm: number | null;
}

export interface RetryResult {
  request: RebuiltRequest;
  recorded: RetrySample;
  samples: RetrySample[];
  summary: RetrySummary;
}

/** Samples in flight at once: enough to be quick, few enough not to look like a load test. */
export const MAX_CONCURRENT_SAMPLES = 4;

/**
 * Sends the request `samples` times, at most four at once, each through the agent's client (its
 * retries included) after the leak guard. A gone endpoint rejects (EndpointGoneError, exit 3); a
 * request that got no reply is a `provider_error` sample. The sampling is the request's, the model
 * and the address the endpoint's.
 */
export async function retryTurn(options: {
  request: RebuiltRequest;
  endpoint: Endpoint;
  samples: number;
  truth: [number, number] | null;
  signal?: AbortSignal;
  onSample?: (index: number, sample: RetrySample) => void;
}): Promise<RetryResult> {
  const { request, signal } = options;
  if (!Number.isInteger(options.samples) || options.samples < 1) throw new UsageError(`samples must be a whole number of at least 1, got ${options.samples}`);
  await guardRequest({ messages: request.messages, images: request.images, knowledge: request.guard.knowledge, agentPoints: request.guard.agentPoints });
  const endpoint: Endpoint = {
    ...options.endpoint,
    temperature: request.sampling.temperature ?? undefined,
    maxTokens: request.sampling.max_tokens ?? undefined,
    extraBody: request.sampling.extra_body,
  };
  const wire = request.messages.map((m) => wireMessage(m, request.images));
  const complete = endpoint.provider === 'anthropic' ? anthropicCompletion : chatCompletion;
  const readOptions = { ...request, truth: options.truth };
  const samples: RetrySample[] = new Array(options.samples);
  let next = 0;
  let failed = false;
  const worker = async () => {
    // Once one request fails outright (the endpoint gone), the others start no more.
    while (next < options.samples && !failed) {
      const index = next++;
      try {
        const call = await complete(endpoint, { messages: wire, ...(request.tools ? { tools: request.tools } : {}) }, signal);
        samples[index] = sampleOf(call, readOptions);
      } catch (err) {
        failed = true;
        throw err;
      }
      options.onSample?.(index, samples[index]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(MAX_CONCURRENT_SAMPLES, options.samples) }, worker));
  const recorded = options.truth === request.truth ? request.recordedReply : withDistance(request.recordedReply, options.truth);
  return { request, recorded, samples, summary: summarize(recorded, samples) };
}

interface ReadOptions {
  protocol: 'tools' | 'json';
  toolSet: ToolSet;
  forced: boolean;
  maxTurns: number;
  turn: number;
  truth: [number, number] | null;
}

function sampleOf(call: ChatCall, options: ReadOptions): RetrySample {
  const reply = call.reply;
  if (!reply) {
    return { ...EMPTY, status: 'provider_error', latency_s: call.latencyS, error: (call.errors.at(-1) ?? 'no answer').replace(/^attempt \d+: /, '') };
  }
  const total = reply.tokensTotal ?? (reply.tokensIn !== null && reply.tokensOut !== null ? reply.tokensIn + reply.tokensOut : null);
  return read(reply.content, reply.toolCalls, { reply: reply.content, reasoning: reply.reasoning, tokens: tokensOf(reply.tokensIn, reply.tokensOut, total), latency_s: call.latencyS }, options);
}

/** The recorded turn's reply, read as a sample would be. */
function recordedSample(turn: Turn, options: ReadOptions): RetrySample {
  const model = turn.model ?? {};
  const counts = tokenCounts(model.tokens);
  const total = isObject(model.tokens) && typeof model.tokens.total === 'number' ? model.tokens.total : null;
  const base = { reply: model.reply ?? null, reasoning: model.reasoning ?? null, tokens: tokensOf(counts.input, counts.output, total), latency_s: model.latency_s ?? null };
  const lastError = Array.isArray(model.errors) ? model.errors.at(-1) : undefined;
  if (turn.status === 'provider_error') return { ...EMPTY, ...base, status: 'provider_error', error: typeof lastError === 'string' ? lastError.replace(/^attempt \d+: /, '') : 'no answer' };
  return read(model.reply ?? '', Array.isArray(model.tool_calls) ? model.tool_calls : [], base, options);
}

function tokensOf(input: number | null, output: number | null, total: number | null): RetrySample['tokens'] {
  const tokens = { ...(input !== null ? { input } : {}), ...(output !== null ? { output } : {}), ...(total !== null ? { total } : {}) };
  return Object.keys(tokens).length ? tokens : null;
}

const EMPTY: RetrySample = { action: null, arguments: null, status: 'ok', reply: null, reasoning: null, tokens: null, latency_s: null, guess: null, distance_km: null };

/** A reply through the protocol's own reader: the executed op and its arguments, or what was sent when unusable. */
function read(content: string, toolCalls: readonly unknown[], base: Pick<RetrySample, 'reply' | 'reasoning' | 'tokens' | 'latency_s'>, options: ReadOptions): RetrySample {
  if (options.protocol === 'tools') {
    const calls = withCallIds(toolCalls, options.turn);
    const callsLeft = options.forced ? 0 : options.maxTurns - options.turn;
    const reading = readToolReply(content, calls, { tools: options.toolSet, forced: options.forced, callsLeft });
    if (reading.kind === 'unusable') {
      const sent = calls[0] ? sentAction(calls[0]) : null;
      return { ...EMPTY, ...base, status: 'unparseable', error: reading.note, ...(sent ? split(sent) : {}) };
    }
    return withDistance({ ...EMPTY, ...base, ...split(reading.action) }, options.truth);
  }
  const reading = readJsonReply(content, { forced: options.forced });
  if (!reading.ok) return { ...EMPTY, ...base, status: 'unparseable', error: reading.note, ...(reading.sent ? split(reading.sent) : {}) };
  return withDistance({ ...EMPTY, ...base, ...split(reading.action) }, options.truth);
}

/** `{op|action: name, ...fields}` -> action and arguments. */
function split(action: Record<string, unknown>): Pick<RetrySample, 'action' | 'arguments'> {
  const { op, action: name, ...fields } = action;
  return { action: String(op ?? name), arguments: fields };
}

function withDistance(sample: RetrySample, truth: [number, number] | null): RetrySample {
  const lat = sample.arguments?.lat;
  const lon = sample.arguments?.lon;
  if (sample.action !== 'guess' || typeof lat !== 'number' || typeof lon !== 'number') return { ...sample, guess: null, distance_km: null };
  return { ...sample, guess: [lat, lon], distance_km: truth ? haversineKm(truth[0], truth[1], lat, lon) : null };
}

export function summarize(recorded: RetrySample, samples: readonly RetrySample[]): RetrySummary {
  const guesses = samples.flatMap((s) => (s.guess ? [s.guess] : []));
  let spread: number | null = guesses.length ? 0 : null;
  for (let i = 0; i < guesses.length; i++) {
    for (let j = i + 1; j < guesses.length; j++) spread = Math.max(spread!, haversineKm(guesses[i]![0], guesses[i]![1], guesses[j]![0], guesses[j]![1]));
  }
  const distances = samples.flatMap((s) => (s.distance_km === null ? [] : [s.distance_km]));
  return {
    samples: samples.length,
    sameAction: recorded.action === null ? 0 : samples.filter((s) => s.action === recorded.action).length,
    recordedAction: recorded.action,
    guesses: guesses.length,
    spreadKm: spread,
    meanDistanceKm: distances.length ? distances.reduce((a, b) => a + b, 0) / distances.length : null,
  };
}

/** Messages as the user edited them: a JSON array of {role, content} with text or image parts. */
function checkMessages(value: unknown, source: string): RecordedMessage[] {
  if (!Array.isArray(value) || value.length === 0) throw new UsageError(`${source}: expected a non-empty JSON array of messages`);
  const roles = ['system', 'user', 'assistant', 'tool'];
  value.forEach((message: unknown, i) => {
    const m = message as Record<string, unknown>;
    if (!isObject(m) || !roles.includes(m.role as string)) throw new UsageError(`${source}: message ${i} needs a role (${roles.join(', ')})`);
    const content = m.content;
    if (typeof content === 'string') return;
    if (!Array.isArray(content)) throw new UsageError(`${source}: message ${i} needs content: a string or a list of parts`);
    content.forEach((part: unknown, j) => {
      const p = part as Record<string, unknown>;
      const ok = isObject(p) && ((p.type === 'text' && typeof p.text === 'string') || (p.type === 'image' && typeof p.sha256 === 'string' && typeof p.mime === 'string'));
      if (!ok) throw new UsageError(`${source}: message ${i}, part ${j}: expected {"type": "text", "text": ...} or {"type": "image", "sha256": ..., "mime": ...}`);
    });
  });
  return value as RecordedMessage[];
}

function numberOrNull(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** 1-4, 6: the turns that can be retried. */
function ranges(turns: readonly number[]): string {
  const parts: string[] = [];
  for (let i = 0; i < turns.length; i++) {
    let j = i;
    while (j + 1 < turns.length && turns[j + 1] === turns[j]! + 1) j++;
    parts.push(j > i ? `${turns[i]}-${turns[j]}` : String(turns[i]));
    i = j;
  }
  return parts.join(', ');
}
