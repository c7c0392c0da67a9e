/**
 * Chat messages as the readers find them, turned into the audit's AuditMessages: OpenAI chat
 * messages (images as data URLs, URLs or file paths) and geolab's recorded ones (images by sha256).
 * The role decides the author: only the model's own messages (assistant) cannot leak. Also the points
 * an agent chose itself, from its tool calls and JSON actions, which the detectors let pass.
 */
import { realpathSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import type { LatLon } from '../../core/geodesy.js';
import { isRecord } from '../../core/values.js';
import { pointsOfAction } from '../../env/action-facts.js';
import { extractActionObject } from '../../core/action-object.js';
import { readContainedFile } from '../../files.js';
import { imageOfDataUrl } from '../images.js';
import type { AuditImage, AuditMessage, Author } from '../types.js';
import type { InlineImages } from './jsonl.js';

export function authorOf(role: string): Author {
  return role === 'assistant' ? 'model' : 'harness';
}

/** A message the reader cannot use: `field` is relative to the message list, e.g. `messages[2].content`. */
export class MessageError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

/** Finds the bytes of an image a recorded message names by sha256 (null: not available). */
export type ImageStore = (sha256: string) => Buffer | null;

/** Where images named by path may be read from: the folder of the file that names them. */
export class ImageFiles {
  private readonly roots: string[];

  constructor(private readonly baseDir: string) {
    this.roots = [realpathSync(baseDir)];
  }

  static besides(file: string): ImageFiles {
    return new ImageFiles(dirname(resolve(file)));
  }

  read(path: string): Buffer | null {
    const read = readContainedFile(isAbsolute(path) ? path : resolve(this.baseDir, path), this.roots, MAX_IMAGE_BYTES);
    return read.ok ? read.bytes : null;
  }
}

/** The cap episode import puts on an image file (store/import-episodes.ts), without loading SQLite here. */
const MAX_IMAGE_BYTES = 32 * 1024 * 1024;

/** Where a message's images come from: files beside the input, the image store, data URLs sliced out of its line. */
export interface ImageSources {
  files: ImageFiles | null;
  store?: ImageStore;
  inline?: InlineImages;
}

/** An image_url's target: decoded when inline, read when a file beside the input, else named only. */
export function imageFromUrl(url: string, sources: ImageSources): { image: AuditImage; text: string | null } {
  const sliced = sources.inline?.get(url);
  if (sliced) return { image: sliced(), text: null };
  const { files } = sources;
  // The core decodes as much of an inline image as its detectors read (the header, for a JPEG).
  if (url.startsWith('data:')) return { image: imageOfDataUrl(url), text: null };
  // A URL or a path is text the model's server reads: an image id in a file name leaks through it.
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(url) && !url.startsWith('file://')) return { image: { ref: url, bytes: null }, text: url };
  const path = url.startsWith('file://') ? new URL(url).pathname : url;
  return { image: { ref: url, bytes: files ? files.read(path) : null }, text: url };
}

/**
 * One chat message (OpenAI's shape, or geolab's recorded one) as an AuditMessage. `at` names the
 * message in errors (`messages[3]`).
 */
export function auditMessage(value: unknown, at: string, sources: ImageSources): AuditMessage {
  if (!isRecord(value)) throw new MessageError(at, 'expected a message object {"role", "content"}');
  const { role, content, name } = value;
  if (typeof role !== 'string' || role === '') throw new MessageError(`${at}.role`, 'expected a role (system, user, assistant or tool)');
  const message: AuditMessage = { author: authorOf(role), role, texts: [], images: [] };
  if (typeof content === 'string') message.texts.push(content);
  else if (Array.isArray(content)) content.forEach((part, i) => addPart(message, part, `${at}.content[${i}]`, sources));
  else if (content !== null && content !== undefined) throw new MessageError(`${at}.content`, 'expected a string, a list of content parts or null');
  if (typeof name === 'string' && name !== '') message.texts.push(name);
  if (Array.isArray(value.tool_calls) && value.tool_calls.length > 0) message.toolCalls = value.tool_calls;
  return message;
}

