/**
 * Worker-thread side of ViewPool: draws a band of rows of a view of a panorama that lives in shared
 * memory, into an output that is shared too, so nothing is copied either way.
 */
import { parentPort } from 'node:worker_threads';
import { collectGarbage } from './collect.js';
import { reprojectRows } from './reproject.js';
import type { BandJob, BandReply, CollectMessage } from './view-pool.js';

const port = parentPort;
if (!port) throw new Error('view-worker.js runs only as a worker thread (see ViewPool)');

port.on('message', (message: BandJob | CollectMessage) => {
  if ('collect' in message) {
    collectGarbage(); // frees the panoramas this worker was sent and the cache has since dropped
    return;
  }
  const { pano, yawDeg, pitchDeg, fovDeg, sizePx, out, rowStart, rowEnd } = message;
  try {
    reprojectRows(pano, yawDeg, pitchDeg, fovDeg, sizePx, out, rowStart, rowEnd);
  } catch (error) {
    port.postMessage({ error: (error as Error).message } satisfies BandReply);
    return;
  }
  port.postMessage({ ok: true } satisfies BandReply);
});
