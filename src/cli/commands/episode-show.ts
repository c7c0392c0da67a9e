/**
 * `geolab episodes show ID`: the Player on a terminal, the episode as plain text elsewhere: every
 * turn's action, the model's reasoning and its reply's prose (as the Player's `r` shows them), the
 * feedback, then the outcome.
 */
import { GeolabError } from '../../core/errors.js';
import { isRecord } from '../../core/values.js';
import { isFailed, type CompletedEpisode, type FailedEpisode, type Turn } from '../../core/episode.js';
import type { GlobalOptions } from '../options.js';
import { printJson, printLine } from '../output.js';
import { canDrawTui } from '../tty.js';
import { modelProse } from '../../tui/turn-text.js';

export async function showCommand(id: string, opts: GlobalOptions): Promise<void> {
  if (!opts.json && canDrawTui()) {
    const { openPlayer } = await import('../../tui/entry.js');
    return openPlayer({ workspace: opts.workspace, episodeId: id });
  }
  const { openWorkspace } = await import('../../store/index.js');
  const { loadEpisode } = await import('../../store/episodes.js');
  const ws = await openWorkspace(opts.workspace);
  try {
    const record = loadEpisode(ws.db, id);
    if (!record) throw new GeolabError(`no episode ${id} in ${ws.dir} (see \`geolab episodes list\`)`);
    if (opts.json) return printJson(record);
    for (const line of describeEpisode(record)) printLine(line);
  } finally {
    ws.close();
  }
}

/** The episode as lines of plain text: header, one line pair per turn, the outcome. */
export function describeEpisode(record: CompletedEpisode | FailedEpisode): string[] {
  const task = record.task as { split: string; index: number; sample?: number | null };
  const lines = [`episode ${record.episode_id} · ${record.model_name ?? '?'} · ${task.split}/${task.index} · sample ${task.sample ?? 0}`];
  if (isFailed(record)) return [...lines, `failed: ${record.error}`];
  for (const turn of (record.turns ?? []) as Turn[]) lines.push(...describeTurn(turn));
  const o = record.outcome ?? {};
  const distance = typeof o.distance_km === 'number' ? `${o.distance_km.toFixed(1)} km` : 'no guess';
  lines.push(
    `outcome: ${o.verdict ?? 'no verdict'} · ${distance} · reward ${fmt(o.reward)} · reference ${fmt(o.train_reward)} · cost ${fmt(o.action_cost)}` +
      (o.country_hit === undefined || o.country_hit === null ? '' : ` · country ${o.country_hit ? 'hit' : 'miss'}`),
  );
  return lines;
}

function describeTurn(turn: Turn): string[] {
  const { action, ...args } = (turn.action ?? { action: '?' }) as { action: string } & Record<string, unknown>;
  const call = `${action}(${Object.entries(args)
    .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
    .join(', ')})`;
  const status = turn.status && turn.status !== 'ok' ? ` [${turn.status}]` : '';
  return [
    `${String(turn.turn).padStart(3)} ${call}${status}`,
    ...labelled('reasoning', turn.model?.reasoning),
    ...labelled('reply', prose(turn)),
    `    ${(turn.feedback ?? '').replace(/\s+/g, ' ')}`,
  ];
}

/** The reply's prose; a reply that is only the action's JSON (the JSON protocol's) is the call line already. */
function prose(turn: Turn): string | null {
  const text = modelProse(turn.model);
  if (!text) return null;
  try {
    return isRecord(JSON.parse(text)) ? null : text;
  } catch {
    return text;
  }
}

/** The model's own text under a label, its line breaks kept and every line indented under the turn. */
function labelled(label: string, text: string | null | undefined): string[] {
  if (!text?.trim()) return [];
  const [first, ...rest] = text.trim().split(/\r?\n/);
  return [`    ${label}: ${first}`, ...rest.map((line) => (line.trim() ? `      ${line.trimEnd()}` : ''))];
}

function fmt(x: unknown): string {
  return typeof x === 'number' ? x.toFixed(4) : '-';
}
