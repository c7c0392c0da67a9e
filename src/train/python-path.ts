/**
 * The Python trainer shipped with the package (src/train/python/, listed in package.json "files"),
 * found from the package root so the same paths hold from src/ (tsx, vitest) and dist/bundle/ (built).
 */
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../paths.js';

export const TRAINER_DIR = join(PACKAGE_ROOT, 'src', 'train', 'python');
/** `python geolab_trainer.py CONFIG [--dry-run] [--resume]`. */
export const TRAINER_SCRIPT = join(TRAINER_DIR, 'geolab_trainer.py');
/** The environment class TRL instantiates; standard library only. */
export const TRAINER_ENV_MODULE = join(TRAINER_DIR, 'geolab_env.py');
/** `pip install -r` this into the trainer's venv. */
export const TRAINER_REQUIREMENTS = join(TRAINER_DIR, 'requirements.txt');
