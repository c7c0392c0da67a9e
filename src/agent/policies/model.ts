/**
 * A model over an OpenAI-compatible endpoint, playing by one of the two protocols (docs/protocol.md). The
 * protocols build messages and read replies (pure); this shell prepares images, runs the leak guard
 * on every request before it is sent, and talks to the endpoint. One policy plays one episode: the
 * native-tools conversation and the guard's knowledge of the task belong to it.
 */
import type { LatLon } from '../../core/geodesy.js';
import type { Observation, Op, StepResult } from '../../env/types.js';
import { DEFAULT_IMAGE_SIZE_PX } from '../agent-settings.js';
import { prepareImage, wireMessage, type PreparedImage } from '../images.js';
import { guardRequest, type GuardKnowledge } from '../leak-guard.js';
import { withoutEmptyKeys } from '../../core/episode.js';
import { anthropicCompletion } from '../anthropic.js';
import { chatCompletion, DEFAULT_MAX_ATTEMPTS, DEFAULT_TIMEOUT_MS, EndpointUnusableError, type ChatCall, type ChatReply, type Endpoint, type ServedModel, type WireMessage } from '../openai.js';
import { pointsOfAction } from '../../env/action-facts.js';
import { toHarnessAction } from '../protocols/common.js';
import { JSON_PROMPT_VERSION, jsonRequest, readJsonReply } from '../protocols/json.js';
import {
  assistantMessage,
  executedCallMessages,
  forcedGuessMessage,
  openingMessage,
  readToolReply,
  sentAction,
  toolSpec,
  toolSpecs,
  TOOLS_PROMPT_VERSION,
  withCallIds,
  type ToolCall,
  type ToolSet,
} from '../protocols/tools.js';
import type { PromptTemplate } from '../protocols/template.js';
import type { Policy, PolicyContext, PolicyDecision, RecordedMessage, RecordedPart, ResumeSeed, TurnModelInfo } from '../types.js';
import { GeolabError } from '../../core/errors.js';
import { sha256Hex } from '../../store/images.js';
import { requestSha256 } from '../retry.js';

export type Protocol = 'tools' | 'json';

export interface ModelPolicyOptions {
  endpoint: Endpoint;
  protocol: Protocol;
  /** Native tools only: which tools are offered (default `trained`). */
  tools?: ToolSet;
  imageSizePx?: number;
  /** What the leak guard knows of the task being played. */
  guard: GuardKnowledge;
  /** The endpoint's entry for the model, when it was checked (vLLM names an adapter's base). */
  served?: ServedModel;
  /** A user's prompt template (--prompt-file) in place of geolab's instructions. */
  prompt?: PromptTemplate;
  /** model_name of the records (a sweep's arm name); default: the endpoint's model id. */
  name?: string;
  /** Extra keys of the record's `model` block (a models file's `thinking`, say). */
  identity?: Record<string, unknown>;
}

/** The prompt_version recorded: the template's when there is one, else geolab's own for the protocol. */
export function promptVersionOf(protocol: Protocol, template?: PromptTemplate): string {
  return template?.version ?? (protocol === 'tools' ? TOOLS_PROMPT_VERSION : JSON_PROMPT_VERSION);
}

export function createModelPolicy(options: ModelPolicyOptions): Policy {
  return options.protocol === 'tools' ? new ToolsPolicy(options) : new JsonPolicy(options);
}

type SentImages = Map<string, { bytes: Buffer; mime: string }>;

/** What both protocols do around a request: images, the guard, the call, the turn's model info. */
abstract class ModelShell {
  readonly name: string;
  readonly identity: Record<string, unknown>;
  protected readonly sent: SentImages = new Map();
  /** Prepared images by the sha256 of the environment's bytes, so each is encoded once. */
  private readonly prepared = new Map<string, PreparedImage>();
  /** Requests sent this episode, whether any got a reply, and the last failure (a policy plays one episode). */
  private requests = 0;
  private replied = false;
  private lastFailure = 'no answer';
  /** request_sha256 of the last request sent, for its turn's record. */
  private lastRequestSha256: string | undefined;

