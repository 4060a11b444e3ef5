// Files that ship beside the code (package.json, mappings/), found the same way from src/ under tsx and from dist/src/ once compiled.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let root: string | undefined;

/** The folder holding this package's package.json: the nearest one above this module. */
export function packageRoot(): string {
  if (root) return root;
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const up = dirname(dir);
    if (up === dir) throw new Error(`no package.json above ${fileURLToPath(import.meta.url)}`);
    dir = up;
  }
  root = dir;
  return dir;
}

/** A path inside the package, e.g. `packageFile('mappings')`. */
export function packageFile(...parts: string[]): string {
  return join(packageRoot(), ...parts);
}
