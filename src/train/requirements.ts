/**
 * The trainer's requirements file (src/train/python/requirements.txt) read as pins, so pre-flight checks
 * the installed packages against the same list pip installs from (docs/training.md, "Install").
 * Only the two forms the file uses are understood: `name==version` (exact) and `name>=version` (floor).
 */
import { readFileSync } from 'node:fs';
import { TRAINER_REQUIREMENTS } from './python-path.js';

export interface Pin {
  /** The distribution's name, extras dropped (`trl[vllm]` is `trl`). */
  name: string;
  op: '==' | '>=';
  version: string;
}

export function parseRequirements(text: string): Pin[] {
  const pins: Pin[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.replace(/#.*/, '').trim();
    if (!line) continue;
    const m = /^([A-Za-z0-9][A-Za-z0-9._-]*)(?:\[[^\]]*\])?\s*(==|>=)\s*([0-9][A-Za-z0-9.+!-]*)$/.exec(line);
    if (!m) throw new Error(`requirements: cannot read "${line}" (expected NAME==VERSION or NAME>=VERSION)`);
    pins.push({ name: m[1]!.toLowerCase(), op: m[2] as Pin['op'], version: m[3]! });
  }
  return pins;
}

let cached: Pin[] | undefined;
/** The shipped file's pins. */
export function trainerPins(): Pin[] {
  cached ??= parseRequirements(readFileSync(TRAINER_REQUIREMENTS, 'utf8'));
  return cached;
}

/** Whether an installed version meets a pin. A local tag (`2.13.0+cu128`) still meets `==2.13.0`. */
export function meetsPin(installed: string, pin: Pin): boolean {
  const public_ = installed.split('+')[0]!;
  if (pin.op === '==') return public_ === pin.version;
  return compareVersions(public_, pin.version) >= 0;
}

/** Numeric comparison of dotted release numbers; a pre-release suffix ("5.2.0.dev0", "1.0rc1") counts below the release. */
export function compareVersions(a: string, b: string): number {
  const parse = (v: string) => {
    const release = /^[0-9]+(?:\.[0-9]+)*/.exec(v)?.[0] ?? '0';
    return { nums: release.split('.').map(Number), pre: release.length < v.length && !/^\.post/.test(v.slice(release.length)) };
  };
  const x = parse(a);
  const y = parse(b);
  for (let i = 0; i < Math.max(x.nums.length, y.nums.length); i++) {
    const d = (x.nums[i] ?? 0) - (y.nums[i] ?? 0);
    if (d !== 0) return Math.sign(d);
  }
  return Number(y.pre) - Number(x.pre);
}
