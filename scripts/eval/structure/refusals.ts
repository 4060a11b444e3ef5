// Which labelled claims the claim rules of today refuse: every moment of labels.jsonl read again by standaloneClaim,
// counted by its label (citable or not). A rule that refuses more uncitable claims than citable ones helps before any
// new run is labelled. Run: npx tsx scripts/eval/structure/refusals.ts [--list]
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { standaloneClaim } from '../../../pipeline/enrich/moments.js';

interface MomentLabel {
  kind: string;
  key: string;
  text: string;
  citable?: boolean;
}

const file = fileURLToPath(new URL('./labels.jsonl', import.meta.url));
const list = process.argv.includes('--list');
const seen = new Set<string>();
const counts = { citableKept: 0, citableRefused: 0, uncitableKept: 0, uncitableRefused: 0 };
for (const line of readFileSync(file, 'utf8').split('\n')) {
  if (line.trim() === '') continue;
  const label = JSON.parse(line) as MomentLabel;
  if (label.kind !== 'moment' || seen.has(label.key)) continue;
  seen.add(label.key);
  const refused = standaloneClaim(label.text, 'en') === null;
  const name = `${label.citable ? 'citable' : 'uncitable'}${refused ? 'Refused' : 'Kept'}` as keyof typeof counts;
  counts[name]++;
  if (list && refused) console.log(`${label.citable ? 'citable  ' : 'uncitable'} refused: ${label.text}`);
}
const kept = counts.citableKept + counts.uncitableKept;
console.log(JSON.stringify({ ...counts, citableShareOfKept: kept === 0 ? null : Number((counts.citableKept / kept).toFixed(3)) }));
