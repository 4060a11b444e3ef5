// Which analyzer reads a channel's words: the language table, the sub-fields a query targets, and English left exactly as it was.
import { expect } from 'chai';
import { loadConfig } from '../../core/config/load.js';
import { buildKeywordQuery } from '../../core/search/keyword-query.js';
import type { ChannelDoc } from '../../core/store/documents.js';
import { analysisOf, languageFields, languageSubFields, withLanguageFields } from '../../core/store/languages.js';
import { readIndexDefinition } from '../../core/store/opensearch.js';

const channel = (language?: string): ChannelDoc => ({
  id: 'ch',
  slug: 'ch',
  title: 'Ch',
  providerType: 'rss',
  ownerId: 'u',
  memberIds: ['u'],
  customDomain: null,
  ...(language ? { language } : {}),
});
const params = { query: 'how do farmers keep soil healthy', fast: true, limit: 10, publishedOnly: false };

describe('store: languages', function () {
  it('analyses a configured language with its built-in analyzer, English with the base fields, anything else with the fallback', function () {
    expect(analysisOf(undefined)).to.deep.equal({ language: 'en', analyzer: 'english', suffix: '', fallback: false });
    expect(analysisOf('en-GB')).to.include({ suffix: '', analyzer: 'english' });
    expect(analysisOf('es-MX')).to.deep.equal({ language: 'es', analyzer: 'spanish', suffix: 'es', fallback: false });
    expect(analysisOf('de_AT')).to.include({ analyzer: 'german', suffix: 'de' });
    expect(analysisOf('sw')).to.deep.equal({ language: 'sw', analyzer: 'standard', suffix: 'standard', fallback: true });
    // Built in, but not in LANGUAGES: the fallback.
    expect(analysisOf('sv', { languages: ['en', 'es'] })).to.include({ fallback: true, suffix: 'standard' });
    expect(analysisOf('sv', { languages: ['sv'] })).to.include({ analyzer: 'swedish', suffix: 'sv' });
  });

  it('moves the keyword fields to the language’s sub-fields with their boosts, leaving out the speakers', function () {
    expect(languageFields(['title^3', 'summary'], { suffix: 'es' })).to.deep.equal(['title.es^3', 'summary.es']);
    expect(languageFields(['text', 'chapterTitle', 'mainSpeakers'], { suffix: 'standard' })).to.deep.equal(['text.standard', 'chapterTitle.standard']);
    expect(languageFields(['text', 'mainSpeakers'], { suffix: '' })).to.deep.equal(['text', 'mainSpeakers']);
  });

  it('builds the same keyword query for a channel without a language as for an English one, and the old one for both', function () {
    const settings = { candidates: 100 };
    const none = buildKeywordQuery(params, channel(), settings);
    expect(buildKeywordQuery(params, channel('en'), settings)).to.deep.equal(none);
    const must = (q: { query: unknown }) => (q.query as { bool: { must: { multi_match: { fields: string[]; query: string } }[] } }).bool.must[0]!.multi_match;
    expect(must(none.passages as never)).to.deep.include({ fields: ['text', 'chapterTitle', 'mainSpeakers'], query: 'farmers keep soil healthy' });
    expect(must(none.episodes as never).fields).to.deep.equal(['title^3', 'summary', 'description', 'chapterTitles', 'momentTitles']);
    const es = buildKeywordQuery({ ...params, query: 'cómo cuidan el suelo' }, channel('es'), settings);
    expect(must(es.passages as never)).to.deep.include({ fields: ['text.es', 'chapterTitle.es'], query: 'cómo cuidan el suelo' });
  });

  it('adds the sub-fields to the text fields of passages and episodes only, and the ICU analyzer only when asked', async function () {
    const passages = withLanguageFields('passages', await readIndexDefinition('passages'), { languages: loadConfig({}).languages });
    expect((passages.mappings.properties.text as { fields: unknown }).fields).to.deep.equal(languageSubFields(['es', 'de', 'fr', 'pt', 'it', 'nl']));
    expect(passages.mappings.properties.mainSpeakers).to.deep.equal({ type: 'text', analyzer: 'english' });
    const users = await readIndexDefinition('users');
    expect(withLanguageFields('users', users)).to.equal(users);
    const icu = withLanguageFields('episodes', await readIndexDefinition('episodes'), { icu: true });
    expect((icu.mappings.properties.title as { fields: { standard: unknown } }).fields.standard).to.deep.equal({ type: 'text', analyzer: 'standard_icu_folded' });
    expect(JSON.stringify(icu.settings)).to.contain('icu_folding');
  });
});
