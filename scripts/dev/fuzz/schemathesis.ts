// schemathesis in a project-local virtual environment: provisioned on first use, then run against a served OpenAPI document.
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { CACHE_DIR } from '../../ops/provision/paths.js';
import { exec, lastLine } from '../../ops/provision/commands.js';

/** Pinned: the CLI flags and the report format below are those of this release (it supports Python 3.9+). */
export const SCHEMATHESIS_VERSION = '4.32.5';
export const VENV_DIR = path.join(CACHE_DIR, 'venv');
const BIN = path.join(VENV_DIR, process.platform === 'win32' ? 'Scripts' : 'bin');

/** What every run checks: no 5xx, every response documented (status, content type, headers, body), bad input refused. */
export const CHECKS = [
  'not_a_server_error',
  'status_code_conformance',
  'content_type_conformance',
  'response_headers_conformance',
  'response_schema_conformance',
  'negative_data_rejection',
] as const;

/** Statuses that count as "bad input refused" for `negative_data_rejection`. */
const NEGATIVE_STATUSES = [400, 401, 403, 404, 406, 422, 428, 431];

/**
 * Makes `.cache/venv` with the pinned schemathesis and returns the path of its CLI. Reuses
 * a venv that already has that version. Throws with one line saying what to do when Python,
 * its venv module or pip is missing: a run that cannot fuzz must fail, never pass quietly.
 */
export async function ensureSchemathesis({
  python = 'python3',
  log = (m: string): void => void process.stderr.write(`${m}\n`),
}: { python?: string; log?: (line: string) => void } = {}): Promise<string> {
  const cli = path.join(BIN, 'schemathesis');
  if (existsSync(cli)) {
    const v = await exec(cli, ['--version'], { timeoutMs: 60_000 });
    if (v.code === 0 && v.stdout.includes(SCHEMATHESIS_VERSION)) return cli;
  }
  log(`fuzz: provisioning schemathesis ${SCHEMATHESIS_VERSION} into ${path.relative(process.cwd(), VENV_DIR) || VENV_DIR}`);
  await mkdir(CACHE_DIR, { recursive: true });
  if (!existsSync(path.join(BIN, 'pip'))) {
    await rm(VENV_DIR, { recursive: true, force: true });
    const venv = await exec(python, ['-m', 'venv', VENV_DIR], { timeoutMs: 600_000 });
    if (venv.code !== 0) {
      throw new Error(
        `cannot create a Python virtual environment with "${python} -m venv" (${lastLine(venv.stderr)}); install Python 3.9+ with its venv module (Debian/Ubuntu: apt-get install python3-venv)`,
      );
    }
  }
  const pip = await exec(path.join(BIN, 'python'), ['-m', 'pip', 'install', '--quiet', `schemathesis==${SCHEMATHESIS_VERSION}`], { timeoutMs: 900_000 });
  if (pip.code !== 0) throw new Error(`pip could not install schemathesis ${SCHEMATHESIS_VERSION}: ${lastLine(pip.stderr)}`);
  const v = await exec(cli, ['--version'], { timeoutMs: 60_000 });
  if (v.code !== 0 || !v.stdout.includes(SCHEMATHESIS_VERSION)) throw new Error(`schemathesis installed but does not run: ${lastLine(v.stderr || v.stdout)}`);
  return cli;
}

export interface FuzzOptions {
  /** Base URL of a running API (its document is read from `<baseUrl>/api/v1/openapi.json`). */
  baseUrl: string;
  apiKey: string;
  /** Test cases per operation and phase. */
  maxExamples: number;
  /** Time budget of the whole run, seconds. */
  maxSeconds: number;
  seed?: number;
  workers?: number;
  /** Echo schemathesis' own output to stderr while it runs. */
  echo?: boolean;
  reportDir?: string;
}

export interface FuzzResult {
  ok: boolean;
  exitCode: number;
  /** Test cases schemathesis generated and sent, all phases. */
  testCases: number;
  operations: number;
  /** Unique failures by schemathesis code and title (`ST101 Server error`, `ST102 Response violates schema` …). */
  failures: Record<string, number>;
  errors: number;
  seconds: number;
  /** schemathesis' own summary (the tail of its output). */
  summary: string;
}

/**
 * The fuzzer's own crash, not a finding: CPython 3.11.7's `ast` raises it at random while
 * Hypothesis describes a lambda of its generators (seen once in a local run, gone on the next).
 */
const FUZZER_CRASH = /AST constructor recursion depth mismatch/;

