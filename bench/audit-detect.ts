/**
 * audit.detect: the detector core on prompts shaped like geolab's tools protocol sends them (the
 * opening instruction, looks and pins with real feedback, views as JPEG data URLs), for tasks around
 * the world, each prompt with texts of its own (pins at new points). Beside it, in the same run, a
 * literal scan of the same texts for the same tasks' keys and country names (indexOf per pattern,
 * no geography), the anchor DESIGN §11 compares against.
 */
import sharp from 'sharp';
import { dataUrl } from '../src/agent/images.js';
import { assistantMessage, executedCallMessages, openingMessage, type ToolCall } from '../src/agent/protocols/tools.js';
import type { RecordedMessage } from '../src/agent/types.js';
import { auditPrompt, clearAuditCaches } from '../src/audit/detect.js';
import { imageOfDataUrl } from '../src/audit/images.js';
import type { AuditMessage, AuditPrompt, AuditTask } from '../src/audit/types.js';
import { describePlace, lookFeedback, pinFeedback } from '../src/env/feedback.js';
import { aliasesOf, locate } from '../src/geo/index.js';
import { lcg, round, timeBatches, type Bench } from './harness.js';

const TRUTHS = [
  [43.3209, 21.8958, 'Republic of Serbia'],
  [45.07, 7.69, 'Italy'],
  [35.68, 139.69, 'Japan'],
  [-1.286, 36.817, 'Kenya'],
  [-12.046, -77.043, 'Peru'],
  [64.147, -21.94, 'Iceland'],
  [-33.868, 151.209, 'Australia'],
  [19.076, 72.878, 'India'],
  [-23.55, -46.633, 'Brazil'],
  [61.218, -149.9, 'United States of America'],
] as const;

const EPISODES = 100;
const TURNS = 6;
const PROMPTS = EPISODES * TURNS;

async function corpus(): Promise<{ prompts: AuditPrompt[]; tasks: AuditTask[] }> {
  const rand = lcg(11);
  // A smooth picture with some grain: about the size of a real 448 px view at quality 85.
  const pixels = Buffer.alloc(448 * 448 * 3);
  for (let i = 0; i < pixels.length; i++) pixels[i] = (((i / 3) % 448) * 0.5 + Math.floor(i / 1344) * 0.3 + rand() * 24) & 255;
  const view = await sharp(pixels, { raw: { width: 448, height: 448, channels: 3 } }).jpeg({ quality: 85 }).toBuffer();
  const url = dataUrl({ bytes: view, mime: 'image/jpeg' });
  const tasks: AuditTask[] = TRUTHS.map(([lat, lon, country], i) => ({
    truth: { lat, lon },
    country,
    identity: [
      { kind: 'task_id', value: `eval-${String(i).padStart(5, '0')}` },
      { kind: 'task_index', value: String(i) },
      { kind: 'sequence_id', value: `Sq${i}hGf2kPq9LmN0xYzAb12` },
      { kind: 'image_id', value: String(518273645019283 + i) },
      { kind: 'creator_username', value: `walker_${i}` },
      { kind: 'creator_id', value: String(104857600123 + i) },
      { kind: 'checksum', value: (i.toString(16) + '9c1f0e2d3b4a5968').repeat(4).slice(0, 64) },
    ],
  }));
  let calls = 0;
  const call = (name: string, args: Record<string, unknown>): ToolCall => ({ id: `c${++calls}`, type: 'function', function: { name, arguments: JSON.stringify(args) } });
  const part = { type: 'image' as const, sha256: 'v'.repeat(64), mime: 'image/jpeg' };
  const prompts: AuditPrompt[] = [];
  for (let e = 0; e < EPISODES; e++) {
    const t = e % tasks.length;
    const truth = tasks[t]!.truth!;
    // The conversation grows turn by turn, as the tools protocol sends it.
    const messages: RecordedMessage[] = [openingMessage({ tools: 'trained', maxTurns: 10, camera: { heading_deg: 0, fov_deg: 90, pitch_deg: 0 }, image: part })];
    for (let k = 1; k <= TURNS; k++) {
      // Each prompt as a reader gets it: parsed from its own line, so no string is shared with another prompt.
      const line = JSON.stringify({ id: `e${e}#${k}`, task: t, messages: messages.map((m) => asAudit(m, url)) });
      const parsed = JSON.parse(line) as { id: string; messages: (Omit<AuditMessage, 'images'> & { images: string[] })[] };
      prompts.push({
        source: 'bench',
        promptId: parsed.id,
        task: { taskId: `eval-${t}` },
        messages: parsed.messages.map((m) => ({ ...m, images: m.images.map((u) => imageOfDataUrl(u)) })),
        agentPoints: [],
        budget: { turnsLeft: 11 - k },
      });
      const left = 10 - k;
      if (k % 2) {
        const c = call('look', { heading_deg: 60 * k });
        messages.push(assistantMessage('', [c]), ...executedCallMessages({ call: c, op: 'look', feedback: lookFeedback({ headingDeg: 60 * k, pitchDeg: 0, fovDeg: 90 }), callsLeft: left, image: { part, kind: 'view' }, extras: [] }));
      } else {
        const pin = { lat: truth.lat + (rand() - 0.5) * 20, lon: truth.lon + (rand() - 0.5) * 20 };
        const c = call('pin', pin);
        const feedback = pinFeedback({ index: k / 2, ...pin, description: describePlace(locate(pin.lat, pin.lon)) }, null);
        messages.push(assistantMessage('', [c]), ...executedCallMessages({ call: c, op: 'pin', feedback, callsLeft: left, image: { part, kind: 'map' }, extras: [] }));
      }
    }
  }
  return { prompts, tasks };
}

