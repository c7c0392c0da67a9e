/**
 * The renderer's part of a sweep, in its own process so that its RSS is the renderer's alone
 * (test/env/render-memory.test.ts; the env.sweep_rss bench measures a whole `geolab eval run`):
 * `tsx bench/env-sweep-rss-child.ts <panoDir> <panoramas> <episodes> <viewsPerEpisode> <cacheMiB>
 * <workers> [viewPx=640] [checkpoint=episodes] [concurrency=4]`, panoramas from make-noise-panoramas.ts.
 * Renders `episodes` episodes' worth of views, episode e on panorama e mod `panoramas`,
 * `concurrency` episodes at a time (as a sweep does), with a PanoramaRenderer (`workers` threads).
 * Prints a JSON line per sample ({views, rss, external, arrayBuffers, heap} in MiB) to stderr when
 * GEOLAB_SWEEP_TRACE is set, and a final JSON line to stdout: {peak_rss, peak_rss_checkpoint,
 * peak_external, views, seconds}, peak_rss_checkpoint being the peak until `checkpoint` episodes
 * had finished.
 */
import { PanoramaRenderer } from '../src/env/render/panorama.js';
import { PanoramaSource } from '../src/env/render/panorama-source.js';
import { noisePanoramaId } from './make-noise-panoramas.js';

const [dir, panoramas, episodes, viewsPerEpisode, cacheMiB, workers, viewPx = '640', checkpoint = episodes, concurrency = '4'] =
  process.argv.slice(2);
const nPanos = Number(panoramas);
const nEpisodes = Number(episodes);
const nViews = Number(viewsPerEpisode);
const renderer = new PanoramaRenderer(new PanoramaSource(dir!), { cacheBytes: Number(cacheMiB) * 2 ** 20, workers: Number(workers) });

let peak = 0;
let peakExternal = 0;
let peakCheckpoint: number | undefined;
let finished = 0;
let views = 0;
const trace = process.env.GEOLAB_SWEEP_TRACE !== undefined;
const sample = (): void => {
  const m = process.memoryUsage();
  peak = Math.max(peak, m.rss);
  peakExternal = Math.max(peakExternal, m.external);
  if (trace) {
    const mb = (b: number) => Math.round(b / 2 ** 20);
    process.stderr.write(JSON.stringify({ views, rss: mb(m.rss), external: mb(m.external), arrayBuffers: mb(m.arrayBuffers), heap: mb(m.heapUsed) }) + '\n');
  }
};
const timer = setInterval(sample, 100);
const start = performance.now();
let next = 0;
await Promise.all(
  Array.from({ length: Number(concurrency) }, async () => {
    for (let e = next++; e < nEpisodes; e = next++) {
      const ref = { imageId: noisePanoramaId(e % nPanos), compassAngle: 0 };
      for (let v = 0; v < nViews; v++) {
        await renderer.renderView(ref, { headingDeg: (e * 53 + v * 90) % 360, pitchDeg: 0, fovDeg: 90 }, Number(viewPx));
        if (++views % 50 === 0) sample();
      }
      if (++finished === Number(checkpoint)) {
        sample();
        peakCheckpoint = peak;
      }
    }
  }),
);
sample();
clearInterval(timer);
const seconds = (performance.now() - start) / 1000;
await renderer.close();
process.stdout.write(JSON.stringify({ peak_rss: peak, peak_rss_checkpoint: peakCheckpoint ?? peak, peak_external: peakExternal, views, seconds }) + '\n');
