// A tiny suite that the unit test skip-reasons.test.ts runs in a child mocha: one suite needing a data set, one test
// needing a service. Not matched by the suites' globs (`test/{unit,integration}/**/*.test.ts`).
import { skipWithoutDataset } from './datasets.js';
import { skipUnprovisioned } from './skip.js';

describe('fixture needing qmsum', function () {
  before(function () {
    skipWithoutDataset(this, 'qmsum');
  });
  it('reads the data set', function () {});
});

describe('fixture needing a service', function () {
  it('calls it', function () {
    if (!process.env.FIXTURE_SERVICE_URL) skipUnprovisioned(this, 'FIXTURE_SERVICE_URL is not set');
  });
});
