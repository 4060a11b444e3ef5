// docs/configuration.md is the schema's own table: regenerate it with `npm run docs:config` after changing a declaration.
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { ENV } from '../../core/config/schema.js';
import { CONFIGURATION_DOC, renderConfigurationDoc } from '../../scripts/dev/config-docs.js';

describe('docs/configuration.md', function () {
  it('equals the table generated from core/config/schema.ts (run `npm run docs:config`)', function () {
    expect(readFileSync(CONFIGURATION_DOC, 'utf8')).to.equal(renderConfigurationDoc());
  });

  it('documents every declared variable once, with a default, what it accepts and a meaning', function () {
    const doc = readFileSync(CONFIGURATION_DOC, 'utf8');
    for (const [name, spec] of ENV) {
      expect(doc.split(`| \`${name}\` |`).length - 1, name).to.equal(1);
      expect(spec.shown, name).to.not.equal('');
      expect(spec.accepts, name).to.not.equal('');
      expect(spec.description.length, name).to.be.greaterThan(10);
    }
  });
});
