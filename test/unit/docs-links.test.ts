// The contract lives in the clone: every Markdown link resolves to a file of the repository, and every "decision N" the code cites is in docs/spec/decisions.md.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, extname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Folders that are not the project's own text: dependencies and build output anywhere, the workbench's ignored output at the root. */
const SKIPPED = new Set(['node_modules', 'dist', 'workbench']);

/** Every file under `dir` (relative to the repository) whose extension is one of `exts`; hidden folders and {@link SKIPPED} left out. */
function filesUnder(dir: string, exts: readonly string[]): string[] {
  const out: string[] = [];
  const walk = (rel: string) => {
    for (const name of readdirSync(join(ROOT, rel))) {
      const child = rel ? `${rel}/${name}` : name;
      if (name.startsWith('.') || SKIPPED.has(name === 'workbench' ? child : name)) continue;
      const stat = statSync(join(ROOT, child));
      if (stat.isDirectory()) walk(child);
      else if (exts.includes(extname(name))) out.push(child);
    }
  };
  walk(dir);
  return out.sort();
}

/** Markdown with fenced blocks and code spans blanked out: a path quoted as code is not a link. */
export function withoutCode(markdown: string): string {
  return markdown.replace(/^( {0,3})(```|~~~)[^\n]*\n[\s\S]*?^\1\2[^\n]*$/gm, '').replace(/(`+)[^`\n]*?\1/g, '');
}

/** The targets of inline links and images, reference definitions and HTML `href`/`src` attributes. */
export function linkTargets(markdown: string): string[] {
  const text = withoutCode(markdown);
  const targets: string[] = [];
  for (const m of text.matchAll(/!?\[(?:[^\]\\]|\\.)*\]\(\s*(<[^>]*>|[^\s)]+)/g)) targets.push(m[1]!.replace(/^<|>$/g, ''));
  for (const m of text.matchAll(/^ {0,3}\[[^\]\n]+\]:[ \t]*(\S+)/gm)) targets.push(m[1]!);
  for (const m of text.matchAll(/\b(?:href|src)\s*=\s*"([^"]*)"/g)) targets.push(m[1]!);
  return targets;
}

/** Where a relative target points, as a path from the repository root (`..` first when outside); undefined for URLs and same-page anchors. */
export function resolveTarget(file: string, target: string): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('#') || target.startsWith('//')) return undefined;
  const path = decodeURIComponent(target.replace(/[?#].*$/, ''));
  const absolute = path.startsWith('/') ? join(ROOT, path) : resolve(ROOT, dirname(file), path);
  return relative(ROOT, absolute).split(sep).join('/');
}

const MARKDOWN = filesUnder('', ['.md']);

describe('docs: the contract inside the repository', function () {
  it('finds the Markdown of the repository, the spec among it', function () {
    expect(MARKDOWN).to.include.members([
      'README.md',
      'docs/api.md',
      'indexer/README.md',
      'docs/spec/creator-content-api.md',
      'docs/spec/decisions.md',
      'docs/spec/library-format.md',
    ]);
  });

  it('links every Markdown file only to files inside the clone that exist', function () {
    const bad: string[] = [];
    for (const file of MARKDOWN) {
      for (const target of linkTargets(readFileSync(join(ROOT, file), 'utf8'))) {
        const to = resolveTarget(file, target);
        if (to === undefined) continue;
        if (to === '..' || to.startsWith('../')) bad.push(`${file}: ${target} leaves the repository`);
        else if (!existsSync(join(ROOT, to))) bad.push(`${file}: ${target} names no file`);
      }
    }
    expect(bad).to.deep.equal([]);
  });

  it('names no copy of the spec outside the clone, in prose, code or comments', function () {
    const outside = ['..', 'shared', 'spec'].join('/');
    const naming = filesUnder('', ['.md', '.ts', '.tsx', '.js', '.cjs', '.mjs', '.json', '.yml', '.py']).filter((f) => readFileSync(join(ROOT, f), 'utf8').includes(outside));
    expect(naming).to.deep.equal([]);
  });

  it('numbers the decisions 1 to 28 as written, then the later ones built, and every "decision N" the code and docs cite is one of them', function () {
    const decisions = readFileSync(join(ROOT, 'docs/spec/decisions.md'), 'utf8').split(/^## Amendments/m)[0]!;
    const numbered = [...decisions.matchAll(/^(\d+)\. \*\*/gm)].map((m) => Number(m[1]));
    expect(numbered.slice(0, 28)).to.deep.equal(Array.from({ length: 28 }, (_, i) => i + 1));
    // Decisions after 28 are copied in as they are built, so their numbers may skip: each later one larger than the last.
    for (let i = 28; i < numbered.length; i++) expect(numbered[i], `decision after ${numbered[i - 1]}`).to.be.greaterThan(numbered[i - 1]!);
    const cited = new Map<number, string>();
    const sources = ['core', 'src', 'indexer', 'pipeline', 'scripts', 'test', 'docs'].flatMap((d) => filesUnder(d, ['.ts', '.tsx', '.md']));
    for (const file of [...sources, 'README.md']) {
      for (const m of readFileSync(join(ROOT, file), 'utf8').matchAll(/\bdecisions?\s+(\d+(?:\s*(?:,|and|or|–|-)\s*\d+)*)/gi)) {
        for (const n of m[1]!.match(/\d+/g)!) cited.set(Number(n), file);
      }
    }
    expect(cited.size, 'citations found').to.be.greaterThan(10);
    const unknown = [...cited].filter(([n]) => !numbered.includes(n)).map(([n, file]) => `decision ${n} (${file})`);
    expect(unknown).to.deep.equal([]);
  });
});

describe('docs links: reading a Markdown link', function () {
  it('reads inline links, images, reference definitions and HTML attributes, not code', function () {
    const md = [
      'See [the spec](docs/spec/decisions.md#amendments) and ![a shot](<docs/images/a b.png>).',
      '[ref]: ../outside.md',
      'A line ending in a bracket [load 6]:',
      '',
      '| table |',
      '<a href="../x.md">x</a> `[not](../code.md)`',
      '```',
      '[nor](../fenced.md)',
      '```',
    ].join('\n');
    expect(linkTargets(md)).to.deep.equal(['docs/spec/decisions.md#amendments', 'docs/images/a b.png', '../outside.md', '../x.md']);
  });

  it('resolves a target from its file, and tells URLs and anchors apart', function () {
    expect(resolveTarget('docs/api.md', 'spec/decisions.md#amendments')).to.equal('docs/spec/decisions.md');
    expect(resolveTarget('indexer/README.md', '../docs/spec/library-format.md')).to.equal('docs/spec/library-format.md');
    expect(resolveTarget('docs/api.md', '../../shared/reviews/design.md')).to.equal('../shared/reviews/design.md');
    expect(resolveTarget('README.md', 'https://example.org/x')).to.equal(undefined);
    expect(resolveTarget('README.md', '#two-commands')).to.equal(undefined);
  });
});
