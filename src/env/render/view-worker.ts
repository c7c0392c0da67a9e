/**
 * Worker-thread side of ViewPool: draws a band of rows of a view of a panorama that lives in shared
 * memory, into an output that is shared too, so nothing is copied either way.
 */
import { parentPort } from 'node:worker_threads';
import { reprojectRows } from './reproject.js';
import type { BandJob, BandReply } from './view-pool.js';

const port = parentPort;
if (!port) throw new Error('view-worker.js runs only as a worker thread (see ViewPool)');

port.on('message', ({ pano, yawDeg, pitchDeg, fovDeg, sizePx, out, rowStart, rowEnd }: BandJob) => {
  try {
    reprojectRows(pano, yawDeg, pitchDeg, fovDeg, sizePx, out, rowStart, rowEnd);
  } catch (error) {
    port.postMessage({ error: (error as Error).message } satisfies BandReply);
    return;
  }
  port.postMessage({ ok: true } satisfies BandReply);
});
