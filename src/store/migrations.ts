/**
 * Versioned schema of the workspace database. Each migration runs once, in order, inside one
 * transaction with the bump of `user_version`; never edit a released migration, add a new one.
 */
import type { Db } from './db.js';
import { createEpisodeText } from './episode-text.js';

/** SQL, or a function for a migration that fills a table from the records (it runs in the same transaction). */
export type Migration = string | ((db: Db) => void);

export const MIGRATIONS: readonly Migration[] = [
  // 1: task sets, splits, episodes and turns, images, audit findings, eval and training runs.
  `
  CREATE TABLE task_sets (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    source_path TEXT NOT NULL,
    source_sha256 TEXT NOT NULL,
    n_tasks INTEGER NOT NULL,
    n_frames INTEGER NOT NULL,
    imported_at TEXT NOT NULL
  );
  CREATE TABLE tasks (
    set_id INTEGER NOT NULL REFERENCES task_sets(id) ON DELETE CASCADE,
    task_index INTEGER NOT NULL,
    task_id TEXT NOT NULL,
    country TEXT,
    sequence_id TEXT,
    n_frames INTEGER NOT NULL,
    start_lat REAL NOT NULL,
    start_lon REAL NOT NULL,
    json TEXT NOT NULL,
    PRIMARY KEY (set_id, task_index),
    UNIQUE (set_id, task_id)
  );
  CREATE INDEX tasks_country ON tasks(set_id, country);

  CREATE TABLE splits (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    set_id INTEGER NOT NULL REFERENCES task_sets(id) ON DELETE CASCADE,
    pool_set_id INTEGER REFERENCES task_sets(id) ON DELETE SET NULL,
    manifest_json TEXT,
    created_at TEXT NOT NULL
  );

  CREATE TABLE images (
    sha256 TEXT PRIMARY KEY,
    mime TEXT NOT NULL,
    width INTEGER,
    height INTEGER,
    bytes INTEGER NOT NULL,
    path TEXT NOT NULL,
    created_at TEXT NOT NULL
  );

  CREATE TABLE eval_runs (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    root TEXT,
    config_json TEXT NOT NULL DEFAULT '{}',
    created_at TEXT NOT NULL
  );

  CREATE TABLE episodes (
    episode_id TEXT PRIMARY KEY,
    run_id TEXT REFERENCES eval_runs(id) ON DELETE SET NULL,
    recorded_at TEXT NOT NULL,
    model_name TEXT,
    split TEXT NOT NULL,
    task_index INTEGER NOT NULL,
    sample INTEGER NOT NULL DEFAULT 0,
    task_id TEXT,
    country TEXT,
    verdict TEXT,
    distance_km REAL,
    reward REAL,
    train_reward REAL,
    turns_used INTEGER,
    error TEXT,
    record_json TEXT NOT NULL
  );
  CREATE INDEX episodes_recorded ON episodes(recorded_at DESC);
  CREATE INDEX episodes_run_task ON episodes(run_id, split, task_index, sample);

  CREATE TABLE turns (
    episode_id TEXT NOT NULL REFERENCES episodes(episode_id) ON DELETE CASCADE,
    turn INTEGER NOT NULL,
    status TEXT,
    action_json TEXT,
    image_sha256 TEXT REFERENCES images(sha256),
    feedback TEXT,
    reward REAL,
    done INTEGER NOT NULL DEFAULT 0,
    messages_json TEXT,
    turn_json TEXT NOT NULL,
    PRIMARY KEY (episode_id, turn)
  );

  CREATE TABLE audit_findings (
    id INTEGER PRIMARY KEY,
    fingerprint TEXT NOT NULL UNIQUE,
    episode_id TEXT,
    turn INTEGER,
    message_index INTEGER,
    kind TEXT NOT NULL,
    severity TEXT NOT NULL,
    span TEXT NOT NULL,
    context TEXT NOT NULL,
    evidence TEXT NOT NULL,
    accepted_reason TEXT,
    created_at TEXT NOT NULL
  );

  CREATE TABLE training_runs (
    id TEXT PRIMARY KEY,
    config_json TEXT NOT NULL,
    command TEXT NOT NULL,
    pid INTEGER,
    log_path TEXT,
    status TEXT NOT NULL,
    created_at TEXT NOT NULL,
    ended_at TEXT
  );
  `,
  // 2: the episode list (filters, sorts, text search) must stay instant at 100k episodes. Episode
  // rows are wide (record_json), so one covering index of the list's columns, in the default order,
  // serves every filter and sort by scanning it instead of the table; it replaces episodes_recorded.
  `
  DROP INDEX episodes_recorded;
  CREATE INDEX episodes_list ON episodes(
    recorded_at, episode_id, model_name, split, task_index, sample, task_id, country, verdict,
    distance_km, reward, turns_used, error
  );
  `,
  // 3: a page sorted by reward, distance or turns read and sorted every matching row (15 ms at 100k
  // episodes, twice that with a text search, 130 ms deep in the list). One covering index per sort,
  // keyed by its value then time, lets a page in either direction walk it and stop at the page.
  `
  CREATE INDEX episodes_by_reward ON episodes(
    reward, recorded_at, episode_id, model_name, split, task_index, sample, task_id, country, verdict,
    distance_km, turns_used, error
  );
  CREATE INDEX episodes_by_distance ON episodes(
    distance_km, recorded_at, episode_id, model_name, split, task_index, sample, task_id, country, verdict,
    reward, turns_used, error
  );
  CREATE INDEX episodes_by_turns ON episodes(
    turns_used, recorded_at, episode_id, model_name, split, task_index, sample, task_id, country, verdict,
    distance_km, reward, error
  );
  `,
  // 4: a panorama cache is configured once: on a task set (`tasks import --panos`) or for the
  // workspace (`config set panos`), read whenever an episode is played.
  `
  ALTER TABLE task_sets ADD COLUMN panos_dir TEXT;
  CREATE TABLE settings (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
  );
  `,
  // 5: training runs as `train launch` records them. The first schema's training_runs was never
  // written; a run's metrics stay in its progress.jsonl, the row keeps what lists and stop need.
  `
  DROP TABLE training_runs;
  CREATE TABLE train_runs (
    name TEXT PRIMARY KEY,
    config_path TEXT NOT NULL,
    config_json TEXT NOT NULL,
    output_dir TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('running', 'stopped', 'crashed', 'done')),
    pid INTEGER,
    env_pid INTEGER,
    started_at TEXT NOT NULL,
    ended_at TEXT,
    last_step INTEGER,
    max_steps INTEGER NOT NULL
  );
  `,
  // 6: task sets are versioned by content (docs/splits.md, Versions). A version is the sha256 of the
  // set's canonical rows (each task's stored JSON in task_index order, one a line); the current
  // version's tasks stay in `tasks`, a replaced one keeps its rows here in `tasks_jsonl`. An episode
  // records the version it was played on in `task_set_sha256`; NULL (episodes saved before this
  // migration, or on a split that is no task set) reads the set's first recorded version.
  `
  CREATE TABLE task_set_versions (
    set_name TEXT NOT NULL,
    sha256 TEXT NOT NULL,
    source_path TEXT NOT NULL,
    n_tasks INTEGER NOT NULL,
    imported_at TEXT NOT NULL,
    replaced_at TEXT,
    tasks_jsonl TEXT,
    PRIMARY KEY (set_name, sha256)
  );
  ALTER TABLE episodes ADD COLUMN task_set_sha256 TEXT;
  `,
  // 7: the Episodes filters `text:` and `status:provider-error` (docs/tui.md, Episodes): the
  // full-text index of each episode's prompts and replies, filled for the episodes already stored
  // (episode-text.ts says which text, once, for this fill and for every save after), and a partial
  // index that finds the few episodes with a provider-error turn without reading every turn.
  (db) => {
    createEpisodeText(db);
    db.exec(`CREATE INDEX turns_provider_error ON turns(episode_id) WHERE status = 'provider_error'`);
  },
];
