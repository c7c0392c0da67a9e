/** Files shipped with the package, found the same way from src/ (tsx, vitest) and dist/ (built). */
import { fileURLToPath } from 'node:url';

export const PACKAGE_ROOT = fileURLToPath(new URL('../', import.meta.url));
export const DEMO_TASKS_FILE = fileURLToPath(new URL('../datasets/demo/tasks.jsonl', import.meta.url));
export const DEMO_EPISODES_FILE = fileURLToPath(new URL('../datasets/demo/episodes/episodes.jsonl', import.meta.url));
