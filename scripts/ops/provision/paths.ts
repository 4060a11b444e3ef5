// Where the ops scripts keep downloads, installs and run state: everything under `<root>/.cache`.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The project root (the folder holding package.json), derived from this file's location. */
export const PROJECT_ROOT = path.resolve(fileURLToPath(new URL('../../..', import.meta.url)));

/** Git-ignored cache: downloads, unpacked installs, models. Safe to delete; it is rebuilt. */
export const CACHE_DIR = path.join(PROJECT_ROOT, '.cache');

/** State of the services `npm run services -- up` started: state files, pids, data and logs. */
export const RUN_DIR = path.join(CACHE_DIR, 'run');
