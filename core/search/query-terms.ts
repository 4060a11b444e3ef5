// Bounds the words of a query before it reaches the engine, so no query text can exceed OpenSearch's clause limit.

/**
 * Most terms the keyword legs send. A `most_fields` match makes one clause per term and
 * field, and OpenSearch refuses a query of more than 1,024 clauses (`too_many_clauses`):
 * 330 short words over the five episode fields did. 64 terms × 5 fields is 320 clauses,
 * leaving room for filters and for analyzers that split a word in two; no question a
 * person types has 64 distinct words, and BM25 over more adds nothing but cost.
 */
export const MAX_QUERY_TERMS = 64;

/**
 * What the engine's standard tokenizer would make a term of, counted generously: a run of
 * letters, digits or `_` (with their combining marks); each CJK ideograph or kana alone (the tokenizer emits
 * them one by one); each pictographic symbol (emoji are tokens too). Over-counting only
 * bounds a little earlier; under-counting could let a query through that the engine refuses.
 */
const TERM = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]|\p{Extended_Pictographic}|[\p{L}\p{N}_][\p{L}\p{M}\p{N}_]*/gu;

/** The terms of `text` as the bound counts them, in order, repeats included. */
export function queryTerms(text: string): string[] {
  return text.match(TERM) ?? [];
}

/**
 * The query text the engine gets: `query` unchanged when it has at most `maxTerms`
 * distinct terms (the engine makes one clause per distinct term and field: a repeated
 * word costs nothing); otherwise its first `maxTerms` distinct terms (case-insensitive),
 * space-separated. Ordinary queries are never touched, so their ranking does not change.
 */
export function boundQueryTerms(query: string, maxTerms = MAX_QUERY_TERMS): string {
  const distinct = new Map<string, string>();
  for (const term of queryTerms(query)) {
    const key = term.toLowerCase();
    if (!distinct.has(key)) distinct.set(key, term);
  }
  if (distinct.size <= maxTerms) return query;
  return [...distinct.values()].slice(0, maxTerms).join(' ');
}
