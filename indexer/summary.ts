// The end-of-run summary of a load, built from job results, issues and failures.
import { formatIssue, type LibraryIssue } from '../core/library/reader.js';
import type { JobResult } from './jobs.js';

export interface LoadSummary {
  library: string;
  durationMs: number;
  users: number;
  channels: number;
  facets: number;
  episodes: {
    /** Valid episode records read from the library. */
    read: number;
    indexed: number;
    /** Same sourceHash as stored: nothing written, nothing embedded. */
    unchanged: number;
    failed: number;
    /** Episodes removed from the store because the library no longer has them. */
    removed: number;
  };
  passages: { written: number; embedded: number; reused: number; removed: number };
  /** Episodes read by the language they are spoken in (primary subtag). */
  languages: Record<string, number>;
  /**
   * Episodes in a language without an analyzer of its own here (not in LANGUAGES, or none built into the engine):
   * searched with the fallback `standard` analysis, by language.
   */
  fallback: Record<string, number>;
  /** Files and records that were skipped, with path, line and reason. */
  skipped: LibraryIssue[];
  /** Records that were read but could not be indexed. */
  failed: { id: string; reason: string }[];
  /** Why removal of episodes missing from the library did not run, when it did not. */
  syncWithheld: string | null;
  /** Nothing skipped, nothing failed: the exit status is 0 only then. */
  ok: boolean;
}

/** Collects a run's outcome piece by piece. */
export function createSummary(library: string, started = Date.now()) {
  const s: LoadSummary = {
    library,
    durationMs: 0,
    users: 0,
    channels: 0,
    facets: 0,
    episodes: { read: 0, indexed: 0, unchanged: 0, failed: 0, removed: 0 },
    passages: { written: 0, embedded: 0, reused: 0, removed: 0 },
    languages: {},
    fallback: {},
    skipped: [],
    failed: [],
    syncWithheld: null,
    ok: true,
  };
  return {
    issue(issue: LibraryIssue): void {
      s.skipped.push(issue);
    },
    episodeRead(): void {
      s.episodes.read++;
    },
    result(r: JobResult): void {
      if (r.kind === 'meta') {
        s.users += r.users;
        s.channels += r.channels;
        s.facets += r.facets;
      } else if (r.kind === 'sync') {
        s.episodes.removed += r.removedEpisodes;
        s.passages.removed += r.removedPassages;
      } else {
        s.episodes[r.outcome]++;
        s.passages.written += r.passages;
        s.passages.embedded += r.embedded;
        s.passages.reused += r.reused;
        s.passages.removed += r.removedPassages;
        if (r.language) {
          s.languages[r.language] = (s.languages[r.language] ?? 0) + 1;
          if (r.analyzer === 'standard') s.fallback[r.language] = (s.fallback[r.language] ?? 0) + 1;
        }
      }
    },
    /** A job that could not be done; `id` is the episode id, or `meta`/`sync`. */
    failed(id: string, reason: string, { episode = true } = {}): void {
      if (episode) s.episodes.failed++;
      s.failed.push({ id, reason });
    },
    syncWithheld(reason: string): void {
      s.syncWithheld = reason;
    },
    finish(): LoadSummary {
      s.durationMs = Date.now() - started;
      s.ok = s.skipped.length === 0 && s.failed.length === 0;
      return s;
    },
  };
}

/** A few human lines for the end of a CLI run (stderr); the JSON summary goes to the log. */
export function formatSummary(s: LoadSummary): string {
  const lines = [
    `library ${s.library}: ${s.episodes.read} episodes read in ${(s.durationMs / 1000).toFixed(1)} s`,
    `  indexed ${s.episodes.indexed}, unchanged ${s.episodes.unchanged}, failed ${s.episodes.failed}, removed ${s.episodes.removed}`,
    `  passages written ${s.passages.written} (embedded ${s.passages.embedded}, vectors re-used ${s.passages.reused}), stale removed ${s.passages.removed}`,
    `  users ${s.users}, channels ${s.channels}, facets ${s.facets}`,
  ];
  const languages = Object.entries(s.languages);
  if (languages.length > 1 || (languages.length === 1 && languages[0]![0] !== 'en')) lines.push(`  languages: ${languages.map(([l, n]) => `${l} ${n}`).join(', ')}`);
  const fallback = Object.entries(s.fallback);
  if (fallback.length > 0) {
    lines.push(
      `  analysed with the fallback (standard: no stemming or stop words of their own): ${fallback.map(([l, n]) => `${l} ${n}`).join(', ')}; add the language to LANGUAGES (when the engine has an analyzer for it) and reindex`,
    );
  }
  if (s.syncWithheld) lines.push(`  removal withheld: ${s.syncWithheld}`);
  if (s.skipped.length) lines.push(`  skipped ${s.skipped.length}:`, ...s.skipped.map((i) => `    ${formatIssue(i)}`));
  if (s.failed.length) lines.push(`  failed ${s.failed.length}:`, ...s.failed.map((f) => `    ${f.id}: ${f.reason}`));
  lines.push(s.ok ? 'ok' : 'finished with problems (exit status 1)');
  return lines.join('\n');
}
