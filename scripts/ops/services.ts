// `npm run -s services -- up|down|status`: local OpenSearch, Redis and the transcription service; `up` prints eval-able URLs on stdout.
import { Command, InvalidArgumentError } from 'commander';
import { createLogger } from '../../core/ground/logger.js';
import { ProvisionError } from './provision/errors.js';
import { servicesDown, servicesStatus, servicesUp, type ServiceStatus } from './provision/services.js';

const log = createLogger({ name: 'services', fd: 2 });

const program = new Command()
  .name('services')
  .description('Local OpenSearch (with k-NN and English analysis), Redis and the transcription service for development and tests.')
  .showHelpAfterError();

program
  .command('up')
  .description(
    'start (or reuse) the services and print OPENSEARCH_URL=..., REDIS_URL=... and TRANSCRIBE_URL=... on stdout, e.g. eval "$(npm run -s services -- up)". ' +
      'OPENSEARCH_URL / REDIS_URL / TRANSCRIBE_URL already set: used as given. OPENSEARCH_PORT / REDIS_PORT / TRANSCRIBE_PORT: pin the ports (of node 1 for a cluster).',
  )
  .option('--nodes <n>', 'OpenSearch nodes: 1 is the single node (default), 2-9 a local cluster whose URLs are printed comma-separated', nodeCount)
  .action(async (opts: { nodes?: number }) => {
    const urls = await servicesUp({ log, nodes: opts.nodes, transcriber: true });
    process.stdout.write(`OPENSEARCH_URL=${urls.opensearchUrl}\nREDIS_URL=${urls.redisUrl}\nTRANSCRIBE_URL=${urls.transcribeUrl}\n`);
  });

program
  .command('down')
  .description('stop what up started and clear the run state (indexed data stays in .cache/run)')
  .action(async () => {
    await servicesDown({ log });
  });

program
  .command('status')
  .description('say what runs where; exit code 0 when every service answers, 3 otherwise')
  .action(async () => {
    const status = await servicesStatus();
    // A cluster with some nodes down still answers: degraded, not stopped.
    const state = (s: ServiceStatus) => (s.running ? 'running' : s.nodes?.some((n) => n.running) ? 'degraded' : 'stopped');
    const line = (name: string, s: ServiceStatus) =>
      [name.padEnd(11), state(s).padEnd(8), (s.url ?? '-').padEnd(24), s.pid ? `pid ${s.pid}` : '', s.detail].filter(Boolean).join('  ');
    const nodeLine = (n: NonNullable<ServiceStatus['nodes']>[number]) =>
      ['  ' + n.name.padEnd(9), (n.running ? 'running' : 'stopped').padEnd(8), n.url.padEnd(24), n.pid ? `pid ${n.pid}` : '', n.clusterManager ? 'elected cluster-manager' : '']
        .filter(Boolean)
        .join('  ');
    const nodes = (status.opensearch.nodes ?? []).map((n) => `${nodeLine(n)}\n`).join('');
    const transcriber = status.transcriber ? `${line('transcriber', status.transcriber)}\n` : '';
    process.stdout.write(`${line('opensearch', status.opensearch)}\n${nodes}${line('redis', status.redis)}\n${transcriber}`);
    if (!status.opensearch.running || !status.redis.running || status.transcriber?.running === false) process.exitCode = 3;
  });

function nodeCount(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 9) throw new InvalidArgumentError('expected 1 to 9');
  return n;
}

program.parseAsync().catch((err: unknown) => {
  if (err instanceof ProvisionError) {
    if (err.details) process.stderr.write(`${err.details}\n`);
    process.stderr.write(`services: ${err.message}\n`);
  } else {
    log.error({ err }, 'unexpected failure');
    process.stderr.write(`services: unexpected failure: ${err instanceof Error ? err.message : String(err)}\n`);
  }
  process.exit(1);
});
