/**
 * The leak audit's figures (DESIGN §11): prompts per second through the detector core in a first
 * pass over a generated corpus of realistic prompts, beside a literal multi-pattern scan of the same corpus file
 * in the same run (ripgrep `rg -F -f` when installed, else a plain JS scan); and the 882-prompt audit
 * end to end through the real binary, start-up included.
 *
 * The corpus is written in geolab's own protocol shapes (DESIGN §13): tool-protocol conversations
 * (opening view, tool calls, tool results with the environment's feedback and the harness's count,
 * views after each call) and JSON-protocol requests (instructions, transcript, one view). Views are
 * data URLs of three 448 px JPEGs reused across prompts, so the corpus is cheap to build; pins are
 * the agent's own (some in the true country, as real agents place them), named back by the feedback.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { auditTaskFromTask } from '../src/audit/task.js';
import { destinationPoint } from '../src/core/geodesy.js';
import { truthOf, type Task } from '../src/core/tasks.js';
import { lookFeedback, pinFeedback, describePlace } from '../src/env/feedback.js';
import { locate } from '../src/geo/index.js';
import { JSON_INSTRUCTIONS } from '../src/agent/protocols/json.js';
import { budgetSentence } from '../src/agent/protocols/common.js';
import { DEMO_TASKS_FILE, PACKAGE_ROOT } from '../src/paths.js';
import { loadTasksStrict } from '../src/tasks/load.js';
import { lcg, median, round, type Bench } from './harness.js';

const CORPUS_PROMPTS = 1_000;
/** Timed passes of audit.prompts (a pass is about 15-40 ms: the median of 9 steadies a noisy machine). */
const CORE_SAMPLES = 9;
/** Tool calls in the longest conversation: each adds a view, and views are most of a prompt's bytes. */
const MAX_CALLS = 5;
const MAX_TURNS = 12;

async function views(): Promise<string[]> {
  const rand = lcg(11);
  return Promise.all(
    [0, 1, 2].map(async (seed) => {
      // A gradient with grain: compresses like a street view (tens of kB), unlike a flat colour.
      const size = 448;
      const pixels = Buffer.alloc(size * size * 3);
      for (let i = 0; i < pixels.length; i++) pixels[i] = ((i / 3) % size) / 2 + seed * 40 + Math.floor(rand() * 24);
      const jpeg = await sharp(pixels, { raw: { width: size, height: size, channels: 3 } }).jpeg({ quality: 70 }).toBuffer();
      return `data:image/jpeg;base64,${jpeg.toString('base64')}`;
    }),
  );
}

/** One request of a tools-protocol conversation after `calls` tool calls. */
function toolsPrompt(id: string, task: Task, calls: number, rand: () => number, view: (k: number) => string): Record<string, unknown> {
  const truth = truthOf(task);
  const image = (k: number, caption: string) => ({ role: 'user', content: [{ type: 'text', text: caption }, { type: 'image_url', image_url: { url: view(k) } }] });
  const messages: unknown[] = [
    {
      role: 'user',
      content: [
        {
          type: 'text',
          text:
            'You are standing somewhere on Earth in a street-level panorama. Work out where you are.\n' +
            'The image is your view: heading 0° (0 is true north), field of view 90°, pitch 0°.\nTools (call exactly one per reply):\n' +
            '- look: turn the camera\n- zoom: narrow the field of view\n- move: walk along the road\n- pin: drop a pin and learn what place it is in\n- guess: commit\n' +
            `You have ${MAX_TURNS} tool calls. The episode scores 0 unless you call guess before they run out.`,
        },
        { type: 'image_url', image_url: { url: view(0) } },
      ],
    },
  ];
  let pins = 0;
  for (let c = 1; c <= calls; c++) {
    const left = MAX_TURNS - c;
    const callId = `call_${c}`;
    if (c % 3 === 0) {
      // Half the pins land in the true country's neighbourhood, as an agent homing in does.
      const near = rand() < 0.5;
      const at = near ? destinationPoint(truth.lat, truth.lon, rand() * 360, 60 + rand() * 200) : { lat: -50 + rand() * 110, lon: -180 + rand() * 360 };
      const lat = Math.round(at.lat * 1e4) / 1e4;
      const lon = Math.round(at.lon * 1e4) / 1e4;
      pins++;
      messages.push({ role: 'assistant', content: 'Let me check the region.', tool_calls: [{ id: callId, type: 'function', function: { name: 'pin', arguments: JSON.stringify({ lat, lon }) } }] });
      const feedback = pinFeedback({ index: pins, lat, lon, description: describePlace(locate(lat, lon)) }, null);
      messages.push({ role: 'tool', tool_call_id: callId, content: `${feedback} ${budgetSentence(left, 'tool call')}` });
      messages.push(image(c, 'The map from pin:'));
    } else {
      const heading = Math.round(rand() * 360);
      messages.push({ role: 'assistant', content: 'Signs are hard to read; turning.', tool_calls: [{ id: callId, type: 'function', function: { name: 'look', arguments: `{"heading_deg": ${heading}}` } }] });
      messages.push({ role: 'tool', tool_call_id: callId, content: `${lookFeedback({ headingDeg: heading, pitchDeg: 0, fovDeg: 90 })} ${budgetSentence(left, 'tool call')}` });
      messages.push(image(c, 'The view after look:'));
    }
  }
  return { id, task_id: task.task_id, messages };
}

