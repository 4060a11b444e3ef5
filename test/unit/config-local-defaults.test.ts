import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../core/config/load.js';
import { withRecordedServices } from '../../core/config/recorded-services.js';
import { packageRoot } from '../../core/ground/package-root.js';

describe('the embedding model a program loads', function () {
  it('is the provisioned model under .cache/models when nothing is configured, never the hub', function () {
    const config = loadConfig({});
    expect(config.modelDir).to.equal(join(packageRoot(), '.cache', 'models'));
    expect(config.modelProvision).to.equal('bge-small-en-v1.5');
  });

  it('provisions the second pinned model when MODEL_ID names it', function () {
    expect(loadConfig({ MODEL_ID: 'Xenova/all-MiniLM-L6-v2' }).modelProvision).to.equal('all-minilm-l6-v2');
  });

  it("is the operator's folder, provisioned by nobody, when MODEL_DIR is set", function () {
    const config = loadConfig({ MODEL_DIR: '/srv/models' });
    expect(config.modelDir).to.equal('/srv/models');
    expect(config.modelProvision).to.equal(undefined);
  });

  it('is the hub only when MODEL_HUB=on asks for it', function () {
    const config = loadConfig({ MODEL_HUB: 'on' });
    expect(config.modelDir).to.equal(undefined);
    expect(config.modelProvision).to.equal(undefined);
  });

  it('refuses a model this project cannot provision, saying what to set', function () {
    expect(() => loadConfig({ MODEL_ID: 'intfloat/e5-small-v2' })).to.throw(/MODEL_ID: "intfloat\/e5-small-v2" is not a model this project provisions .*MODEL_DIR.*MODEL_HUB=on/);
    expect(loadConfig({ MODEL_ID: 'intfloat/e5-small-v2', MODEL_DIR: '/srv/models' }).modelDir).to.equal('/srv/models');
  });

  it('provisions nothing for a remote embedder', function () {
    expect(loadConfig({ EMBEDDER: 'openai', EMBEDDINGS_URL: 'http://127.0.0.1:8910' }).modelProvision).to.equal(undefined);
  });
});

describe('services as `npm run services -- up` records them', function () {
  let runDir: string;
  beforeEach(function () {
    runDir = mkdtempSync(join(tmpdir(), 'cca-run-'));
  });
  afterEach(function () {
    rmSync(runDir, { recursive: true, force: true });
  });
  const record = (name: string, state: unknown) => writeFileSync(join(runDir, `${name}.json`), JSON.stringify(state));

  it('fill the service variables the environment leaves out, from services that still run', function () {
    record('opensearch', { pid: process.pid, url: 'http://127.0.0.1:9201' });
    record('redis', { pid: process.pid, url: 'redis://127.0.0.1:6380' });
    record('transcriber', { pid: process.pid, url: 'http://127.0.0.1:8911' });
    const { env, found } = withRecordedServices({ LOG_LEVEL: 'warn' }, { runDir });
    expect(found).to.deep.equal({ OPENSEARCH_URL: 'http://127.0.0.1:9201', REDIS_URL: 'redis://127.0.0.1:6380', TRANSCRIBE_URL: 'http://127.0.0.1:8911' });
    expect(env.LOG_LEVEL).to.equal('warn');
    // The NER default follows the local transcription service found this way.
    expect(loadConfig(env).enrich.nerUrl).to.equal('http://127.0.0.1:8911');
  });

  it('leave a variable the operator set, even empty, as it is', function () {
    record('transcriber', { pid: process.pid, url: 'http://127.0.0.1:8911' });
    record('redis', { pid: process.pid, url: 'redis://127.0.0.1:6380' });
    const { env, found } = withRecordedServices({ TRANSCRIBE_URL: '', REDIS_URL: 'redis://10.0.0.5:6379' }, { runDir });
    expect(found).to.deep.equal({});
    expect(env.TRANSCRIBE_URL).to.equal('');
    expect(loadConfig(env).enrich.nerUrl).to.equal(undefined);
  });

  it('skip a record whose process is gone, and take every node of a recorded cluster', function () {
    record('transcriber', { pid: 2 ** 22 + 12345, url: 'http://127.0.0.1:8911' });
    record('opensearch-cluster', {
      nodes: [
        { pid: process.pid, url: 'http://127.0.0.1:9201' },
        { pid: process.pid, url: 'http://127.0.0.1:9202' },
      ],
    });
    expect(withRecordedServices({}, { runDir }).found).to.deep.equal({ OPENSEARCH_URL: 'http://127.0.0.1:9201,http://127.0.0.1:9202' });
  });
});
