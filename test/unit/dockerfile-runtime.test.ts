// The runtime image holds every file the compiled product reads beside its code: each top-level folder or file that
// src/ names through packageFile() is copied into the Dockerfile's runtime stage (web/ was once missing, and the
// compiled server would not have started in the image, since the pages read their assets at start).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';

const ROOT = process.cwd();

/** Source files of src/, recursively. */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));
}

describe('Dockerfile: the runtime stage', function () {
  it('copies every folder and file the product reads through packageFile()', function () {
    const read = new Set<string>();
    for (const file of sources(join(ROOT, 'src'))) {
      for (const m of readFileSync(file, 'utf8').matchAll(/packageFile\('([^']+)'/g)) read.add(m[1]!);
    }
    expect([...read].sort()).to.include.members(['mappings', 'package.json', 'web']);
    const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
    const runtime = dockerfile.slice(dockerfile.indexOf('AS runtime'));
    const copied = [...runtime.matchAll(/^COPY (?!--from)(.+) \S+$/gm)].flatMap((m) => m[1]!.split(/\s+/));
    for (const name of read) expect(copied, `the runtime stage copies ${name}`).to.include(name);
  });
});
