/**
 * The zero-latency model endpoint of eval.cpu_per_episode (bench/eval-cpu.ts): the tests' scripted
 * OpenAI-compatible server, in a process of its own so that its CPU counts against neither geolab
 * nor the baseline client (docs/budgets.md). Every episode plays look, pin, guess with the trained
 * tools (docs/protocol.md). Prints its base URL (with /v1) as one line and serves until killed.
 * `scripted-endpoint-child.ts [latencyMs=0] [replicas=1]`: each reply waits latencyMs (a model
 * taking time to answer, for eval.concurrency); with several replicas it prints their URLs
 * comma-separated, as `--base-url` takes them.
 */
import { startScriptedOpenAI, toolCall, toolSteps } from '../test/helpers/scripted-openai.js';

const [latencyMs = '0', replicas = '1'] = process.argv.slice(2);
const script = toolSteps(toolCall('look', { heading_deg: 90, fov_deg: 60 }), toolCall('pin', { lat: 44, lon: 12 }), toolCall('guess', { lat: 45.5, lon: 9.2 }));
const servers = await Promise.all(Array.from({ length: Number(replicas) }, () => startScriptedOpenAI({ script, latencyMs: Number(latencyMs) })));
// The test helper keeps every request for its test to read; here that would only grow.
setInterval(() => servers.forEach((s) => s.requests.splice(0)), 1000).unref();
process.stdout.write(servers.map((s) => s.baseUrl).join(',') + '\n');
const stop = () => void Promise.all(servers.map((s) => s.close())).then(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
