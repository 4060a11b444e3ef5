import { readFileSync } from 'node:fs';
import { expect } from 'chai';

interface LockEntry {
  version?: string;
  optional?: boolean;
  os?: string[];
  cpu?: string[];
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}

const lock = JSON.parse(readFileSync(new URL('../../package-lock.json', import.meta.url), 'utf8')) as {
  lockfileVersion: number;
  packages: Record<string, LockEntry>;
};
const { packages } = lock;

/** The lock entry `name` resolves to from the package at `from`, as Node looks up node_modules folders. */
function resolveFrom(from: string, name: string): string | undefined {
  let base = from;
  for (;;) {
    const candidate = `${base ? `${base}/` : ''}node_modules/${name}`;
    if (candidate in packages) return candidate;
    if (!base) return undefined;
    const parent = base.lastIndexOf('/node_modules/');
    base = parent >= 0 ? base.slice(0, parent) : '';
  }
}

describe('package-lock.json', function () {
  it('records every dependency and every platform package of every entry, so that npm ci accepts it on any platform', function () {
    // npm ci refuses a lock that lacks an optional platform package ("Missing: … from lock file"),
    // even one for another platform: an `npm install` against a registry that lacks some of them
    // silently writes such a lock.
    expect(lock.lockfileVersion).to.equal(3);
    const missing: string[] = [];
    for (const [at, entry] of Object.entries(packages)) {
      for (const name of Object.keys({ ...entry.dependencies, ...entry.optionalDependencies })) {
        if (!resolveFrom(at, name)) missing.push(`${at || '(root)'} → ${name}`);
      }
    }
    expect(missing).to.deep.equal([]);
  });

  it('holds the native packages of Linux x64 and arm64 and macOS for sharp, msgpackr and esbuild', function () {
    const platforms = (prefix: string) =>
      Object.entries(packages)
        .filter(([at]) => at.startsWith(prefix))
        .map(([, e]) => `${e.os?.join()}-${e.cpu?.join()}`);
    for (const prefix of ['node_modules/@img/sharp-', 'node_modules/@msgpackr-extract/', 'node_modules/@esbuild/']) {
      expect(platforms(prefix), prefix).to.include.members(['linux-x64', 'linux-arm64', 'darwin-x64', 'darwin-arm64']);
    }
  });
});
