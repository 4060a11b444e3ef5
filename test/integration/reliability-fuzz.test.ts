// A bounded schemathesis run over the served OpenAPI document (the same code path as `npm run fuzz`): no 5xx, no response off the document, bad input refused.
import { expect } from 'chai';
import { fuzzLocalApi } from '../../scripts/dev/fuzz/fuzz-local.js';
import { QMSUM_LOAD_TIMEOUT_MS, ensureCorpusLoaded } from '../support/qmsum-fixture.js';
import type { Embedder } from '../../core/embedding/embedder.js';
import { OPERATIONS } from '../../src/openapi/operations.js';

/** Enough to cover every operation in every phase (about 1,200 cases) while fitting CI; `npm run fuzz` runs longer. */
const MAX_EXAMPLES = 10;
const SECONDS = 60;

describe('reliability: schemathesis fuzz (bounded)', function () {
  let prefix: string;
  let embedder: Embedder;

  before(async function () {
    this.timeout(QMSUM_LOAD_TIMEOUT_MS);
    ({ prefix, embedder } = await ensureCorpusLoaded());
  });

  it('finds no server error, no schema mismatch and no accepted bad input', async function () {
    // First run on a machine: venv + pip install (a few minutes); then the run itself, ~1 min.
    this.timeout(15 * 60_000);
    // A missing python3/venv/pip throws here: the suite fails rather than skipping the fuzz.
    const result = await fuzzLocalApi({ prefix, embedder, maxExamples: MAX_EXAMPLES, seconds: SECONDS, progress: () => {} });
    expect(result.failures, result.summary).to.deep.equal({});
    expect(result.errors, result.summary).to.equal(0);
    // schemathesis reports 9 of the 10 operations as tested (one it leaves out; see the report).
    expect(result.operations, 'operations tested').to.be.at.least(OPERATIONS.length - 1);
    expect(result.testCases).to.be.greaterThan(200);
    expect(result.ok, result.summary).to.equal(true);
  });
});
