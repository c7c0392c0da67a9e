/**
 * One of several processes saving episodes into one workspace at once (concurrent-saves.test.ts):
 * prints `saved N`, or `failed N CODE` at the first save SQLite refused.
 */
import { saveEpisode } from '../../src/store/episodes.js';
import { openWorkspace } from '../../src/store/index.js';
import { completedRecord } from '../helpers/episodes.js';

const [dir, writer, count] = process.argv.slice(2);
const ws = await openWorkspace(dir, { seedDemo: false });
let saved = 0;
try {
  for (let i = 0; i < Number(count); i++) {
    saveEpisode(ws.db, completedRecord({ id: `w${writer}-${i}`, split: `w${writer}`, index: i }));
    saved++;
  }
  console.log(`saved ${saved}`);
} catch (err) {
  console.log(`failed ${saved} ${(err as { code?: string }).code ?? String(err)}`);
} finally {
  ws.close();
}