/** One JSON-protocol request: instructions, the transcript of earlier turns, the current view. */
function jsonPrompt(id: string, task: Task, turn: number, rand: () => number, view: (k: number) => string): Record<string, unknown> {
  const lines = Array.from({ length: Math.min(8, turn - 1) }, (_, t) => `- turn ${t + 1}: look(heading_deg=${Math.round(rand() * 360)}) -> Facing ${Math.round(rand() * 360)}°.`);
  const text = [
    `Turn ${turn} of ${MAX_TURNS}: ${MAX_TURNS - turn + 1} turns left, this one included.`,
    'Camera: heading 90°, field of view 90°, pitch 0°.',
    lines.length ? 'Transcript (last 8 turns at most):' : 'Transcript: nothing yet.',
    ...lines,
    'The image is the current view.',
    'Reply with brief reasoning, then one JSON action last.',
  ].join('\n');
  return {
    id,
    split: 'demo',
    index: task.task_index,
    messages: [
      { role: 'system', content: JSON_INSTRUCTIONS },
      { role: 'user', content: [{ type: 'text', text }, { type: 'image_url', image_url: { url: view(turn) } }] },
    ],
  };
}

interface Corpus {
  dir: string;
  prompts: string;
  tasks: string;
  patterns: string[];
}

async function writeCorpus(count: number): Promise<Corpus> {
  const { tasks } = await loadTasksStrict(DEMO_TASKS_FILE);
  const urls = await views();
  const rand = lcg(29);
  const view = (k: number) => urls[k % urls.length] as string;
  const dir = mkdtempSync(join(tmpdir(), 'geolab-bench-audit-'));
  const prompts = join(dir, 'prompts.jsonl');
  const out = openSync(prompts, 'w');
  for (let i = 0; i < count; i++) {
    const task = tasks[i % tasks.length] as Task;
    const line = i % 2 === 0 ? toolsPrompt(`p${i}`, task, (i >> 1) % (MAX_CALLS + 1), rand, view) : jsonPrompt(`p${i}`, task, 1 + (i % MAX_TURNS), rand, view);
    writeSync(out, JSON.stringify(line) + '\n');
  }
  closeSync(out);
  const tasksFile = join(dir, 'demo.jsonl');
  writeFileSync(tasksFile, readFileSync(DEMO_TASKS_FILE));
  // What a literal scanner would look for: every identity key and country name of the tasks.
  const patterns = new Set<string>();
  for (const task of tasks) {
    for (const key of auditTaskFromTask(task).identity) if (key.value.length >= 4) patterns.add(key.value);
    if (task.country) patterns.add(task.country);
  }
  return { dir, prompts, tasks: tasksFile, patterns: [...patterns] };
}

function hasRipgrep(): boolean {
  return spawnSync('rg', ['--version'], { stdio: 'ignore' }).status === 0;
}

