/**
 * geolab's recorded request messages (RecordedMessage: the runner's leak guard and the workspace's
 * per-turn `messages`) as the audit's AuditMessages: the assistant's messages are the model's, every
 * other role the harness's; images are referenced by sha256 and their bytes looked up by the caller.
 */
import type { RecordedMessage } from '../agent/types.js';
import type { AuditMessage } from './types.js';

export function auditMessageOfRecorded(message: RecordedMessage, bytesOf: (sha256: string) => Buffer | null): AuditMessage {
  const parts = typeof message.content === 'string' ? [{ type: 'text' as const, text: message.content }] : message.content;
  return {
    author: message.role === 'assistant' ? 'model' : 'harness',
    role: message.role,
    texts: [...parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])), ...(message.name ? [message.name] : [])],
    images: parts.flatMap((p) => (p.type === 'image' ? [{ ref: p.sha256, bytes: bytesOf(p.sha256) }] : [])),
    ...(message.tool_calls ? { toolCalls: message.tool_calls } : {}),
  };
}
