/**
 * Panoramas fetched from Mapillary on a cache miss, as the public environment does: the Graph API
 * gives an image's signed, expiring CDN URL (`thumb_2048_url`, or `thumb_original_url` for narrow
 * views), which is downloaded into the cache. The token goes in the Authorization header (Mapillary
 * accepts `OAuth <token>` there as well as an `access_token` query), so it never appears in a URL
 * or a message.
 */
import { UsageError } from '../core/errors.js';
import { registerSecret } from '../core/secrets.js';
import { formatBytes, writeFileAtomic } from '../files.js';
import { HttpError, httpRequest } from '../http.js';
import { panoramaFile, sha256Hex } from './panoramas.js';

export const MAPILLARY_GRAPH_API = 'https://graph.mapillary.com';
/** The public environment's limit for each of the two requests. */
export const FETCH_TIMEOUT_MS = 60_000;
const TOKEN_VARIABLES = ['MAPILLARY_ACCESS_TOKEN', 'MAPILLARY_API_KEY'] as const;
/**
 * The largest panorama downloaded (docs/reliability.md, "Size caps"): a 2048 px JPEG is a few MB
 * and an original some tens; more is cut off while streaming, and nothing reaches the cache.
 */
export const MAX_IMAGE_BYTES = 64 * 1024 * 1024;
/** The Graph API's answer is a line of JSON. */
const MAX_META_BYTES = 1024 * 1024;

/** The Mapillary token from the environment (read where it is used; never stored or printed). */
export function mapillaryToken(env: NodeJS.ProcessEnv = process.env): string | undefined {
  // Registered as a secret, so no piece of it reaches a record, a log line or an error message.
  for (const name of TOKEN_VARIABLES) if (env[name]) return registerSecret(env[name], `$${name}`);
  return undefined;
}

/** Mapillary with the environment's token, which `what` (a flag or command) needs. */
export function mapillaryFromEnv(what = '--fetch', env: NodeJS.ProcessEnv = process.env): PanoramaFetcher {
  const token = mapillaryToken(env);
  if (!token) throw new UsageError(`${what} needs a Mapillary token in ${TOKEN_VARIABLES.join(' (or ')})`);
  return mapillaryFetcher({ token, baseUrl: env.GEOLAB_MAPILLARY_API || undefined });
}

/** A panorama could not be fetched; the message names the image and why, never the token. */
export class PanoramaFetchError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PanoramaFetchError';
  }
}

export interface FetchRequest {
  imageId: string;
  cacheDir: string;
  /** The full-resolution original (`<image_id>.orig.jpg`) instead of the 2048 px JPEG. */
  orig: boolean;
  /** Expected SHA-256 (hex) of the 2048 px JPEG (the task's `meta.sha256`); not checked for originals. */
  sha256?: string;
}

export interface PanoramaFetcher {
  /** Downloads the panorama into the cache (temp file, then rename) and returns its path. */
  fetch(request: FetchRequest): Promise<string>;
}

export interface MapillaryOptions {
  token: string;
  /** Graph API base URL; default Mapillary's ($GEOLAB_MAPILLARY_API points `--fetch` at a test server). */
  baseUrl?: string;
  timeoutMs?: number;
  /** The largest image downloaded (default MAX_IMAGE_BYTES). */
  maxImageBytes?: number;
}

export function mapillaryFetcher(options: MapillaryOptions): PanoramaFetcher {
  const base = (options.baseUrl ?? MAPILLARY_GRAPH_API).replace(/\/+$/, '');
  const timeoutMs = options.timeoutMs ?? FETCH_TIMEOUT_MS;
  const maxImageBytes = options.maxImageBytes ?? MAX_IMAGE_BYTES;
  return {
    async fetch({ imageId, cacheDir, orig, sha256 }) {
      const field = orig ? 'thumb_original_url' : 'thumb_2048_url';
      const meta = await request(`${base}/${encodeURIComponent(imageId)}?fields=${field}`, imageId, 'the Graph API', timeoutMs, MAX_META_BYTES, {
        Authorization: `OAuth ${options.token}`,
      });
      let signedUrl: unknown;
      try {
        signedUrl = (JSON.parse(meta.toString('utf8')) as Record<string, unknown>)[field];
      } catch {
        throw new PanoramaFetchError(`image ${imageId}: the Graph API did not answer JSON`);
      }
      if (typeof signedUrl !== 'string' || !/^https?:\/\//.test(signedUrl)) {
        throw new PanoramaFetchError(`image ${imageId}: the Graph API gave no ${field} (its derivatives may have been removed)`);
      }
      // The CDN URL is signed: the token is not sent there.
      const bytes = await request(signedUrl, imageId, 'the image CDN', timeoutMs, maxImageBytes, {});
      if (sha256 && !orig) {
        const actual = sha256Hex(bytes);
        if (actual !== sha256) throw new PanoramaFetchError(`image ${imageId}: downloaded bytes have sha256 ${actual}, meta.sha256 expects ${sha256}`);
      }
      const path = panoramaFile(cacheDir, imageId, orig);
      try {
        writeFileAtomic(path, bytes);
      } catch (err) {
        throw new PanoramaFetchError(`image ${imageId}: cannot write ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
      }
      return path;
    },
  };
}

async function request(url: string, imageId: string, what: string, timeoutMs: number, maxBytes: number, headers: Record<string, string>): Promise<Buffer> {
  try {
    // Streamed and counted (src/http.ts), so a body larger than the cap costs at most the cap in memory.
    return (await httpRequest({ url, headers, timeoutMs, maxBytes })).body;
  } catch (err) {
    if (!(err instanceof HttpError)) throw err;
    const failure = err.failure;
    switch (failure.kind) {
      case 'no-answer': {
        const why = failure.cause === 'timeout' ? `no answer within ${timeoutMs / 1000} s` : (failure.code ?? failure.message);
        throw new PanoramaFetchError(`image ${imageId}: ${what} unreachable (${why})`);
      }
      case 'status': {
        const auth = failure.status === 401 || failure.status === 403 ? `: check ${TOKEN_VARIABLES.join(' or ')}` : '';
        throw new PanoramaFetchError(`image ${imageId}: ${what} answered HTTP ${failure.status}${auth}`);
      }
      case 'too-large':
        throw new PanoramaFetchError(`image ${imageId}: ${what} sent more than ${formatBytes(maxBytes)} (the most downloaded): refused, nothing cached`);
    }
  }
}
