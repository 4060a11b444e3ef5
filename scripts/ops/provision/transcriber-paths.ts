// Where the local transcription service lives: its source, its venv and model cache, its logs.
import fs from 'node:fs';
import path from 'node:path';
import { CACHE_DIR, PROJECT_ROOT, RUN_DIR } from './paths.js';

export const SERVICE_DIR = path.join(PROJECT_ROOT, 'services', 'transcriber');
export const SERVER = path.join(SERVICE_DIR, 'server.py');
export const REQUIREMENTS = path.join(SERVICE_DIR, 'requirements.txt');
export const TRANSCRIBER_DIR = path.join(CACHE_DIR, 'transcriber');
export const VENV_DIR = path.join(TRANSCRIBER_DIR, 'venv');
export const VENV_STAMP = path.join(VENV_DIR, '.requirements.sha256');
export const LOG_DIR = path.join(RUN_DIR, 'transcriber');
export const LOG_FILE = path.join(LOG_DIR, 'transcriber.log');

/** A stamp file's text, '' when it is missing. */
export function readStamp(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8').trim();
  } catch {
    return '';
  }
}

/** The transcription service venv's python (it may not exist yet: `ensureVenv` makes it). */
export function venvPython(): string {
  return path.join(VENV_DIR, 'bin', 'python');
}
