/**
 * The server of the env.unread_flood bench, in its own process so that its RSS is the server's
 * alone. Over IPC: sends {port} once listening, answers 'rss' with {rss, sessions}.
 */
import { createEnvironment } from '../src/env/environment.js';
import { startServer } from '../src/env/server.js';
import { demoSplits } from '../src/env/task-splits.js';

const panoramasDir = process.argv[2] as string;
const env = createEnvironment({ splits: await demoSplits(), panoramasDir, demo: true, workers: 0 });
const server = await startServer(env, { port: 0 });
process.on('message', (message) => {
  if (message === 'rss') process.send?.({ rss: process.memoryUsage().rss, sessions: server.sessions() });
  if (message === 'exit') void server.close().then(() => env.close()).then(() => process.exit(0));
});
process.send?.({ port: server.port });
