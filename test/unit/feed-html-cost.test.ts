// A feed's HTML descriptions are converted with options compiled once: a feed of tens of thousands of items must not
// hold the worker's event loop (security review 2026-11-27, item 5).
import { expect } from 'chai';
import { compile } from 'html-to-text';
import { feedSnapshot } from '../../pipeline/follow/feed-source.js';
import { htmlToText } from '../../importer/text.js';

const OPTIONS = {
  wordwrap: false as const,
  selectors: [
    { selector: 'a', options: { ignoreHref: true } },
    { selector: 'img', format: 'skip' },
  ],
};

function elapsedMs(run: () => void): number {
  const start = performance.now();
  run();
  return performance.now() - start;
}

describe('feed descriptions as plain text', function () {
  this.timeout(60_000);

  it('converts 2,000 short descriptions in less time than compiling the options 500 times', function () {
    // A ratio measured in one process, so a loaded machine slows both sides alike: with options compiled per call,
    // 2,000 conversions cost 2,000 compilations (4× the yardstick); compiled once, they cost a fraction of it.
    const html = Array.from({ length: 2000 }, (_, i) => `<p>Episode <b>${i}</b> &amp; <a href="https://x.example/${i}">notes</a></p>`);
    htmlToText(html[0]!);
    const conversions = elapsedMs(() => html.forEach((h) => htmlToText(h)));
    const compilations = elapsedMs(() => {
      for (let i = 0; i < 500; i++) compile(OPTIONS);
    });
    expect(conversions, `2,000 conversions ${Math.round(conversions)} ms vs 500 compilations ${Math.round(compilations)} ms`).to.be.below(compilations);
  });

  it('gives empty text for empty and blank HTML, and still converts what is there', function () {
    expect(htmlToText('')).to.equal('');
    expect(htmlToText(' \n ')).to.equal('');
    expect(htmlToText('<p>Hello&nbsp;<b>world</b> <a href="https://x.example/">link</a><img src="https://x.example/i.png"></p>')).to.equal('Hello world link');
  });

  it('reads a feed of 20,000 items without descriptions in less time than 5,000 compilations of the options', function () {
    const items = Array.from(
      { length: 20_000 },
      (_, i) => `<item><title>E ${i}</title><guid>g-${i}</guid><pubDate>Mon, 05 Jan 2026 10:00:00 GMT</pubDate><description></description></item>`,
    ).join('');
    const xml = `<?xml version="1.0"?><rss version="2.0"><channel><title>Big</title><link>https://big.example/</link>${items}</channel></rss>`;
    let count = 0;
    const reading = elapsedMs(() => {
      count = feedSnapshot(xml, { slug: 'big', feedUrl: 'https://big.example/feed' }).items.length;
    });
    const compilations = elapsedMs(() => {
      for (let i = 0; i < 5000; i++) compile(OPTIONS);
    });
    expect(count).to.equal(20_000);
    expect(reading, `20,000 items ${Math.round(reading)} ms vs 5,000 compilations ${Math.round(compilations)} ms`).to.be.below(compilations);
  });
});