/**
 * Runs schemathesis against `baseUrl` with {@link CHECKS} and returns the counts from its JSON
 * run report. A run that failed only by {@link FUZZER_CRASH}, with no finding against the
 * API, is run once more; a second crash is reported as it is.
 */
export async function runFuzz(cli: string, opts: FuzzOptions): Promise<FuzzResult> {
  const first = await runFuzzOnce(cli, opts);
  const findings = Object.values(first.failures).reduce((a, b) => a + b, 0);
  if (first.ok || findings > 0 || !FUZZER_CRASH.test(first.summary)) return first;
  process.stderr.write('fuzz: schemathesis crashed inside Hypothesis (CPython ast recursion check), not on the API; running it once more\n');
  return runFuzzOnce(cli, opts);
}

async function runFuzzOnce(cli: string, opts: FuzzOptions): Promise<FuzzResult> {
  const reportDir = opts.reportDir ?? path.join(CACHE_DIR, 'fuzz-report');
  await rm(reportDir, { recursive: true, force: true });
  await mkdir(reportDir, { recursive: true });
  const reportJson = path.join(reportDir, 'report.json');
  // 431 (URL or headers over Node's 16 KB limit) is a rejection too: the generator makes such URLs from long strings.
  const configFile = path.join(reportDir, 'schemathesis.toml');
  await writeFile(configFile, `[checks.negative_data_rejection]\nexpected-statuses = [${NEGATIVE_STATUSES.map((s) => `"${s}"`).join(', ')}]\n`);
  const args = [
    '--config-file',
    configFile,
    'run',
    `${opts.baseUrl}/api/v1/openapi.json`,
    '--url',
    opts.baseUrl,
    '--checks',
    CHECKS.join(','),
    '--header',
    `x-api-key: ${opts.apiKey}`,
    '--max-examples',
    String(opts.maxExamples),
    '--max-time',
    String(opts.maxSeconds),
    '--workers',
    String(opts.workers ?? 2),
    '--request-timeout',
    '10',
    '--no-shrink',
    '--suppress-health-check',
    'all',
    '--report',
    'json',
    '--report-json-path',
    reportJson,
    '--output-sanitize',
    'true',
    ...(opts.seed !== undefined ? ['--seed', String(opts.seed)] : []),
  ];
  const started = Date.now();
  // Generous hard stop: --max-time bounds generation, this bounds a wedged process.
  const run = await exec(cli, args, {
    timeoutMs: (opts.maxSeconds + 120) * 1000,
    echo: opts.echo ?? false,
    env: { ...process.env, NO_COLOR: '1', SCHEMATHESIS_TELEMETRY: 'false' },
  });
  const seconds = (Date.now() - started) / 1000;
  const counts = await countReport(reportJson);
  // From the ERRORS section when there is one: the SUMMARY only counts a "Runtime Error", its cause is printed above it.
  const errorsStart = run.stdout.search(/^.*=+ ERRORS =+.*$/m);
  const summaryStart = errorsStart >= 0 ? errorsStart : run.stdout.lastIndexOf('SUMMARY');
  const summary = (summaryStart >= 0 ? run.stdout.slice(summaryStart) : run.stdout.split('\n').slice(-30).join('\n')).trim();
  const failed = Object.values(counts.failures).reduce((a, b) => a + b, 0);
  return {
    ok: run.code === 0 && failed === 0 && counts.errors === 0 && counts.testCases > 0,
    exitCode: run.code,
    seconds,
    summary,
    ...counts,
  };
}

/** Reads the counts from schemathesis' JSON run report (`--report json`). */
async function countReport(file: string): Promise<Pick<FuzzResult, 'testCases' | 'operations' | 'failures' | 'errors'>> {
  const text = await readFile(file, 'utf8').catch(() => '');
  if (!text) return { testCases: 0, operations: 0, failures: {}, errors: 1 };
  const report = JSON.parse(text) as {
    operations: { tested: number };
    test_cases: { generated: number; errored: number };
    failures: { code: string; title: string; count: number; operations: string[] }[];
    errors: { title: string; count: number }[];
  };
  const failures: Record<string, number> = {};
  for (const f of report.failures) failures[`${f.code} ${f.title}`] = (failures[`${f.code} ${f.title}`] ?? 0) + f.count;
  return {
    testCases: report.test_cases.generated,
    operations: report.operations.tested,
    failures,
    errors: report.errors.reduce((n, e) => n + e.count, 0) + report.test_cases.errored,
  };
}
