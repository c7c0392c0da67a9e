/**
 * `geolab episodes retry ID|FILE[:LINE] --turn K`: resend one recorded turn's exact request N times
 * and show what the model does now beside what it did (docs/episodes.md, "Retry a turn"). The work is
 * src/agent/retry.ts (the TUI calls it too); this command picks the endpoint, runs the editor for
 * `--edit`, and prints.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { apiKeyFrom } from '../../agent/agent-settings.js';
import { endpointOfSpec, oneModelSpec, type ModelFlags } from '../../agent/endpoint-choice.js';
import { LeakGuardError } from '../../agent/leak-guard.js';
import type { Endpoint } from '../../agent/openai.js';
import { rebuildRequest, retryTurn, withEditedMessages, type RebuiltRequest, type RetryResult, type RetrySample } from '../../agent/retry.js';
import { formatAction } from '../../agent/protocols/common.js';
import { EXIT, GeolabError, UsageError } from '../../core/errors.js';
import { jsonErrorOffset, lineAtOffset } from '../../core/json-text.js';
import { oneEpisode, type NamedEpisode } from '../../store/episode-refs.js';
import type { GlobalOptions } from '../options.js';
import { printJson, printLine, warn } from '../output.js';

export interface RetryOptions extends GlobalOptions, ModelFlags {
  turn?: number;
  /** The entry of --models. */
  name?: string;
  samples?: number;
  temperature?: number;
  edit?: boolean;
}

/** More than this is a load test, not a question about one decision. */
const MAX_SAMPLES = 50;

export async function retryCommand(ref: string, opts: RetryOptions): Promise<void> {
  if (opts.turn === undefined) throw new UsageError('expected --turn K: the model turn to retry (1 is the first)');
  const samples = opts.samples ?? 5;
  if (!Number.isInteger(samples) || samples < 1 || samples > MAX_SAMPLES) throw new UsageError(`--samples expects 1 to ${MAX_SAMPLES}, got ${samples}`);
  if (opts.temperature !== undefined && opts.temperature < 0) throw new UsageError(`--temperature expects 0 or more, got ${opts.temperature}`);
  const { openWorkspace } = await import('../../store/index.js');
  const ws = await openWorkspace(opts.workspace);
  let result: RetryResult;
  let sentTo: Endpoint;
  try {
    const named = await oneEpisode(ws, ref);
    let request = rebuildRequest(ws, named, opts.turn, opts.temperature !== undefined ? { temperature: opts.temperature } : {});
    const endpoint = endpointOf(opts, named);
    sentTo = endpoint;
    if (opts.edit) request = withEditedMessages(request, editMessages(request.messages), 'the edited messages');
    const controller = new AbortController();
    const stop = () => controller.abort();
    process.once('SIGINT', stop);
    try {
      result = await retryTurn({ request, endpoint, samples, truth: request.truth, signal: controller.signal });
    } catch (err) {
      if (err instanceof LeakGuardError) throw new GeolabError(err.message);
      if (controller.signal.aborted) throw new GeolabError('interrupted: the samples were not all back, nothing is shown', EXIT.interrupted);
      throw err;
    } finally {
      process.off('SIGINT', stop);
    }
  } finally {
    ws.close();
  }
  if (opts.json) return printJson(jsonOf(result, sentTo));
  printResult(result, sentTo);
}

/** The flags' endpoint, or the record's own model at its own address (said on stderr). */
function endpointOf(opts: RetryOptions, named: NamedEpisode): Endpoint {
  if (opts.model !== undefined || opts.models !== undefined || opts.baseUrl !== undefined) {
    const spec = oneModelSpec(opts);
    return endpointOfSpec(spec, spec.baseUrls[0]!);
  }
  const model = (named.record.model ?? {}) as Record<string, unknown>;
  const baseUrl = typeof model.base_url === 'string' ? model.base_url : undefined;
  const id = typeof model.model === 'string' ? model.model : undefined;
  if (!baseUrl || !id) {
    throw new UsageError(`the record of ${named.label} names no model endpoint (model.base_url and model.model): give --model NAME --base-url URL, or --models FILE`);
  }
  warn(`geolab: retrying against the record's own endpoint: ${id} at ${baseUrl} (--model/--base-url or --models choose another)`);
  return { provider: model.provider === 'anthropic' ? 'anthropic' : 'openai', baseUrl, model: id, apiKey: apiKeyFrom(opts.apiKeyEnv), apiKeyEnv: opts.apiKeyEnv };
}

/**
 * `--edit`: the messages as pretty JSON in a temp file, `$VISUAL`/`$EDITOR` run on it, read back. A
 * parse error names the line; the file is removed either way.
 */
