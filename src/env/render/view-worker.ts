/**
 * Worker-thread side of ViewPool: reprojects views of panoramas that live in shared memory and
 * hands the pixels back without copying.
 */
import { parentPort } from 'node:worker_threads';
import { reproject } from './reproject.js';
import type { ViewJob, ViewReply } from './view-pool.js';

const port = parentPort;
if (!port) throw new Error('view-worker.js runs only as a worker thread (see ViewPool)');

port.on('message', ({ pano, yawDeg, pitchDeg, fovDeg, sizePx }: ViewJob) => {
  let rgb: Uint8Array<ArrayBuffer>;
  try {
    rgb = reproject(pano, yawDeg, pitchDeg, fovDeg, sizePx);
  } catch (error) {
    port.postMessage({ error: (error as Error).message } satisfies ViewReply);
    return;
  }
  port.postMessage({ rgb } satisfies ViewReply, [rgb.buffer]);
});
