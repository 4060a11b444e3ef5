// The compose files publish only the API to the network; OpenSearch on loopback at most, Redis never and with a password.
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { parse } from 'yaml';

interface Service {
  image?: string;
  build?: unknown;
  command?: string[];
  ports?: string[];
  environment?: Record<string, string>;
}

const FILES = ['docker-compose.yml', 'docker-compose.cluster.yml'];

describe('compose files: nothing unauthenticated beyond loopback', function () {
  for (const file of FILES) {
    describe(file, function () {
      const services = (parse(readFileSync(file, 'utf8'), { merge: true }) as { services: Record<string, Service> }).services;
      const apps = Object.entries(services).filter(([, s]) => s.build !== undefined);

      it('publishes OpenSearch on 127.0.0.1 only, and Redis not at all', function () {
        for (const [name, service] of Object.entries(services)) {
          if (service.image?.startsWith('opensearchproject/')) {
            for (const port of service.ports ?? []) expect(port, `${name} publishes ${port}`).to.match(/^127\.0\.0\.1:/);
          }
          if (service.image?.startsWith('redis')) expect(service.ports, `${name} is not published`).to.equal(undefined);
        }
      });

      it('starts Redis with a password and gives it to every process through REDIS_URL', function () {
        const redis = Object.values(services).find((s) => s.image?.startsWith('redis'))!;
        expect(redis.command).to.include('--requirepass');
        expect(redis.command![redis.command!.indexOf('--requirepass') + 1]).to.match(/^\$\{REDIS_PASSWORD:\?/);
        expect(apps.length).to.be.greaterThan(1);
        for (const [name, app] of apps) expect(app.environment?.REDIS_URL, name).to.match(/^redis:\/\/:\$\{REDIS_PASSWORD:\?[^}]*\}@redis:6379$/);
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
