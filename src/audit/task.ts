/** An AuditTask from what geolab knows of a task: a whole task record, or a remote task's spec. */
import type { Task } from '../core/tasks.js';
import { truthOf } from '../core/tasks.js';
import type { AuditTask, CaptureFacts, IdentityKind } from './types.js';

/**
 * Truth, country and every identity key of a task (the task fields that are keys; docs/audit.md):
 * task_id, task_index, sequence_id, image ids, the contributor's username and id, and the
 * `meta.sha256` checksums of its images.
 */
export function auditTaskFromTask(task: Task): AuditTask {
  const identity: AuditTask['identity'] = [
    { kind: 'task_id', value: task.task_id },
    { kind: 'task_index', value: String(task.task_index) },
    ...(task.sequence_id ? [key('sequence_id', task.sequence_id)] : []),
    ...task.frames.map((frame) => key('image_id', frame.image_id)),
    ...(task.attribution?.creator_username ? [key('creator_username', task.attribution.creator_username)] : []),
    ...(task.attribution?.creator_id ? [key('creator_id', task.attribution.creator_id)] : []),
    ...checksumsOf(task.meta?.sha256).map((value) => key('checksum', value)),
  ];
  return { truth: truthOf(task), identity, ...(task.country ? { country: task.country } : {}), capture: captureOf(task) };
}

/** The frames' capture months and compass angles, and the camera named in the task's meta. */
function captureOf(task: Task): CaptureFacts {
  const months = [...new Set(task.frames.map((frame) => frame.captured_at).filter((month) => month !== ''))];
  const compassAngles = [...new Set(task.frames.map((frame) => frame.compass_angle))];
  const make = task.meta?.camera_make;
  const model = task.meta?.camera_model;
  return {
    months,
    compassAngles,
    ...(typeof make === 'string' && make.trim() ? { cameraMake: make.trim() } : {}),
    ...(typeof model === 'string' && model.trim() ? { cameraModel: model.trim() } : {}),
  };
}

/** From the Task API's truth-free spec (a remote environment): identity only. */
export function auditTaskFromSpec(spec: { task_id?: unknown; sequence_id?: unknown }): AuditTask {
  const identity: AuditTask['identity'] = [];
  if (typeof spec.task_id === 'string' && spec.task_id) identity.push(key('task_id', spec.task_id));
  if (typeof spec.sequence_id === 'string' && spec.sequence_id) identity.push(key('sequence_id', spec.sequence_id));
  return { truth: null, identity };
}

function key(kind: IdentityKind, value: string): AuditTask['identity'][number] {
  return { kind, value };
}

function checksumsOf(value: unknown): string[] {
  if (typeof value !== 'object' || value === null) return [];
  return Object.values(value).filter((v): v is string => typeof v === 'string' && v !== '');
}
