// `npm run fuzz`: schemathesis against the served OpenAPI document; exit 1 on any 5xx, schema mismatch or accepted bad input.
import { Command } from 'commander';
import { fuzzLocalApi } from './fuzz/fuzz-local.js';
import { CHECKS } from './fuzz/schemathesis.js';
import { positive } from '../../bin/lib/cli-args.js';

const opts = new Command()
  .name('fuzz')
  .description(
    `Fuzz the API with schemathesis (installed into .cache/venv on first use) over a loaded prefix.\n` +
      `Checks: ${CHECKS.join(', ')}. Needs OPENSEARCH_URL and REDIS_URL (eval "$(npm run -s services -- up)").`,
  )
  .option('--max-examples <n>', 'test cases per operation and phase', positive, 200)
  .option('--seconds <n>', 'time budget of the whole run', positive, 600)
  .option('--prefix <prefix>', 'index prefix holding a loaded library', 'test-qmsum-')
  .option('--seed <n>', 'random seed (reproduce a run)', positive)
  .option('--quiet', "do not echo schemathesis' output")
  .parse()
  .opts<{ maxExamples: number; seconds: number; prefix: string; seed?: number; quiet?: boolean }>();

const result = await fuzzLocalApi({ maxExamples: opts.maxExamples, seconds: opts.seconds, prefix: opts.prefix, seed: opts.seed, echo: !opts.quiet });
const { summary, ...figures } = result;
if (opts.quiet) process.stderr.write(`${summary}\n`);
process.stdout.write(`${JSON.stringify(figures, null, 2)}\n`);
process.stdout.write(
  `fuzz: ${result.testCases} test cases over ${result.operations} operations in ${result.seconds.toFixed(0)} s; ` +
    `failures: ${Object.keys(result.failures).length ? JSON.stringify(result.failures) : 'none'}; errors: ${result.errors} → ${result.ok ? 'PASS' : 'FAIL'}\n`,
);
process.exit(result.ok ? 0 : 1);
