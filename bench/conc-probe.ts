import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startScriptedOpenAI, toolCall, toolSteps } from '../test/helpers/scripted-openai.js';

const latency = Number(process.argv[2] ?? 0);
const steps = toolSteps(toolCall('look', { heading_deg: 90 }), toolCall('pin', { lat: 44, lon: 12 }), toolCall('guess', { lat: 45.5, lon: 9.2 }));
const servers = await Promise.all([0, 1, 2].map(() => startScriptedOpenAI({ script: (b) => steps(b), models: [{ id: 'qwen-vl' }], latencyMs: latency })));
const home = process.env.PROBE_HOME ?? mkdtempSync(join(tmpdir(), 'probe-'));
const dir = mkdtempSync(join(tmpdir(), 'probe-out-'));
const models = join(dir, 'm.json');
writeFileSync(models, JSON.stringify([{ name: 'qwen', model: 'qwen-vl', base_url: servers.map((s) => s.baseUrl).join(',') }]));
for (const conc of (process.argv[3] ?? 'auto').split(',')) {
  const out = join(dir, `o-${conc}`);
  const t = performance.now();
  const { stdout: res } = await promisify(execFile)('python3', ['-c', 'import resource,subprocess,sys; p=subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE); r=resource.getrusage(resource.RUSAGE_CHILDREN); print(r.ru_utime+r.ru_stime); print(p.stderr.decode()[-300:])', './bin/geolab.js', 'eval', 'run', '--models', models, '--limit', '16', '--passes', '4', '--out', out, ...(conc === 'auto' ? [] : ['--concurrency', conc])], { env: { ...process.env, HOME: home }, encoding: 'utf8' });
  const s = (performance.now() - t) / 1000;
  console.log(conc, 'wall', s.toFixed(1), 'ep/s', (64 / s).toFixed(2), 'cpu', res.split('\n')[0], res.split('\n').slice(-3).join(' | '));
}
await Promise.all(servers.map((s) => s.close()));
