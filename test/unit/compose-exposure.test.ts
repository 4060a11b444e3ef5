// The compose files publish only the API to the network; OpenSearch on loopback at most, Redis never and with a password,
// the transcription service never; the worker reaches the transcriber and keeps its library on a named volume.
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { parse } from 'yaml';

interface Service {
  image?: string;
  build?: unknown;
  command?: string[];
  ports?: string[];
  network_mode?: string;
  environment?: Record<string, string>;
  volumes?: string[];
}

const FILES = ['docker-compose.yml', 'docker-compose.cluster.yml'];

describe('compose files: nothing unauthenticated beyond loopback', function () {
  for (const file of FILES) {
    describe(file, function () {
      const compose = parse(readFileSync(file, 'utf8'), { merge: true }) as { services: Record<string, Service>; volumes?: Record<string, unknown> };
      const services = compose.services;
      // The product's own image (API and worker) is built from the repository root; the transcriber from its folder.
      const apps = Object.entries(services).filter(([, s]) => s.build === '.');
      const workers = apps.filter(([, s]) => s.command?.includes('dist/bin/worker.js'));

      it('publishes OpenSearch on 127.0.0.1 only, and Redis not at all', function () {
        const opensearch = Object.entries(services).filter(([, s]) => s.image?.startsWith('opensearchproject/'));
        const redis = Object.entries(services).filter(([, s]) => s.image?.startsWith('redis'));
        // A renamed or mirrored image would leave nothing to check: the file must still show its engine and its Redis.
        expect(opensearch.length, 'OpenSearch services found by image').to.be.greaterThan(0);
        expect(redis.length, 'Redis services found by image').to.be.greaterThan(0);
        for (const [name, service] of opensearch) for (const port of service.ports ?? []) expect(port, `${name} publishes ${port}`).to.match(/^127\.0\.0\.1:/);
        for (const [name, service] of redis) expect(service.ports, `${name} is not published`).to.equal(undefined);
      });

      it('starts Redis with a password and gives it to every process through REDIS_URL', function () {
        const redis = Object.values(services).find((s) => s.image?.startsWith('redis'))!;
        expect(redis.command).to.include('--requirepass');
        expect(redis.command![redis.command!.indexOf('--requirepass') + 1]).to.match(/^\$\{REDIS_PASSWORD:\?/);
        expect(apps.length).to.be.greaterThan(1);
        for (const [name, app] of apps) expect(app.environment?.REDIS_URL, name).to.match(/^redis:\/\/:\$\{REDIS_PASSWORD:\?[^}]*\}@redis:6379$/);
      });

      it('runs the transcription service from services/transcriber and publishes none of its ports', function () {
        const transcribers = Object.entries(services).filter(([, s]) => s.build === 'services/transcriber');
        expect(transcribers.map(([name]) => name)).to.deep.equal(['transcriber']);
        const [, transcriber] = transcribers[0]!;
        expect(transcriber.ports, 'the transcriber is not published').to.equal(undefined);
        expect(transcriber.network_mode, 'the transcriber shares no host network').to.equal(undefined);
      });

      it("gives every worker the transcriber's URL and a named volume for FOLLOW_LIBRARY_DIR", function () {
        expect(workers.length).to.be.greaterThan(0);
        for (const [name, worker] of workers) {
          expect(worker.environment?.TRANSCRIBE_URL, name).to.equal('http://transcriber:8910');
          const dir = worker.environment?.FOLLOW_LIBRARY_DIR;
          expect(dir, name).to.match(/^\//);
          const mount = (worker.volumes ?? []).map((v) => v.split(':')).find(([, target]) => target === dir);
          expect(mount, `${name} mounts a volume on ${dir}`).to.not.equal(undefined);
          // A named volume (declared below), not a path in the container that goes with it.
          expect(Object.keys(compose.volumes ?? {}), name).to.include(mount![0]);
        }
      });

      it('publishes the API processes, which bind every interface inside their containers', function () {
        for (const [name, app] of apps) {
          expect(app.environment?.HOST, name).to.equal('0.0.0.0');
          if (app.command?.includes('dist/src/server.js')) expect(app.ports, name).to.have.length(1);
        }
      });
    });
  }
});
