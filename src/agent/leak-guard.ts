/**
 * The leak guard: checks every request before it is sent (docs/audit.md), with the audit's detector
 * core (src/audit/detect.ts), so the guard and `geolab audit` share one definition of a leak. This
 * module only turns a request (recorded messages, the images sent, what is known of the task) into
 * an AuditPrompt, and refuses it on any finding but a budget warning: the episode fails with an
 * error starting "leak guard:".
 *
 * The guard knows what its caller knows: with the embedded environment the whole task (truth and
 * identity), with a remote one the Task API's truth-free spec (identity only). Image metadata is
 * read as the audit reads it (the tags classified: GPS, camera, keys in a tag), and any of it is
 * refused: even a camera's make is more than the environment means to send.
 */
import type { LatLon } from '../core/geodesy.js';
import type { Task } from '../core/tasks.js';
import { auditPromptAsync } from '../audit/detect.js';
import { AuditSession } from '../audit/session.js';
import { auditTaskFromSpec, auditTaskFromTask } from '../audit/task.js';
import { auditMessages } from '../audit/sources/messages.js';
import type { AuditTask, Finding } from '../audit/types.js';
import type { RecordedMessage } from './types.js';

export { findCoordinates } from '../audit/coordinates.js';
export { LEAK_RADIUS_KM, OWN_POINT_TOLERANCE_KM } from '../audit/detect.js';
export { imageMetadata } from '../audit/images.js';

/** What the guard knows of the task being played: an AuditTask (truth null with a remote environment). */
export type GuardKnowledge = AuditTask;

/**
 * One GuardKnowledge per task object, for as long as the task lives: the guard's session compiles a
 * task's dictionaries once per AuditTask object (src/audit/detect.ts), so a sweep's k episodes of a
 * task share one compile instead of making k (a sweep of 48 episodes over 12 tasks spent 97 ms on them).
 */
const knowledgeOfTask = new WeakMap<Task, GuardKnowledge>();

export function knowledgeFromTask(task: Task): GuardKnowledge {
  let knowledge = knowledgeOfTask.get(task);
  if (!knowledge) {
    knowledge = auditTaskFromTask(task);
    knowledgeOfTask.set(task, knowledge);
  }
  return knowledge;
}
export const knowledgeFromSpec = auditTaskFromSpec;

/** A finding of the core, with the role of the message it is in. */
export interface LeakFinding extends Finding {
  role: RecordedMessage['role'] | null;
}

export class LeakGuardError extends Error {
  constructor(readonly findings: readonly LeakFinding[]) {
    const [first] = findings;
    const more = findings.length > 1 ? ` (and ${findings.length - 1} more)` : '';
    const where = first && first.role ? ` in message ${first.message} (${first.role})` : '';
    super(`leak guard: ${first ? `${first.evidence}${where}` : 'refused'}${more}; the request was not sent`);
    this.name = 'LeakGuardError';
  }
}

export interface RequestToScan {
  messages: readonly RecordedMessage[];
  /** The bytes of every image the messages reference, by sha256. */
  images: ReadonlyMap<string, { bytes: Buffer; mime: string }>;
  knowledge: GuardKnowledge;
  /** Points the agent chose in earlier turns (its pins, maps, measures). */
  agentPoints: readonly LatLon[];
}

/**
 * The guard's audit session, kept across requests: each request re-sends the history of the ones
 * before it, so its texts' scans, its task's compiled dictionaries and its pins' places are mostly
 * there already. Its caches are bounded (session.ts).
 */
const session = new AuditSession();

/** Every finding that stops the request: all but budget warnings. */
export async function scanRequest({ messages, images, knowledge, agentPoints }: RequestToScan): Promise<LeakFinding[]> {
  const prompt = {
    source: 'leak-guard',
    promptId: 'request',
    task: { taskId: knowledge.identity.find((k) => k.kind === 'task_id')?.value ?? '' },
    messages: auditMessages(messages, 'messages', { files: null, store: (sha256) => images.get(sha256)?.bytes ?? null }),
    agentPoints: [...agentPoints],
  };
  return (await auditPromptAsync(prompt, knowledge, { session }))
    .filter((f) => f.kind !== 'budget')
    .map((f) => ({ ...f, role: messages[f.message]?.role ?? null }));
}

/** Rejects with LeakGuardError when the request must not be sent. */
export async function guardRequest(request: RequestToScan): Promise<void> {
  const findings = await scanRequest(request);
  if (findings.length) throw new LeakGuardError(findings);
}
