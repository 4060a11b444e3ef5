// Run as a child process by fetch-safe-fetch: one `fetchBytes` of argv[2] with the options of argv[3] (JSON), in a
// process of its own, so that its memory high-water mark (maxRSS) says what this fetch cost and nothing before it did.
// Prints one JSON line: the outcome (bytes, or the refusal's code and limit) and maxRSS before and after, in KB.
import { fetchBytes, FetchError, type SafeFetchOptions } from '../../core/ground/outbound/safe-fetch.js';

const [url, options] = process.argv.slice(2);
const opts = JSON.parse(options!) as SafeFetchOptions;
const maxRssBeforeKb = process.resourceUsage().maxRSS;
const outcome = await fetchBytes(url!, opts).then(
  (res) => ({ bytes: res.body.length }),
  (error: unknown) => (error instanceof FetchError ? { code: error.code, limit: error.limit } : { error: String(error) }),
);
process.stdout.write(`${JSON.stringify({ ...outcome, maxRssBeforeKb, maxRssAfterKb: process.resourceUsage().maxRSS })}\n`);