function addPart(message: AuditMessage, part: unknown, at: string, sources: ImageSources): void {
  if (typeof part === 'string') {
    message.texts.push(part);
    return;
  }
  if (!isRecord(part)) throw new MessageError(at, 'expected a content part object {"type", ...}');
  if (typeof part.text === 'string') {
    message.texts.push(part.text);
    return;
  }
  if (part.type === 'image_url' || part.type === 'input_image') {
    const target = isRecord(part.image_url) ? part.image_url.url : part.image_url;
    if (typeof target !== 'string') throw new MessageError(`${at}.image_url`, 'expected a URL string or {"url": string}');
    const { image, text } = imageFromUrl(target, sources);
    message.images.push(image);
    if (text !== null) message.texts.push(text);
    return;
  }
  if (part.type === 'image') {
    // geolab's recorded form names the image by its hash in the image store.
    if (typeof part.sha256 === 'string') {
      message.images.push({ ref: part.sha256, bytes: sources.store?.(part.sha256) ?? null });
      return;
    }
    // TRL's conversational form: {"type": "image", "image": <url or path>} (a decoded image is not kept in logs).
    if (typeof part.image === 'string') {
      const { image, text } = imageFromUrl(part.image, sources);
      message.images.push(image);
      if (text !== null) message.texts.push(text);
    }
    return;
  }
  throw new MessageError(`${at}.type`, `expected a text or image part, got ${JSON.stringify(part.type ?? null)}`);
}

/**
 * The list of a prompt's messages, each converted; `field` names the list in errors. Each tool
 * result is tied to the call it answers (by tool_call_id, else the next unanswered call), so that its
 * feedback is known as the answer to that call's points.
 */
export function auditMessages(value: unknown, field: string, sources: ImageSources): AuditMessage[] {
  if (!Array.isArray(value)) throw new MessageError(field, 'expected a list of chat messages');
  const calls = new OpenCalls();
  return value.map((raw, i) => {
    const message = auditMessage(raw, `${field}[${i}]`, sources);
    if (message.toolCalls) calls.add(message.toolCalls);
    else if (message.role === 'tool') {
      const call = calls.answer((raw as Record<string, unknown>).tool_call_id);
      if (call !== undefined) message.answers = answered(call);
    }
    return message;
  });
}

/** The calls of a conversation not answered yet, by id and in order. */
export class OpenCalls {
  private readonly open: unknown[] = [];

  add(calls: readonly unknown[]): void {
    this.open.push(...calls);
  }

  /** The call a tool result answers: the one with its id, else the oldest unanswered one. */
  answer(id: unknown): unknown {
    const at = typeof id === 'string' ? this.open.findIndex((call) => isRecord(call) && call.id === id) : -1;
    return this.open.splice(at >= 0 ? at : 0, 1)[0];
  }
}

/** What a tool result answers: the call's name and the points its arguments name. */
export function answered(call: unknown): { name: string; points: LatLon[] } {
  const fn = isRecord(call) && isRecord(call.function) ? call.function : call;
  const name = isRecord(fn) && typeof fn.name === 'string' ? fn.name : '';
  return { name, points: pointsOfAction(callArguments(call)) };
}

/** Points a model chose in its own messages: tool call arguments and the JSON action of its text. */
export function pointsInModelMessages(messages: readonly AuditMessage[]): LatLon[] {
  const points: LatLon[] = [];
  for (const message of messages) {
    if (message.author !== 'model') continue;
    for (const call of message.toolCalls ?? []) points.push(...pointsOfAction(callArguments(call)));
    for (const text of message.texts) points.push(...pointsOfAction(extractActionObject(text)));
  }
  return points;
}

/** A tool call's arguments, whether sent as a JSON string (OpenAI) or an object (recorded, Qwen). */
export function callArguments(call: unknown): Record<string, unknown> | null {
  if (!isRecord(call)) return null;
  const args = isRecord(call.function) ? call.function.arguments : call.arguments;
  if (isRecord(args)) return args;
  if (typeof args !== 'string') return null;
  try {
    const parsed: unknown = JSON.parse(args);
    return isRecord(parsed) ? parsed : null;
  } catch {
    return null;
  }
}
