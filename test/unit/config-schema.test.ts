// The machinery that turns the schema's tree into the configuration object: computed fields, former names, one read per variable, the documented order.
import { expect } from 'chai';
import { SCHEMA } from '../../core/config/schema.js';
import { computed, formerly, readSchema, settingsOf } from '../../core/config/tree.js';
import { ConfigError, integer, optionalText, text, type Setting } from '../../core/config/values.js';

/** A setting that counts its reads. */
function counted<T>(setting: Setting<T>): Setting<T> & { reads: number } {
  const wrapped = { ...setting, reads: 0, read: (raw: string | undefined, name: string) => (wrapped.reads++, setting.read(raw, name)) };
  return wrapped;
}

describe('config schema', function () {
  const PORT = counted(integer('PORT', 8080, 0, 65535, 'port of the thing'));
  const schema = {
    port: PORT,
    url: computed([optionalText('URL', 'where the thing is'), PORT], (url, port) => url ?? `http://localhost:${port}`),
    group: { name: formerly(text('NEW_NAME', 'thing', 'name of the thing'), 'OLD_NAME') },
  };

  it('reads each field where the schema declares it, computed fields from their inputs', function () {
    expect(readSchema(schema, { PORT: '81' })).to.deep.equal({ port: 81, url: 'http://localhost:81', group: { name: 'thing' } });
    expect(readSchema(schema, { URL: 'https://a.example', OLD_NAME: 'old' })).to.deep.equal({ port: 8080, url: 'https://a.example', group: { name: 'old' } });
  });

  it('reads a variable once however many fields take it', function () {
    PORT.reads = 0;
    readSchema(schema, {});
    expect(PORT.reads).to.equal(1);
  });

  it('prefers the current name over the former one, and names the one it read in an error', function () {
    expect(readSchema(schema, { NEW_NAME: 'new', OLD_NAME: 'old' }).group.name).to.equal('new');
    const aliased = { n: formerly(integer('NEW_N', 1, 0, 9, 'a digit'), 'OLD_N') };
    expect(() => readSchema(aliased, { OLD_N: '10' })).to.throw(ConfigError, /^OLD_N: expected 0\.\.9, got 10$/);
    expect(() => readSchema(aliased, { NEW_N: '10', OLD_N: '1' })).to.throw(ConfigError, /^NEW_N: /);
  });

  it('lists each variable once, in the order the fields first name it', function () {
    expect([...settingsOf(schema).keys()]).to.deep.equal(['PORT', 'URL', 'NEW_NAME']);
  });

  it('refuses two declarations of one variable', function () {
    const twice = { a: integer('SAME', 1, 0, 9, 'a digit'), b: integer('SAME', 2, 0, 9, 'a digit') };
    expect(() => settingsOf(twice)).to.throw(ConfigError, /SAME: declared twice/);
  });

  it('declares each variable of the product once', function () {
    const names = [...settingsOf(SCHEMA).keys()];
    expect(names).to.include.members(['PORT', 'PUBLIC_BASE_URL', 'SEARCH_KEYWORD_WEIGHT', 'API_V1_SUCCESSOR', 'FOLLOW_USER_AGENT']);
    expect(names).to.not.include.members(['RRF_KEYWORD_WEIGHT', 'RRF_SEMANTIC_WEIGHT']);
  });
});
