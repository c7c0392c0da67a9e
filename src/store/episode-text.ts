/**
 * The text of an episode that the Episodes filter `text:` searches (docs/tui.md, Episodes), and its
 * full-text index `episode_text` (SQLite FTS5, migration 6). The text is, in every turn, the
 * harness's prompt, the model's reply and reasoning, and each message the model was sent or wrote (a
 * string content, or the text parts of a list: system and user prompts, tool results, the model's
 * earlier replies), each distinct string once, since every turn's message list repeats the
 * conversation so far. The index is contentless (it keeps the words, not the text) and keyed by the rowid of the
 * episode's `episodes` row; saveEpisode keeps it up to date (episodes.ts), migration 6 fills it for
 * the episodes stored before it.
 */
import type { Db } from './db.js';

type Loose = Record<string, unknown>;

const isObject = (value: unknown): value is Loose => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The searched text of a record's turns (`record.turns`, as recorded, messages included), one string
 * a line; '' when there is none. Only the fields named are read: a walk of every node cost as much
 * as the rest of an import.
 */
export function searchText(turns: unknown): string {
  if (!Array.isArray(turns)) return '';
  const found = new Set<string>();
  const add = (value: unknown) => {
    if (typeof value === 'string' && value.trim() !== '') found.add(value);
  };
  for (const turn of turns) {
    if (!isObject(turn)) continue;
    add(turn.prompt);
    if (isObject(turn.model)) {
      add(turn.model.reply);
      add(turn.model.reasoning);
    }
    addMessages(turn.messages, add);
  }
  return [...found].join('\n');
}

/** Each message's text: a string content, or the text parts of a list. */
function addMessages(messages: unknown, add: (value: unknown) => void): void {
  if (!Array.isArray(messages)) return;
  for (const message of messages) {
    if (!isObject(message)) continue;
    const content = message.content;
    if (!Array.isArray(content)) add(content);
    else for (const part of content) if (isObject(part)) add(part.text);
  }
}

/**
 * The FTS5 table and its rows for the episodes stored, in the migration's transaction: a completed
 * record's turns are read back from `turns` (their messages apart), a failed one's from its record.
 */
export function createEpisodeText(db: Db): void {
  db.exec(`CREATE VIRTUAL TABLE episode_text USING fts5(text, content = '', contentless_delete = 1, tokenize = 'unicode61 remove_diacritics 2')`);
  const turnsOf = db.prepare('SELECT turn_json, messages_json FROM turns WHERE episode_id = ?');
  const insert = db.prepare('INSERT INTO episode_text (rowid, text) VALUES (?, ?)');
  // A page at a time, so that memory does not grow with the store.
  const page = db.prepare('SELECT rowid, episode_id, record_json FROM episodes WHERE rowid > ? ORDER BY rowid LIMIT 500');
  for (let after = 0; ; ) {
    const episodes = page.all(after) as { rowid: number; episode_id: string; record_json: string }[];
    if (episodes.length === 0) return;
    for (const { rowid, episode_id, record_json } of episodes) {
      const record = JSON.parse(record_json) as { turns?: unknown };
      const rows = turnsOf.all(episode_id) as { turn_json: string; messages_json: string | null }[];
      const turns = [
        ...(Array.isArray(record.turns) ? record.turns : []),
        ...rows.map((t) => ({ ...(JSON.parse(t.turn_json) as Loose), messages: t.messages_json === null ? undefined : (JSON.parse(t.messages_json) as unknown) })),
      ];
      const text = searchText(turns);
      if (text !== '') insert.run(rowid, text);
      after = rowid;
    }
  }
}

/**
 * What a user typed as an FTS5 query that means the text itself: one phrase (FTS5 syntax inside
 * double quotes is plain text; a quote is written twice) whose last word matches by its start, so
 * `bollard` finds "bollards". Case and accents do not count (the tokenizer folds them); punctuation
 * separates words as in the indexed text, and a query of punctuation only matches nothing.
 */
export function textQuery(text: string): string {
  return `"${text.replace(/"/g, '""')}"*`;
}
