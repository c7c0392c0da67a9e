/**
 * HTTP requests of one connection, admitted a few at a time (docs/reliability.md, "One connection
 * cannot take the server down"). HTTP/1.1 lets a client pipeline: send request after request
 * without reading a reply. Node parses every request a chunk of bytes holds and would start all
 * their handlers at once, each drawing a view and queueing its reply; a client that never reads
 * grew the server by gigabytes in seconds. Here:
 * - at most MAX_RUNNING handlers of a connection run at once; the others wait in order;
 * - no handler starts while the connection's unsent replies are past a high-water mark; it starts
 *   once they drain;
 * - a connection with more than MAX_WAITING requests waiting, or with replies unsent and not a byte
 *   of them taken by the client for STALL_MS, is closed: nobody pipelines that deep or stops
 *   reading that long in good faith (a slow reader still takes bytes; a long handler has none
 *   unsent).
 * Replies still go out in request order (Node keeps that order whatever order handlers end in).
 */
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';

export const MAX_RUNNING = 4;
export const MAX_WAITING = 32;
export const STALL_MS = 10_000;
const WATCH_MS = 1_000;

interface Connection {
  running: number;
  waiting: (() => Promise<void>)[];
  /** Waiting for the unsent replies to drain (a 'drain' listener is set). */
  draining: boolean;
  /** The socket's bytesWritten at the last look, and for how long it has not moved with bytes unsent. */
  written: number;
  stalledMs: number;
}

export class ConnectionGate {
  private readonly connections = new WeakMap<Socket, Connection>();

  /** @param highWaterBytes unsent reply bytes past which no further handler of the connection starts */
  constructor(private readonly highWaterBytes: number) {}

  /** Runs `handle` for this request when its connection has room; closes an abusive connection instead. */
  admit(req: IncomingMessage, handle: () => Promise<void>): void {
    const socket = req.socket;
    let connection = this.connections.get(socket);
    if (!connection) {
      connection = { running: 0, waiting: [], draining: false, written: 0, stalledMs: 0 };
      this.connections.set(socket, connection);
      this.watch(socket, connection);
    }
    if (connection.waiting.length >= MAX_WAITING) {
      connection.waiting.length = 0;
      socket.destroy();
      return;
    }
    connection.waiting.push(handle);
    this.pump(socket, connection);
  }

  private pump(socket: Socket, c: Connection): void {
    while (c.running < MAX_RUNNING && c.waiting.length > 0 && !socket.destroyed) {
      if (socket.writableLength >= this.highWaterBytes) {
        this.awaitDrain(socket, c);
        return;
      }
      const handle = c.waiting.shift()!;
      c.running++;
      void handle().finally(() => {
        c.running--;
        this.pump(socket, c);
      });
    }
    if (socket.destroyed) c.waiting.length = 0;
  }

  private awaitDrain(socket: Socket, c: Connection): void {
    if (c.draining) return;
    c.draining = true;
    const done = () => {
      socket.off('drain', done);
      socket.off('close', done);
      c.draining = false;
      this.pump(socket, c);
    };
    socket.on('drain', done);
    socket.on('close', done);
  }

  /** Closes the connection once it has had replies unsent and none of their bytes taken for STALL_MS. */
  private watch(socket: Socket, c: Connection): void {
    const timer = setInterval(() => {
      const moved = socket.bytesWritten !== c.written;
      c.written = socket.bytesWritten;
      c.stalledMs = socket.writableLength > 0 && !moved ? c.stalledMs + WATCH_MS : 0;
      if (c.stalledMs >= STALL_MS) socket.destroy();
    }, WATCH_MS);
    timer.unref();
    socket.once('close', () => clearInterval(timer));
  }
}
