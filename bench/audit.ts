/**
 * The leak audit's figures (docs/budgets.md, docs/audit.md "Acceptance corpus and speed"), on prompts
 * shaped like real runs: the acceptance corpus's generator (test/audit/acceptance/corpus.ts) writes
 * geolab's tool-calling episodes, the public harness's JSON-action prompts with their transcript and
 * single-shot prompts, with planted leaks (so findings are built and timed) and clean look-alikes.
 *
 * - audit.882, the headline: `geolab audit` cold and end to end on 882 prompts (about 8 MB of JSONL,
 *   views inline as data URLs), a new process per sample as a user runs it; beside it, in the same
 *   run, a naive Python literal scan of the same file (bench/audit_literal.py: json.loads per line,
 *   identity keys and country names by substring), and the ratio of the two (budget: within 3x).
 * - audit.stream: one `geolab audit` process over 100,000 prompts read from a file (budget: >= 20,000
 *   prompts/s read and audited), with its peak memory beside the 882-prompt run's (the read streams).
 * - Both also print cpu_ms, the median user + system CPU time of the audit process: on a shared
 *   machine the wall time counts waits for a core, the CPU time hardly does.
 * - audit.prompts, a diagnostic only: the detector core's passes over the 882 prompts already in
 *   memory, warm, in a process of its own (audit-core-child.ts).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../src/paths.js';
import { buildAcceptanceCorpus, corpusFiles, LOOKALIKE_KINDS, PLANTED_KINDS } from '../test/audit/acceptance/corpus.js';
import { median, round, type Bench } from './harness.js';

/** Timed passes of audit.prompts (a pass is about 15-40 ms: the median of 9 steadies a noisy machine). */
const CORE_SAMPLES = 9;
const HEADLINE_PROMPTS = 882;
/** Leaky prompts per planted kind and clean prompts per look-alike: about 14% leaky, 20% look-alikes. */
const PER_KIND = 4;
const PER_LOOKALIKE = 18;
/** View edge in pixels that makes the 882 prompts weigh about 8 MB, as real runs with inline views do. */
const HEADLINE_VIEW_PX = 256;
/** New processes per figure: cold runs of the audit and of the Python scan. */
const COLD_SAMPLES = 5;
const STREAM_PROMPTS = 100_000;
/** The stream's views are tiny so that 100,000 prompts stay a few hundred MB of text. */
const STREAM_VIEW_PX = 24;
/** A stream run is several seconds at the budget's rate: two runs keep the figure near 10-15 s. */
const STREAM_SAMPLES = 2;

interface CorpusFile {
  dir: string;
  prompts: string;
  tasks: string;
  lines: string[];
}

