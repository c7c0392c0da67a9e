/**
 * axios's patch (patches/axios+1.21.1.patch, applied at install by patch-package): importing axios
 * and posting through its Node adapter must not load Node's undici, whose load (triggered by
 * reading the global FormData, Request or Response) cost every `geolab eval run` and `geolab agent`
 * 50-300 ms of CPU at start-up. FormData bodies are still told apart.
 */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

const script = `
import http from 'node:http';
const server = http.createServer((req, res) => {
  let body = '';
  req.on('data', (d) => (body += d));
  req.on('end', () => res.end(JSON.stringify({ echoed: JSON.parse(body) })));
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const { default: axios } = await import('axios');
const reply = await axios.post('http://127.0.0.1:' + server.address().port + '/v1', { n: 1 }, { timeout: 5000 });
const loaded = process.moduleLoadList.some((m) => m.includes('undici'));
server.close();
const utils = (await import(new URL('./lib/utils.js', import.meta.resolve('axios')).href)).default;
const form = new FormData();
form.append('k', 'v');
process.stdout.write(JSON.stringify({ reply: reply.data, undiciBeforeFormData: loaded, isFormData: utils.isFormData(form), plain: utils.isFormData({ append() {} }) }));
`;

describe("axios, as patched", () => {
  it('posts JSON without loading undici, and still recognises a FormData body', () => {
    const out = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', cwd: process.cwd() })) as Record<string, unknown>;
    expect(out).toEqual({ reply: { echoed: { n: 1 } }, undiciBeforeFormData: false, isFormData: true, plain: false });
  });
});