/** The anchor: a literal multi-pattern scan of the corpus file, ms per pass (median of 5). */
function literalScanMs(corpus: Corpus, rg: boolean): number {
  const times: number[] = [];
  const patternFile = join(corpus.dir, 'patterns.txt');
  writeFileSync(patternFile, corpus.patterns.join('\n') + '\n');
  for (let s = 0; s < 3; s++) {
    const start = process.hrtime.bigint();
    if (rg) {
      // -c counts matching lines; status 1 (no match) is fine.
      spawnSync('rg', ['-F', '-c', '-f', patternFile, corpus.prompts], { stdio: 'ignore' });
    } else {
      let hits = 0;
      for (const line of readFileSync(corpus.prompts, 'utf8').split('\n')) if (corpus.patterns.some((p) => line.includes(p))) hits++;
      if (hits < 0) throw new Error('unreachable');
    }
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  return median(times);
}

/**
 * The corpus audit.prompts and audit.literal measure, written once per bench run and removed when
 * the process exits (it is up to 128 MiB).
 */
let shared: Promise<Corpus> | undefined;

function sharedCorpus(): Promise<Corpus> {
  shared ??= writeCorpus(CORPUS_PROMPTS).then((corpus) => {
    process.once('exit', () => rmSync(corpus.dir, { recursive: true, force: true }));
    return corpus;
  });
  return shared;
}

export const auditBenches: Bench[] = [
  {
    // The detector core's first pass over the corpus, in a process of its own (audit-core-child.ts
    // says what a pass is). read_and_audit_per_s adds reading the file (JSON, data URLs) to a pass.
    name: 'audit.prompts',
    unit: 'prompts',
    async run() {
      const corpus = await sharedCorpus();
      // The child runs the TypeScript sources as this process does (tsx's loader is in execArgv).
      const out = execFileSync(process.execPath, [...process.execArgv, join(import.meta.dirname, 'audit-core-child.ts'), corpus.prompts, corpus.tasks, String(CORE_SAMPLES)], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      const { per_pass_ms, early_pass_ms, read_ms, prompts, findings, warm_up_passes } = JSON.parse(out) as {
        per_pass_ms: number;
        early_pass_ms: number;
        read_ms: number;
        prompts: number;
        findings: number;
        warm_up_passes: number;
      };
      return {
        median_ms: round(per_pass_ms / prompts, 5),
        per_s: Math.round((prompts * 1000) / per_pass_ms),
        early_passes_per_s: Math.round((prompts * 1000) / early_pass_ms),
        read_and_audit_per_s: Math.round((prompts * 1000) / (read_ms + per_pass_ms)),
        corpus_mib: round(statSync(corpus.prompts).size / 2 ** 20, 1),
        findings,
        warm_up_passes,
      };
    },
  },
  {
    // The anchor (DESIGN §11): a literal multi-pattern scan of the same corpus file for every task's
    // identity keys and country name, ripgrep `-F -f` when installed (else a plain JS scan), one
    // process per sample like a user's run.
    name: 'audit.literal',
    unit: 'prompts',
    async run() {
      const corpus = await sharedCorpus();
      const rg = hasRipgrep();
      const ms = literalScanMs(corpus, rg);
      return { median_ms: round(ms / CORPUS_PROMPTS, 5), per_s: Math.round((CORPUS_PROMPTS * 1000) / ms), is_ripgrep: rg ? 1 : 0 };
    },
  },
  {
    // `geolab audit` over 882 prompts through the binary, a new process per sample: start-up,
    // reading, geography loaded on demand, the audit and the JSON report.
    name: 'audit.882',
    unit: 'audits',
    async run() {
      const bin = join(PACKAGE_ROOT, 'bin', 'geolab.js');
      if (!existsSync(join(PACKAGE_ROOT, 'dist', 'cli', 'main.js'))) throw new Error('audit.882 needs `npm run build` first');
      const corpus = await writeCorpus(882);
      try {
        return endToEnd(bin, corpus);
      } finally {
        rmSync(corpus.dir, { recursive: true, force: true });
      }
    },
  },
];

/** `geolab audit` on the corpus as a user runs it: a new process each time, start-up included. */
function endToEnd(bin: string, corpus: Corpus) {
  const times: number[] = [];
  for (let s = 0; s < 3; s++) {
    const start = process.hrtime.bigint();
    try {
      execFileSync(process.execPath, [bin, 'audit', '--prompts', corpus.prompts, '--tasks', corpus.tasks, '--json'], {
        stdio: 'ignore',
        env: { ...process.env, GEOLAB_HOME: join(corpus.dir, 'home') },
      });
    } catch (err) {
      // Exit 1 is the gate finding something; anything else is a broken run.
      if ((err as { status?: number }).status !== 1) throw err;
    }
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  const ms = median(times);
  return { median_ms: round(ms), per_s: round(1000 / ms), prompts_per_s: Math.round((882 * 1000) / ms), corpus_mib: round(statSync(corpus.prompts).size / 2 ** 20, 1) };
}