function editMessages(messages: RebuiltRequest['messages']): unknown {
  const editor = process.env.VISUAL || process.env.EDITOR;
  if (!editor) throw new UsageError('--edit needs an editor: set $VISUAL or $EDITOR');
  const dir = mkdtempSync(join(tmpdir(), 'geolab-retry-'));
  const file = join(dir, 'messages.json');
  try {
    writeFileSync(file, `${JSON.stringify(messages, null, 2)}\n`);
    // Through the shell, as git runs it: $EDITOR may carry arguments ("code --wait").
    const ran = spawnSync(`${editor} "$GEOLAB_RETRY_FILE"`, { shell: true, stdio: 'inherit', env: { ...process.env, GEOLAB_RETRY_FILE: file } });
    if (ran.error) throw new UsageError(`cannot run the editor ${JSON.stringify(editor)}: ${ran.error.message}`);
    if (ran.status !== 0) throw new UsageError(`the editor ${JSON.stringify(editor)} exited with ${ran.status ?? ran.signal}: nothing was sent`);
    const text = readFileSync(file, 'utf8');
    try {
      return JSON.parse(text) as unknown;
    } catch {
      // Node's own message can run over several lines, quoting them: one line, pointing at the place, instead.
      const at = jsonErrorOffset(text);
      const near = text.slice(at, at + 24).split('\n')[0]!;
      const line = lineAtOffset(text, at);
      throw new UsageError(`the edited messages are not JSON: line ${line}${near ? `, at ${JSON.stringify(near)}` : ' (the text ends too soon)'}; expected a JSON array of messages, nothing was sent`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function hashCheck(request: RebuiltRequest): string {
  if (request.edited) return `edited: the request differs from the recorded one (${request.differences.join('; ')})`;
  if (request.recordedSha256 === null) {
    return request.harness ? "no recorded hash (a record of the public harness: the request was rebuilt in its shape)" : 'no recorded hash (recorded before geolab kept one)';
  }
  if (request.recordedSha256 === request.sha256) return 'request hash matches the recorded one';
  return `differs: ${request.differences.join('; ')}`;
}

function printResult({ request, recorded, samples, summary }: RetryResult, endpoint: Endpoint): void {
  const { sampling } = request;
  const other = endpoint.model === sampling.model ? '' : ` (recorded: ${sampling.model})`;
  printLine(`model ${endpoint.model}${other} at ${endpoint.baseUrl}`);
  const settings = [`temperature ${sampling.temperature ?? 'unset'}`, `max_tokens ${sampling.max_tokens ?? 'unset'}`, ...(sampling.extra_body ? [`extra_body ${JSON.stringify(sampling.extra_body)}`] : [])];
  printLine(
    `turn ${request.turn} (${request.protocol} protocol${request.forced ? ', forced guess' : ''}): ${request.messages.length} message(s), ${request.tools ? `${request.tools.length} tool(s)` : 'no tools'}, ${settings.join(', ')}`,
  );
  printLine(`request ${request.sha256.slice(0, 16)}: ${hashCheck(request)}`);
  printLine('');
  printLine(`recorded   ${sampleLine(recorded)}`);
  samples.forEach((sample, i) => printLine(`sample ${String(i + 1).padEnd(3)} ${sampleLine(sample)}`));
  printLine('');
  const chose = summary.recordedAction === null ? `the recorded reply had no action` : `${summary.sameAction} of ${summary.samples} chose ${summary.recordedAction} (the recorded action)`;
  printLine(chose);
  if (summary.guesses > 0) {
    const km = samples.flatMap((s, i) => (s.guess ? [`sample ${i + 1} ${s.distance_km === null ? '?' : `${formatKm(s.distance_km)} km`}`] : []));
    printLine(`${summary.guesses} guess(es), spread ${formatKm(summary.spreadKm!)} km; to the truth: ${km.join(', ')}`);
  }
}

function sampleLine(sample: RetrySample): string {
  const what =
    sample.status === 'provider_error'
      ? `provider error: ${sample.error ?? 'no answer'}`
      : sample.action === null
        ? `no action (${sample.error ?? sample.status})`
        : `${formatAction({ action: sample.action, ...sample.arguments })}${sample.status === 'ok' ? '' : ` [${sample.status}: ${sample.error}]`}`;
  const parts = [what];
  if (sample.distance_km !== null) parts.push(`${formatKm(sample.distance_km)} km from the truth`);
  const thought = firstLine(sample.reasoning) ?? (sample.action === null ? firstLine(sample.reply) : null);
  if (thought) parts.push(`"${thought}"`);
  if (sample.tokens) parts.push(`tokens ${sample.tokens.input ?? '?'} in, ${sample.tokens.output ?? '?'} out`);
  return parts.join(' · ');
}

function firstLine(text: string | null): string | null {
  const line = text?.split('\n').find((l) => l.trim())?.trim();
  if (!line) return null;
  return line.length > 80 ? `${line.slice(0, 77)}...` : line;
}

function formatKm(km: number): string {
  return km >= 100 ? String(Math.round(km)) : km.toFixed(1);
}

function jsonOf({ request, recorded, samples, summary }: RetryResult, endpoint: Endpoint) {
  return {
    recorded,
    samples,
    summary: {
      samples: summary.samples,
      same_action: summary.sameAction,
      recorded_action: summary.recordedAction,
      guesses: summary.guesses,
      spread_km: summary.spreadKm,
      mean_distance_km: summary.meanDistanceKm,
    },
    request: {
      turn: request.turn,
      model: endpoint.model,
      recorded_model: request.sampling.model,
      base_url: endpoint.baseUrl,
      sha256: request.sha256,
      recorded_sha256: request.recordedSha256,
      differences: request.differences,
      edited: request.edited,
      hash_check: hashCheck(request),
    },
  };
}