async function writeCorpus(viewPx: number): Promise<CorpusFile> {
  const corpus = await buildAcceptanceCorpus({
    perKind: PER_KIND,
    perLookalike: PER_LOOKALIKE,
    plain: HEADLINE_PROMPTS - PER_KIND * PLANTED_KINDS.length - PER_LOOKALIKE * LOOKALIKE_KINDS.length,
    viewPx,
  });
  const files = corpusFiles(corpus);
  const dir = mkdtempSync(join(tmpdir(), 'geolab-bench-audit-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  const prompts = join(dir, 'prompts.jsonl');
  const tasks = join(dir, 'tasks.jsonl');
  writeFileSync(prompts, files.prompts);
  writeFileSync(tasks, files.tasks);
  return { dir, prompts, tasks, lines: files.prompts.trimEnd().split('\n') };
}

/** The 882-prompt corpus audit.882 and audit.prompts share, written once per bench run. */
let headline: Promise<CorpusFile> | undefined;

function headlineCorpus(): Promise<CorpusFile> {
  headline ??= writeCorpus(HEADLINE_VIEW_PX);
  return headline;
}

/** `count` prompts: the corpus's lines over and over, each copy's id made its own (`<id>~<copy>`). */
function writeStream(corpus: CorpusFile, count: number): string {
  const file = join(corpus.dir, 'stream.jsonl');
  const out = openSync(file, 'w');
  const head = '{"id":"';
  let chunk = '';
  for (let i = 0; i < count; i++) {
    const line = corpus.lines[i % corpus.lines.length] as string;
    const idEnd = line.indexOf('"', head.length);
    chunk += `${line.slice(0, idEnd)}~${Math.floor(i / corpus.lines.length)}${line.slice(idEnd)}\n`;
    if (chunk.length > 4 << 20) {
      writeSync(out, chunk);
      chunk = '';
    }
  }
  writeSync(out, chunk);
  closeSync(out);
  return file;
}

/**
 * Printed by the audited process as it exits: its peak resident memory and the CPU time it used
 * (user + system, all its threads), read back by `auditRun`. CPU time is the steadier figure on a
 * shared machine: it does not count the time the process waited for a core. The peak is the
 * process's own (VmHWM in /proc/self/status): getrusage's maxRSS keeps the high-water mark of the
 * memory the child was forked with, so after the bench itself had grown (the sweeps before) it
 * gave the bench's size, 318 MiB for an audit that peaks at 96.
 */
const RSS_PROBE = `data:text/javascript,${encodeURIComponent(
  "import { readFileSync } from 'node:fs'; process.on('exit', () => { const u = process.resourceUsage(); let kib = u.maxRSS; try { kib = Number(/VmHWM:\\s*(\\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))[1]); } catch {} process.stderr.write('\\ngeolab-bench-maxrss-kib ' + kib + ' cpu-us ' + (u.userCPUTime + u.systemCPUTime) + '\\n'); })",
)}`;

interface AuditRun {
  ms: number;
  /** User + system CPU time of the audit process. */
  cpuMs: number;
  maxRssMib: number;
  findings: number;
}

/** One `geolab audit --json` as a user runs it: a new process, start-up included. */
function auditRun(prompts: string, tasks: string, home: string, clean = false): AuditRun {
  const bin = join(PACKAGE_ROOT, 'bin', 'geolab.js');
  if (!existsSync(join(PACKAGE_ROOT, 'dist', 'bundle', 'main.js'))) throw new Error('the audit benches need `npm run build` first');
  const start = process.hrtime.bigint();
  const r = spawnSync(process.execPath, ['--import', RSS_PROBE, bin, 'audit', '--prompts', prompts, '--tasks', tasks, '--json'], {
    encoding: 'utf8',
    env: { ...process.env, GEOLAB_HOME: home },
    maxBuffer: 1 << 30,
  });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  // Exit 1 is the gate finding something (the corpus plants leaks); anything else is a broken run.
  if (r.status !== 1 && !(clean && r.status === 0)) throw new Error(`geolab audit exited ${r.status}: ${r.stderr.slice(0, 500)}`);
  const probe = /geolab-bench-maxrss-kib (\d+) cpu-us (\d+)/.exec(r.stderr);
  const { summary } = JSON.parse(r.stdout) as { summary: { findings: number } };
  return { ms, cpuMs: Number(probe?.[2] ?? 0) / 1000, maxRssMib: Number(probe?.[1] ?? 0) / 1024, findings: summary.findings };
}

function auditRuns(prompts: string, tasks: string, home: string, samples: number, clean = false): AuditRun {
  const runs = Array.from({ length: samples }, () => auditRun(prompts, tasks, home, clean));
  return { ms: median(runs.map((r) => r.ms)), cpuMs: median(runs.map((r) => r.cpuMs)), maxRssMib: Math.max(...runs.map((r) => r.maxRssMib)), findings: runs[0]?.findings ?? 0 };
}

/**
 * The anchor: bench/audit_literal.py on the same files, a new Python process per sample (ms, median).
 * `python3` on PATH may be a version manager's shim (pyenv's is a shell script that works out the
 * version before it starts Python: 60-90 ms here), which is not the scan's time: the anchor runs the
 * interpreter the shim resolves to (`viaPath` is the same scan started through PATH, as before).
 */
function pythonScanMs(corpus: CorpusFile): { direct: number; viaPath: number } | undefined {
  const script = join(import.meta.dirname, 'audit_literal.py');
  const which = spawnSync('python3', ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8' });
  const interpreter = which.status === 0 ? which.stdout.trim() : '';
  if (!interpreter) {
    process.stderr.write(`audit.882: no Python anchor (${which.error?.message ?? which.stderr.split('\n')[0]})\n`);
    return undefined;
  }
  const time = (python: string): number => {
    const start = process.hrtime.bigint();
    const r = spawnSync(python, [script, corpus.prompts, corpus.tasks], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`the Python anchor failed: ${r.error?.message ?? r.stderr.slice(0, 500)}`);
    return Number(process.hrtime.bigint() - start) / 1e6;
  };
  const direct: number[] = [];
  const viaPath: number[] = [];
  for (let s = 0; s < COLD_SAMPLES; s++) {
    direct.push(time(interpreter));
    viaPath.push(time('python3'));
  }
  return { direct: median(direct), viaPath: median(viaPath) };
}

/**
 * The floor under the headline, for reading its ratio: Node starting and running nothing, and
 * `geolab audit` on the corpus's first prompt alone (start-up, the modules, the tables, one task).
 */
function floorMs(corpus: CorpusFile, home: string): { node: number; onePrompt: number } {
  const one = join(corpus.dir, 'one.jsonl');
  writeFileSync(one, `${corpus.lines[0]}\n`);
  const node: number[] = [];
  for (let s = 0; s < COLD_SAMPLES; s++) {
    const start = process.hrtime.bigint();
    spawnSync(process.execPath, ['-e', '0']);
    node.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  return { node: median(node), onePrompt: auditRuns(one, corpus.tasks, home, COLD_SAMPLES, true).ms };
}

export const auditBenches: Bench[] = [
  {
    // The headline (docs/budgets.md): cold, end to end, beside the naive Python scan of the same file.
    name: 'audit.882',
    unit: 'audits',
    async run() {
      const corpus = await headlineCorpus();
      const audit = auditRuns(corpus.prompts, corpus.tasks, join(corpus.dir, 'home'), COLD_SAMPLES);
      const python = pythonScanMs(corpus);
      const floor = floorMs(corpus, join(corpus.dir, 'home'));
      return {
        median_ms: round(audit.ms),
        per_s: round(1000 / audit.ms),
        prompts_per_s: Math.round((HEADLINE_PROMPTS * 1000) / audit.ms),
        cpu_ms: round(audit.cpuMs),
        corpus_mib: round(statSync(corpus.prompts).size / 2 ** 20, 1),
        findings: audit.findings,
        max_rss_mib: round(audit.maxRssMib, 1),
        node_start_ms: round(floor.node),
        one_prompt_ms: round(floor.onePrompt),
        ...(python !== undefined
          ? {
              python_ms: round(python.direct),
              ratio_vs_python: round(audit.ms / python.direct, 2),
              python_path_ms: round(python.viaPath),
              ratio_vs_python_path: round(audit.ms / python.viaPath, 2),
            }
          : {}),
      };
    },
  },
  {
    // 100,000 prompts through one process: reading (JSON, inline views) and auditing, streamed.
    name: 'audit.stream',
    unit: 'streams',
    async run() {
      const corpus = await writeCorpus(STREAM_VIEW_PX);
      const file = writeStream(corpus, STREAM_PROMPTS);
      try {
        const audit = auditRuns(file, corpus.tasks, join(corpus.dir, 'home'), STREAM_SAMPLES);
        return {
          median_ms: round(audit.ms),
          per_s: round(1000 / audit.ms),
          prompts_per_s: Math.round((STREAM_PROMPTS * 1000) / audit.ms),
          cpu_ms: round(audit.cpuMs),
          corpus_mib: round(statSync(file).size / 2 ** 20, 1),
          findings: audit.findings,
          max_rss_mib: round(audit.maxRssMib, 1),
        };
      } finally {
        rmSync(corpus.dir, { recursive: true, force: true });
      }
    },
  },
  {
    // A diagnostic, never the budget: the detector core's warm passes over the 882 prompts, in a
    // process of its own (audit-core-child.ts says what a pass is). read_and_audit_per_s adds reading
    // the file (JSON, data URLs) to a pass.
    name: 'audit.prompts',
    unit: 'prompts',
    async run() {
      const corpus = await headlineCorpus();
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
        findings,
        warm_up_passes,
      };
    },
  },
];
