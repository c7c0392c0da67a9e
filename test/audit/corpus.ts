/**
 * Prompts the way geolab's own tools protocol builds them (src/agent/protocols/tools.ts), with real
 * environment feedback (src/env/feedback.ts over src/geo's locate), for a task near Niš, Serbia.
 * Leaks are planted into copies of these clean prompts by the tests.
 */
import sharp from 'sharp';
import type { RecordedMessage, RecordedPart } from '../../src/agent/types.js';
import { assistantMessage, executedCallMessages, openingMessage, type ToolCall } from '../../src/agent/protocols/tools.js';
import { auditMessages } from '../../src/audit/sources/messages.js';
import { auditTaskFromTask } from '../../src/audit/task.js';
import type { AuditPrompt } from '../../src/audit/types.js';
import { TaskSchema } from '../../src/core/task-schema.js';
import { describePlace, lookFeedback, pinFeedback } from '../../src/env/feedback.js';
import { locate } from '../../src/geo/index.js';
import { makeTask } from '../helpers/fixtures.js';

export const SHA = '9c1f0e2d3b4a59687a6b5c4d3e2f10ab9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f';

/** Niš, Serbia: the truth is its centre. */
export const task = TaskSchema.parse(
  makeTask(417, {
    task_id: 'eval-00417',
    country: 'Republic of Serbia',
    sequence_id: 'Qm3xT8vLp2RzWc9Hy1NbKa',
    frames: [
      { image_id: '518273645019283', lat: 43.3209, lon: 21.8958, compass_angle: 80, captured_at: '2023-07', is_pano: true },
      { image_id: '518273645019284', lat: 43.321, lon: 21.8961, compass_angle: 82, captured_at: '2023-07', is_pano: true },
    ],
    attribution: { creator_username: 'balkan.roamer', creator_id: '102938475610', licence: 'CC-BY-SA', source: 'mapillary' },
    meta: { sha256: { '518273645019283': SHA } },
  }),
);
export const auditTask = auditTaskFromTask(task);

export const BELGRADE = { lat: 44.8176, lon: 20.4569 };
/** In Bulgaria, with Niš as its nearest major city. */
export const BULGARIA_NEAR_NIS = { lat: 43.4, lon: 22.7 };
export const ZAGREB = { lat: 45.815, lon: 15.9819 };

export async function viewJpeg(exif?: Record<string, Record<string, string>>): Promise<Buffer> {
  const pixels = sharp({ create: { width: 48, height: 24, channels: 3, background: '#6a8' } }).jpeg();
  return exif ? pixels.withExif(exif).toBuffer() : pixels.toBuffer();
}

const camera = { heading_deg: 0, fov_deg: 90, pitch_deg: 0 };
let calls = 0;

function call(name: string, args: Record<string, unknown>): ToolCall {
  return { id: `call_${++calls}`, type: 'function', function: { name, arguments: JSON.stringify(args) } };
}

/** One played step: the model's call and what the harness answered. */
function step(name: string, args: Record<string, unknown>, feedback: string, callsLeft: number, image: RecordedPart | null): RecordedMessage[] {
  const c = call(name, args);
  return [
    assistantMessage('', [c]),
    ...executedCallMessages({ call: c, op: name === 'pin' ? 'pin' : 'look', feedback, callsLeft, image: image ? { part: image, kind: name === 'pin' ? 'map' : 'view' } : null, extras: [] }),
  ];
}

export function pinStep(index: number, point: { lat: number; lon: number }, callsLeft: number, image: RecordedPart | null = null): RecordedMessage[] {
  const feedback = pinFeedback({ index, ...point, description: describePlace(locate(point.lat, point.lon)) }, null);
  return step('pin', { lat: point.lat, lon: point.lon }, `${feedback} ${callsLeft + 2} actions left.`, callsLeft, image);
}

export function lookStep(headingDeg: number, callsLeft: number, image: RecordedPart | null): RecordedMessage[] {
  return step('look', { heading_deg: headingDeg }, `${lookFeedback({ headingDeg, pitchDeg: 0, fovDeg: 90 })} ${callsLeft + 2} actions left.`, callsLeft, image);
}

export function opening(image: RecordedPart | null): RecordedMessage {
  return openingMessage({ tools: 'trained', maxTurns: 10, camera, image });
}

export function imagePart(sha256: string): RecordedPart {
  return { type: 'image', sha256, mime: 'image/jpeg' };
}

/** A request as the audit sees it; images by sha256 from `images`. */
export function promptOf(messages: RecordedMessage[], options: { images?: Map<string, Buffer>; agentPoints?: { lat: number; lon: number }[]; turnsLeft?: number; id?: string } = {}): AuditPrompt {
  return {
    source: 'corpus',
    promptId: options.id ?? 'p',
    task: { taskId: task.task_id },
    messages: auditMessages(messages, 'messages', { files: null, store: (sha) => options.images?.get(sha) ?? null }),
    agentPoints: options.agentPoints ?? [],
    ...(options.turnsLeft !== undefined ? { budget: { turnsLeft: options.turnsLeft } } : {}),
  };
}

/** Harness text added to a prompt as a user message. */
export function harness(text: string): RecordedMessage {
  return { role: 'user', content: text };
}
