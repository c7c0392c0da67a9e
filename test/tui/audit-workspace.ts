/**
 * A real workspace for the Audit screen's tests: a task set with one task in Niš, Serbia, and
 * recorded episodes of it, one with leaks planted in what the environment sent (an image id and
 * the camera's coordinates), one clean. The TUI is given the real session and audit service.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CompletedEpisode } from '../../src/core/episode.js';
import { saveEpisode } from '../../src/store/episodes.js';
import { openWorkspace } from '../../src/store/index.js';
import { importTaskFile } from '../../src/store/task-sets.js';
import type { TuiServices } from '../../src/tui/services.js';
import { completedRecord } from '../helpers/episodes.js';
import { tempDir } from '../helpers/fixtures.js';

export const LEAKY_IMAGE_ID = '7771234567890124';

const TASK = {
  task_index: 0,
  task_id: 'srb-00007',
  country: 'Republic of Serbia',
  sequence_id: 'zK4pW8sN2vQ6tY1mR9dL3x',
  frames: [
    { image_id: '7771234567890123', lat: 43.3209, lon: 21.8958, compass_angle: 0, captured_at: '2024-05', is_pano: true },
    { image_id: LEAKY_IMAGE_ID, lat: 43.321, lon: 21.896, compass_angle: 0, captured_at: '2024-05', is_pano: true },
  ],
  attribution: { creator_username: 'south_rambler', creator_id: '900800700600', licence: 'CC-BY-SA', source: 'mapillary' },
};

/** An episode of the task; `leak` puts the leaks in the tool result its turn 2 request carries. */
export function serbiaEpisode(id: string, leak: boolean): CompletedEpisode {
  const record = completedRecord({ id, split: 'serbia', index: 0, country: 'Republic of Serbia' });
  record.task.task_id = TASK.task_id;
  const tool = leak ? `Facing east. Image ${LEAKY_IMAGE_ID} loaded, camera at 43.3209, 21.8958.` : 'Facing east.';
  const history = [
    { role: 'system', content: 'You play GeoGuesser.' },
    { role: 'user', content: 'Start.' },
    { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'look', arguments: '{"heading_deg": 90}' } }] },
    { role: 'tool', content: tool },
  ];
  const turns = record.turns!;
  turns[1]!.messages = history.slice(0, 2);
  turns[2]!.messages = history;
  turns[3]!.messages = [...history, { role: 'user', content: 'Guess now.' }];
  return record;
}

/** An episode whose agent pinned Belgrade: the pin's feedback names Serbia, the true country. */
export function pinnedEpisode(id: string): CompletedEpisode {
  const record = serbiaEpisode(id, false);
  const pin = { id: 'c1', type: 'function', function: { name: 'pin', arguments: '{"lat": 44.8176, "lon": 20.4569}' } };
  const history = [
    { role: 'system', content: 'You play GeoGuesser.' },
    { role: 'user', content: 'Start.' },
    { role: 'assistant', content: null, tool_calls: [pin] },
    { role: 'tool', content: 'Pin 1 is in Serbia.' },
  ];
  record.turns![2]!.messages = history;
  record.turns![3]!.messages = [...history, { role: 'user', content: 'Guess now.' }];
  return record;
}

export interface AuditWorkspace {
  home: string;
  services: Partial<TuiServices>;
  close(): Promise<void>;
}

/** A workspace (no demo episodes) holding the task set and the episodes given, with the TUI's real services on it. */
export async function auditWorkspace(episodes: readonly CompletedEpisode[]): Promise<AuditWorkspace> {
  const home = await auditWorkspaceDir(episodes);
  const [{ auditService }, { workspaceSession }] = await Promise.all([import('../../src/tui/audit/service.js'), import('../../src/tui/workspace-session.js')]);
  const session = workspaceSession(home);
  return { home, services: { openWorkspace: session.view, audit: auditService(session, home) }, close: session.close };
}

/** Only the workspace's folder: for the real binary. */
export async function auditWorkspaceDir(episodes: readonly CompletedEpisode[]): Promise<string> {
  const dir = tempDir();
  const home = join(dir, 'home');
  const tasks = join(dir, 'serbia.jsonl');
  writeFileSync(tasks, JSON.stringify(TASK) + '\n');
  const ws = await openWorkspace(home, { seedDemo: false });
  try {
    await importTaskFile(ws.db, tasks, 'serbia');
    for (const episode of episodes) saveEpisode(ws.db, episode);
  } finally {
    ws.close();
  }
  return home;
}