  constructor(protected readonly options: ModelPolicyOptions) {
    const { endpoint } = options;
    this.name = options.name ?? endpoint.model;
    this.identity = {
      provider: endpoint.provider === 'anthropic' ? 'anthropic' : 'openai-compatible',
      model: endpoint.model,
      base_url: endpoint.baseUrl,
      temperature: endpoint.temperature ?? null,
      max_tokens: endpoint.maxTokens ?? null,
      protocol: options.protocol,
      prompt_version: promptVersionOf(options.protocol, options.prompt),
      ...(options.protocol === 'tools' ? { tools: options.tools ?? 'trained' } : {}),
      image_size: this.imageSizePx,
      timeout_s: (endpoint.timeoutMs ?? DEFAULT_TIMEOUT_MS) / 1000,
      max_attempts: endpoint.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
      ...(options.served?.parent ? { base_model: options.served.parent } : {}),
      ...(endpoint.extraBody ? { extra_body: endpoint.extraBody } : {}),
      ...options.identity,
    };
  }

  protected get imageSizePx(): number {
    return this.options.imageSizePx ?? DEFAULT_IMAGE_SIZE_PX;
  }

  /** The observation's image as the model gets it, referenced by hash. */
  protected async imagePart(observation: Observation): Promise<RecordedPart | null> {
    if (!observation.image_base64) return null;
    const bytes = Buffer.from(observation.image_base64, 'base64');
    const key = sha256Hex(bytes);
    let image = this.prepared.get(key);
    if (!image) {
      image = await prepareImage(bytes, this.imageSizePx);
      this.prepared.set(key, image);
    }
    this.sent.set(image.sha256, { bytes: image.bytes, mime: image.mime });
    return { type: 'image', sha256: image.sha256, mime: image.mime };
  }

  /**
   * Guards, then sends. A leak throws (the episode fails); a provider failure comes back as errors.
   * A request that got no reply after its retries costs its turn; but when the forced guess comes and
   * no request of the episode got a reply, the endpoint answers nothing usable (HTTP 500 to
   * everything): the episode fails (EndpointUnusableError) rather than scoring a guess never made.
   */
  protected async send(messages: RecordedMessage[], tools: unknown[] | undefined, context: PolicyContext): Promise<ChatCall> {
    if (context.forced && this.requests > 0 && !this.replied) {
      const n = this.requests;
      throw new EndpointUnusableError(
        `the model endpoint at ${this.options.endpoint.baseUrl} is unusable: ${n === 1 ? 'the one request' : `none of the ${n} requests`} of this episode got ${n === 1 ? 'no' : 'a'} reply after retries (the last ${this.lastFailure})`,
      );
    }
    await guardRequest({ messages, images: this.sent, knowledge: this.options.guard, agentPoints: agentPoints(context) });
    const { model, temperature, maxTokens, extraBody } = this.options.endpoint;
    // What `episodes retry` checks a rebuilt request against (docs/formats.md, request_sha256).
    this.lastRequestSha256 = requestSha256({ model, messages, tools: tools ?? null, sampling: { temperature: temperature ?? null, max_tokens: maxTokens ?? null, extra_body: extraBody ?? null } });
    // The one seam between the policy and the provider: both take OpenAI-shaped messages.
    const complete = this.options.endpoint.provider === 'anthropic' ? anthropicCompletion : chatCompletion;
    const call = await complete(this.options.endpoint, { messages: messages.map((m) => this.toWire(m)), tools }, context.signal);
    this.requests++;
    if (call.reply) this.replied = true;
    else this.lastFailure = (call.errors.at(-1) ?? 'no answer').replace(/^attempt \d+: /, '');
    return call;
  }

  /** The decision fields every outcome shares: what was sent and what the model did. */
  protected recorded(messages: RecordedMessage[], call: ChatCall): Pick<PolicyDecision, 'messages' | 'images' | 'prompt' | 'model' | 'requestSha256'> {
    const reply = call.reply;
    const model: TurnModelInfo = {
      reply: reply?.content ?? null,
      ...(reply?.toolCalls.length ? { tool_calls: reply.toolCalls } : {}),
      reasoning: reply?.reasoning ?? null,
      finish_reason: reply?.finishReason ?? null,
      tokens: reply ? turnTokens(reply) : null,
      latency_s: call.latencyS,
      attempts: call.attempts,
      errors: call.errors,
    };
    return { messages, images: imagesIn(messages, this.sent), prompt: newHarnessText(messages), model, requestSha256: this.lastRequestSha256 };
  }

