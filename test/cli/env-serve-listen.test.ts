/** `geolab env serve` where it cannot listen: one line, exit 3, no stack trace, and no hang. */
import { createServer, type Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { geolab } from '../helpers/cli.js';
import { tempDir } from '../helpers/fixtures.js';

const servers: Server[] = [];
afterEach(() => servers.splice(0).forEach((s) => s.close()));

function occupiedPort(): Promise<number> {
  const server = createServer();
  servers.push(server);
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port)));
}

/** A run that hangs is killed and fails its exit code check instead of stalling the suite. */
const serve = (args: string[]) => geolab(['env', 'serve', ...args], { home: tempDir(), timeoutMs: 20_000 });

describe('geolab env serve that cannot listen', () => {
  it('a port in use', async () => {
    const port = await occupiedPort();
    const r = serve(['--port', String(port)]);
    expect(r.code).toBe(3);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`geolab: cannot listen on 127.0.0.1:${port}: the port is in use; pick another with --port (0 picks a free one)\n`);
  });

  it.each(['256.1.1.1', 'no-such-host.invalid'])('a host that is neither an IP address nor a name that resolves: %s', (host) => {
    const r = serve(['--host', host, '--port', '0']);
    expect(r.code).toBe(3);
    expect(r.stderr).toBe(
      `geolab: cannot listen on ${host}:0: --host ${host} is not an IP address or a name that resolves; try --host 127.0.0.1\n`,
    );
  });

  it('an address that is not this machine\'s', () => {
    // TEST-NET-1 (RFC 5737): documentation only, never assigned to an interface.
    const r = serve(['--host', '192.0.2.1', '--port', '0']);
    expect(r.code).toBe(3);
    expect(r.stderr).toBe('geolab: cannot listen on 192.0.2.1:0: 192.0.2.1 is not an address of this machine; try --host 127.0.0.1\n');
  });
});
