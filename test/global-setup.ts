/** The CLI tests run the real binary, which runs the bundle in dist/: build it once from the current sources. */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export default function setup(): void {
  const root = fileURLToPath(new URL('..', import.meta.url));
  execFileSync(process.execPath, [`${root}/scripts/build.mjs`], { cwd: root, stdio: 'inherit' });
}
