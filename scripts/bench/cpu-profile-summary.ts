// Where a profiled process spent its CPU (a .cpuprofile from `bench:search --cpu-prof`): self time by frame, by
// package or file, and by the nearest frame of our own code, so library time counts against the code that asked for it.
//
//   npx tsx scripts/bench/cpu-profile-summary.ts <file.cpuprofile> [--from 60] [--top 30]
import { readFile } from 'node:fs/promises';
import { Command } from 'commander';
import { positive } from '../../bin/lib/cli-args.js';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Frames that are no work of the process's own: waiting. */
const IDLE = '(idle)';

/** A frame's file, shortened: `nm:<package>` for a dependency, the repository path for our code. */
export function fileOf(url: string): string {
  const dep = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (dep) return `nm:${dep[1]}`;
  const own = /\/((?:src|scripts|bin|pipeline|importer)\/.*)$/.exec(url);
  return own ? own[1]! : url;
}

/** Microseconds of CPU per node id, from `fromUs` into the profile on (start-up left out); idle samples dropped. */
export function selfTimes(profile: Profile, fromUs = 0): Map<number, number> {
  const idle = new Set(profile.nodes.filter((n) => n.callFrame.functionName === IDLE).map((n) => n.id));
  const times = new Map<number, number>();
  let clock = 0;
  profile.samples.forEach((id, i) => {
    const dt = profile.timeDeltas[i] ?? 0;
    clock += dt;
    if (clock >= fromUs && !idle.has(id)) times.set(id, (times.get(id) ?? 0) + dt);
  });
  return times;
}

/** Self time summed by a label of the node (or of its nearest ancestor the label accepts: undefined goes up a frame). */
export function sumBy(
  profile: Profile,
  times: Map<number, number>,
  labelOf: (node: ProfileNode) => string | undefined,
  fallback: (node: ProfileNode) => string,
): Map<string, number> {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const sums = new Map<string, number>();
  for (const [id, t] of times) {
    let label: string | undefined;
    for (let at: number | undefined = id; at !== undefined && label === undefined; at = parent.get(at)) label = labelOf(byId.get(at)!);
    const key = label ?? fallback(byId.get(id)!);
    sums.set(key, (sums.get(key) ?? 0) + t);
  }
  return sums;
}

const frame = (n: ProfileNode) => `${n.callFrame.functionName || '(anonymous)'} ${fileOf(n.callFrame.url)}:${n.callFrame.lineNumber + 1}`;

async function main(): Promise<void> {
  const program = new Command()
    .name('cpu-profile-summary')
    .description('Self time of a .cpuprofile by frame, by package or file, and by the nearest frame of our own code.')
    .argument('<file>', 'a .cpuprofile (bench:search --cpu-prof writes one per API process)')
    .option('--from <seconds>', 'leave out the first seconds (start-up, warm-up)', Number, 0)
    .option('--top <n>', 'rows per table', positive, 30)
    .parse();
  const { from, top } = program.opts<{ from: number; top: number }>();
  const profile = JSON.parse(await readFile(program.args[0]!, 'utf8')) as Profile;
  const times = selfTimes(profile, from * 1e6);
  const busy = [...times.values()].reduce((a, b) => a + b, 0);
  const table = (title: string, sums: Map<string, number>) => {
    const rows = [...sums].sort((a, b) => b[1] - a[1]).slice(0, top);
    process.stdout.write(`\n| ${title} | CPU ms | share |\n|---|---|---|\n`);
    for (const [label, t] of rows) process.stdout.write(`| ${label} | ${(t / 1000).toFixed(0)} | ${((100 * t) / busy).toFixed(1)} % |\n`);
  };
  process.stdout.write(`busy ${(busy / 1e6).toFixed(2)} s of CPU from ${from} s on\n`);
  table('frame (self)', sumBy(profile, times, frame, frame));
  table(
    'package or file (self)',
    sumBy(profile, times, (n) => fileOf(n.callFrame.url) || n.callFrame.functionName, frame),
  );
  // Library and runtime time counted against the first frame of ours above it (the store client's work under the read that sent it).
  const own = (n: ProfileNode) => (/^(src|pipeline|importer)\//.test(fileOf(n.callFrame.url)) ? fileOf(n.callFrame.url) : undefined);
  table(
    'nearest own file (self, libraries included)',
    sumBy(profile, times, own, (n) => `(no own frame) ${n.callFrame.functionName || fileOf(n.callFrame.url)}`),
  );
}

main().catch((err: unknown) => {
  process.stderr.write(`cpu-profile-summary: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