  protected providerError(messages: RecordedMessage[], call: ChatCall): PolicyDecision {
    const last = call.errors.at(-1) ?? 'no answer';
    return {
      ...this.recorded(messages, call),
      action: null,
      status: 'provider_error',
      note: `The model request failed after ${call.attempts} attempt${call.attempts === 1 ? '' : 's'} (${last}).`,
    };
  }

  private toWire(message: RecordedMessage): WireMessage {
    return wireMessage(message, this.sent);
  }
}

/** The native-tools conversation: one growing transcript, one executed call per reply. */
class ToolsPolicy extends ModelShell implements Policy {
  private readonly transcript: RecordedMessage[] = [];
  /** The executed call still to be answered, with the result once the runner has it. */
  private unanswered: { call: ToolCall | null; op: Op; extras: RecordedMessage[]; callsLeft: number; result?: StepResult } | null = null;
  private forcedAsked = false;

  private get toolSet(): ToolSet {
    return this.options.tools ?? 'trained';
  }

  /**
   * Takes over a recorded native-tools episode: the recorded request of the turn IS the transcript
   * it sent (the opening, every reply and tool result, the forced-guess line when it was forced), so
   * the next request is exactly the one recorded.
   */
  resume(seed: ResumeSeed): void {
    if (seed.protocol !== 'tools' || seed.messages.length === 0) {
      throw new GeolabError(`turn ${seed.turn} has no recorded native-tools request to resume from (it was played with the ${seed.protocol ?? 'unknown'} protocol): play on with the json protocol`);
    }
    for (const message of seed.messages) {
      if (typeof message.content === 'string') continue;
      for (const part of message.content) {
        if (part.type !== 'image') continue;
        const image = seed.images.get(part.sha256);
        if (!image) throw new GeolabError(`image ${part.sha256.slice(0, 12)} of turn ${seed.turn}'s request is missing from the seed`);
        this.sent.set(part.sha256, image);
      }
    }
    this.transcript.splice(0, this.transcript.length, ...seed.messages);
    this.unanswered = null;
    const forced = forcedGuessMessage().content;
    this.forcedAsked = seed.messages.some((m) => m.role === 'user' && m.content === forced);
  }

  async decide(context: PolicyContext): Promise<PolicyDecision> {
    await this.answerLastCall();
    if (this.transcript.length === 0) {
      const { heading_deg, fov_deg, pitch_deg } = context.observation;
      const image = await this.imagePart(context.observation);
      this.transcript.push(
        openingMessage({ tools: this.toolSet, maxTurns: context.maxTurns, camera: { heading_deg, fov_deg, pitch_deg }, image, template: this.options.prompt }),
      );
    }
    if (context.forced && !this.forcedAsked) {
      this.transcript.push(forcedGuessMessage());
      this.forcedAsked = true;
    }
    const messages = [...this.transcript];
    const tools = context.forced ? [toolSpec('guess', this.toolSet)] : toolSpecs(this.toolSet);
    const call = await this.send(messages, tools, context);
    if (!call.reply) return this.providerError(messages, call);

    const calls = withCallIds(call.reply.toolCalls, context.turn);
    this.transcript.push(assistantMessage(call.reply.content, calls));
    const callsLeft = context.forced ? 0 : context.maxTurns - context.turn;
    const reading = readToolReply(call.reply.content, calls, { tools: this.toolSet, forced: context.forced, callsLeft });
    const recorded = this.recorded(messages, call);
    // The action as the model sent it: its first call, or (a forced guess in plain text) the guess read.
    const first = calls[0];
    if (reading.kind === 'unusable') {
      this.transcript.push(...reading.replies);
      return { ...recorded, action: null, status: 'unparseable', note: reading.note, ...(first ? { harnessAction: sentAction(first) } : {}) };
    }
    this.unanswered = { call: reading.call, op: reading.action.op, extras: reading.extras, callsLeft };
    return { ...recorded, action: reading.action, harnessAction: first ? sentAction(first) : toHarnessAction(reading.action), status: 'ok' };
  }

  observe(result: StepResult): void {
    if (this.unanswered) this.unanswered.result = result;
  }

  /** Preparing the image is asynchronous, so the answer is written when the next request is built. */
  private async answerLastCall(): Promise<void> {
    const pending = this.unanswered;
    this.unanswered = null;
    if (!pending?.call || !pending.result) return;
    const { observation } = pending.result;
    const part = await this.imagePart(observation);
    const kind = observation.image_kind === 'none' ? null : observation.image_kind;
    this.transcript.push(
      ...executedCallMessages({
        call: pending.call,
        op: pending.op,
        feedback: observation.feedback,
        callsLeft: pending.callsLeft,
        image: part && kind ? { part, kind } : null,
        extras: pending.extras,
      }),
    );
  }
}

