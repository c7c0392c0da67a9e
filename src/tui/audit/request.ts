/**
 * The Audit screen's `p`: the request a finding was found in, as the Player's request view draws it
 * (src/tui/turn-text.ts), with the line that holds the finding's span.
 */
import type { Turn } from '../../core/episode.js';
import type { Finding } from '../../audit/types.js';
import { requestLines, requestOf, type RequestLine } from '../turn-text.js';

export interface FindingRequest {
  turn: number;
  lines: RequestLine[];
  /** The line that holds the finding's span (its message's heading when the span cannot be told). */
  mark: number;
}

/** The request of the finding's turn, `width` columns wide; null when the turn recorded none. */
export function findingRequest(finding: Finding, turns: readonly Turn[], width: number): FindingRequest | null {
  const turn = turns.find((t) => t.turn === finding.turn);
  const messages = turn ? requestOf(turn) : null;
  if (!turn || !messages) return null;
  const lines = requestLines(messages, width);
  return { turn: turn.turn, lines, mark: spanLine(lines, finding) };
}

/**
 * Where the span is drawn: within the finding's message (the lines after its heading), the first
 * line holding the span's text, else the first holding its first word (a wrapped span), else the
 * heading itself.
 */
export function spanLine(lines: readonly RequestLine[], finding: Finding): number {
  let head = -1;
  let seen = -1;
  for (let i = 0; i < lines.length && seen < finding.message; i++) {
    const tone = (lines[i] as RequestLine).tone;
    if (tone === 'harnessHead' || tone === 'modelHead') {
      seen++;
      head = i;
    }
  }
  if (head < 0 || seen !== finding.message) return 0;
  let end = head + 1;
  while (end < lines.length && !['harnessHead', 'modelHead'].includes((lines[end] as RequestLine).tone)) end++;
  const firstWord = finding.text.trim().split(/\s+/)[0] ?? '';
  for (const needle of [finding.text, firstWord]) {
    if (!needle) continue;
    for (let i = head + 1; i < end; i++) if ((lines[i] as RequestLine).text.includes(needle)) return i;
  }
  return head;
}