/** As a prompt-file reader gives it: the image's data URL among the texts (and, decoded, as the image). */
function asAudit(message: RecordedMessage, url: string): Omit<AuditMessage, 'images'> & { images: string[] } {
  const parts = typeof message.content === 'string' ? [{ type: 'text' as const, text: message.content }] : message.content;
  return {
    author: message.role === 'assistant' ? 'model' : 'harness',
    role: message.role,
    texts: parts.map((p) => (p.type === 'text' ? p.text : url)),
    images: parts.flatMap((p) => (p.type === 'image' ? [url] : [])),
    ...(message.tool_calls ? { toolCalls: message.tool_calls } : {}),
  };
}

/** The anchor: every key and country alias of the task looked up with indexOf in every text. */
function literalScan(prompt: AuditPrompt, patterns: readonly string[]): number {
  let hits = 0;
  for (const message of prompt.messages) {
    for (const text of message.texts) for (const pattern of patterns) if (text.indexOf(pattern) >= 0) hits++;
  }
  return hits;
}

export const auditDetectBenches: Bench[] = [
  {
    name: 'audit.detect',
    unit: 'prompts',
    async run() {
      const { prompts, tasks } = await corpus();
      const taskOf = (p: AuditPrompt) => tasks[Number(p.task && 'taskId' in p.task ? p.task.taskId.slice(5) : 0)] as AuditTask;
      const patterns = tasks.map((t) => [...t.identity.map((k) => k.value), ...(aliasesOf(t.country as string) ?? []).map((a) => a.text)]);
      // One pass over the corpus in episode order, as the audit reads it, starting cold each time:
      // no text scanned before, every task compiled anew (the towns' index stays loaded).
      auditPrompt(prompts[0] as AuditPrompt, taskOf(prompts[0] as AuditPrompt));
      const pass = timeBatches(() => {
        clearAuditCaches();
        const fresh = new Map(tasks.map((t) => [t, { ...t }]));
        for (const prompt of prompts) auditPrompt(prompt, fresh.get(taskOf(prompt)) as AuditTask);
      }, 1);
      const core = { median_ms: round(pass.median_ms / PROMPTS, 5), per_s: Math.round((PROMPTS * 1000) / pass.median_ms) };
      // Again with everything seen before: the figure for texts a corpus repeats (system prompts, conversation prefixes).
      const warm = timeBatches((i) => auditPrompt(prompts[i % PROMPTS] as AuditPrompt, taskOf(prompts[i % PROMPTS] as AuditPrompt)), PROMPTS);
      const literal = timeBatches((i) => literalScan(prompts[i % PROMPTS] as AuditPrompt, patterns[tasks.indexOf(taskOf(prompts[i % PROMPTS] as AuditPrompt))] as string[]), 60, 3);
      const chars = prompts.reduce((n, p) => n + p.messages.reduce((m, msg) => m + msg.texts.reduce((k, t) => k + t.length, 0), 0), 0);
      return { ...core, warm_per_s: warm.per_s, literal_scan_per_s: literal.per_s, slowdown_vs_literal: Math.round((literal.per_s / core.per_s) * 100) / 100, prompt_kib: Math.round(chars / PROMPTS / 1024) };
    },
  },
];
