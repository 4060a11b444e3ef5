import { expect } from 'chai';
import { FacetNames } from '../../importer/model.js';
import { slugify } from '../../importer/text.js';
import { generatedId, nameSlug } from '../../pipeline/enrich/people.js';
import { topicId } from '../../pipeline/enrich/topics.js';

// Cyrillic capitals that read "SCAM" beside a Latin name (security review 2026-12-01, finding 2).
const SCAM = '\u0405\u0421\u0410\u041c';

describe('facet ids (decision 33)', function () {
  it('gives names of other scripts ids of their own (Tokyo and Moscow are two topics), and Latin names the ids they had', function () {
    const names = new FacetNames('t');
    const ids = names.ids(['東京', 'Москва']);
    expect(ids).to.have.length(2);
    expect(ids.every((id) => /^t_~[0-9a-f]{8}$/.test(id))).to.equal(true);
    expect(
      names
        .records()
        .map((r) => r.name)
        .sort(),
    ).to.deep.equal(['Москва', '東京']);
    // Clients hold these: diacritics folded, a dropped Latin letter (ß) and fullwidth forms as before.
    expect(new FacetNames('p').ids(['John Smith', 'José Álvarez', 'Straße Ltd.', 'ｆｕｌｌ width'])).to.deep.equal([
      'p_john-smith',
      'p_jose-alvarez',
      'p_stra-e-ltd',
      'p_full-width',
    ]);
    expect(new FacetNames('t').ids(['Vaccines', 'vaccines', 'VACCINES'])).to.deep.equal(['t_vaccines']);
    // Channel slugs stay ASCII and unhashed: they are subdomains.
    expect(slugify('Москва FM')).to.equal('fm');
  });

  it('gives generated topics of other scripts ids of their own, and Latin keys the ids they had', function () {
    expect(topicId('東京 タワー')).to.not.equal(topicId('вакцина ложь'));
    expect(topicId('東京 タワー')).to.match(/^tp_g-~[0-9a-f]{8}$/);
    expect(topicId('Москва')).to.equal(topicId('москва'));
    expect(topicId('remote control')).to.equal('tp_g-remote-control');
    expect(topicId('café société')).to.equal('tp_g-cafe-societe');
  });

  it('tells a look-alike apart from the Latin name it imitates', function () {
    const [victim] = new FacetNames('p').ids(['John Smith']);
    const [mallory] = new FacetNames('p').ids([`John Smith (${SCAM})`]);
    expect(victim).to.equal('p_john-smith');
    expect(mallory).to.match(/^p_john-smith~[0-9a-f]{8}$/);
    expect(new FacetNames('t').ids([`Vaccines ${SCAM}`])[0]).to.not.equal('t_vaccines');
    // Spellings that differ in case only are one name, in any script.
    expect(new FacetNames('p').ids(['Иван Петров', 'ИВАН ПЕТРОВ', 'иван  петров'])).to.have.length(1);
  });

  it('keeps a Cyrillic surname in a generated person id, and Latin names the ids they had', function () {
    expect(nameSlug('Anna Петрова')).to.not.equal(nameSlug('Anna'));
    expect(nameSlug('Anna Петрова')).to.not.equal(nameSlug('Anna Иванова'));
    expect(nameSlug('Anna Петрова')).to.match(/^anna~[0-9a-f]{8}$/);
    expect(generatedId('person', nameSlug("Dr. Ana O'Neil"))).to.equal('pe_g-dr-ana-oneil');
    expect(nameSlug('Łukasz Müller')).to.equal('ukasz-muller');
    expect(nameSlug('...')).to.equal('');
  });

  it('never gives names with nothing left of them one shared id', function () {
    const ids = new FacetNames('t').ids(['!!!', '???', '٣']);
    expect(ids).to.have.length(3);
    expect(ids).to.not.include('t_channel');
  });
});