/** The JSON-action protocol: every request stands alone, built from the recorded turns. */
class JsonPolicy extends ModelShell implements Policy {
  /** The latest image the environment returned, prepared, and the turn that returned it. */
  private latest: { part: RecordedPart; kind: 'view' | 'map'; turn: number } | null = null;

  /** Takes over a recorded episode: every request is built from the history, but for the latest image. */
  async resume(seed: ResumeSeed): Promise<void> {
    const latest = seed.latestImage;
    if (!latest || latest.observation.image_kind === 'none') return;
    const part = await this.imagePart(latest.observation);
    if (part) this.latest = { part, kind: latest.observation.image_kind, turn: latest.turn };
  }

  async decide(context: PolicyContext): Promise<PolicyDecision> {
    const image = await this.latestImage(context);
    const { heading_deg, fov_deg, pitch_deg } = context.observation;
    const messages = jsonRequest({
      history: context.history,
      turn: context.turn,
      maxTurns: context.maxTurns,
      turnsLeft: context.turnsLeft,
      forced: context.forced,
      camera: { heading_deg, fov_deg, pitch_deg },
      image,
      template: this.options.prompt,
      availableTools: context.observation.available_tools,
      stepsRemaining: context.observation.steps_remaining,
    });
    const call = await this.send(messages, undefined, context);
    if (!call.reply) return this.providerError(messages, call);
    const reading = readJsonReply(call.reply.content, { forced: context.forced });
    const recorded = this.recorded(messages, call);
    if (!reading.ok) return { ...recorded, action: null, status: 'unparseable', note: reading.note, ...(reading.sent ? { harnessAction: reading.sent } : {}) };
    return { ...recorded, action: reading.action, harnessAction: reading.harnessAction, status: 'ok' };
  }

  /**
   * The one image of the request: the latest the environment returned. The runner's observation is
   * the latest result, so when it has no image (a measure, a refused turn) the last one with an image
   * is kept from the previous request.
   */
  private async latestImage(context: PolicyContext) {
    const { observation } = context;
    const part = await this.imagePart(observation);
    if (part && observation.image_kind !== 'none') {
      const turn = [...context.history].reverse().find((t) => t.image_kind && t.image_kind !== 'none')?.turn ?? 0;
      this.latest = { part, kind: observation.image_kind, turn };
    }
    return this.latest;
  }
}

/** The agent's own points so far: its pins, maps and measures (docs/audit.md item 2). */
function agentPoints(context: PolicyContext): LatLon[] {
  // The executed action's points: the sent one may name them under aliases ("latitude").
  return context.history.flatMap((turn) => pointsOfAction((turn.wire_action ?? turn.action) as Record<string, unknown> | null | undefined));
}

function imagesIn(messages: RecordedMessage[], sent: SentImages): SentImages {
  const images: SentImages = new Map();
  for (const message of messages) {
    if (typeof message.content === 'string') continue;
    for (const part of message.content) {
      const image = part.type === 'image' ? sent.get(part.sha256) : undefined;
      if (part.type === 'image' && image) images.set(part.sha256, image);
    }
  }
  return images;
}

/**
 * turn.prompt: what the harness said since the model last spoke (the opening instruction, a tool
 * result and its caption, the JSON protocol's user message), without the fixed system text.
 */
function newHarnessText(messages: RecordedMessage[]): string | undefined {
  const lastReply = messages.map((m) => m.role).lastIndexOf('assistant');
  const texts = messages
    .slice(lastReply + 1)
    .filter((m) => m.role !== 'system')
    .map((m) => (typeof m.content === 'string' ? m.content : m.content.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('\n')));
  return texts.length ? texts.join('\n') : undefined;
}

/** turn.model.tokens in the harness's names; the total is the sum when the server gives none. */
function turnTokens(reply: ChatReply): TurnModelInfo['tokens'] {
  const { tokensIn: input, tokensOut: output, tokensTotal, tokensReasoning: reasoning } = reply;
  const total = tokensTotal ?? (input !== null && output !== null ? input + output : null);
  return withoutEmptyKeys({ input, output, total, reasoning }) as TurnModelInfo['tokens'];
}
