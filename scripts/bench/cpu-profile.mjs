// Preloaded with `--import` (NODE_OPTIONS, which refuses `--cpu-prof` itself): a V8 CPU profile of the whole process,
// written to $CPU_PROF_DIR/<pid>.cpuprofile when it exits (open it in Chrome's DevTools or speedscope).
import { Session } from 'node:inspector';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import process from 'node:process';

const dir = process.env.CPU_PROF_DIR;
if (dir) {
  const session = new Session();
  session.connect();
  // On the main thread the session answers synchronously, so the exit handler can stop and write the profile.
  session.post('Profiler.enable');
  session.post('Profiler.setSamplingInterval', { interval: Number(process.env.CPU_PROF_INTERVAL_US ?? 200) });
  session.post('Profiler.start');
  process.on('exit', () => {
    session.post('Profiler.stop', (error, result) => {
      if (!error) writeFileSync(join(dir, `${process.pid}.cpuprofile`), JSON.stringify(result.profile));
    });
  });
}
