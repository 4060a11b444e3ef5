// Which analyzer reads a channel's words: the language table, the per-language sub-fields of the mappings, and the field a query in a language targets.
import type { IndexDefinition, IndexName } from './index-names.js';

/** LANGUAGES' default: the languages analysed with their own analyzer when the setting is unset. */
export const DEFAULT_LANGUAGES: readonly string[] = ['en', 'es', 'de', 'fr', 'pt', 'it', 'nl'];

/**
 * OpenSearch's built-in language analyzers by BCP 47 primary subtag (each checked with
 * `_analyze` on the engine we provision). Chinese, Japanese and Korean share `cjk` (bigrams).
 */
export const BUILTIN_ANALYZERS: Readonly<Record<string, string>> = Object.freeze({
  ar: 'arabic',
  hy: 'armenian',
  eu: 'basque',
  bn: 'bengali',
  bg: 'bulgarian',
  ca: 'catalan',
  zh: 'cjk',
  ja: 'cjk',
  ko: 'cjk',
  cs: 'czech',
  da: 'danish',
  nl: 'dutch',
  en: 'english',
  et: 'estonian',
  fi: 'finnish',
  fr: 'french',
  gl: 'galician',
  de: 'german',
  el: 'greek',
  hi: 'hindi',
  hu: 'hungarian',
  id: 'indonesian',
  ga: 'irish',
  it: 'italian',
  lv: 'latvian',
  lt: 'lithuanian',
  no: 'norwegian',
  nb: 'norwegian',
  nn: 'norwegian',
  fa: 'persian',
  pt: 'portuguese',
  ro: 'romanian',
  ru: 'russian',
  ckb: 'sorani',
  es: 'spanish',
  sv: 'swedish',
  tr: 'turkish',
  th: 'thai',
});

/** Sub-field of every language field holding the fallback analysis (languages not configured, or with no built-in analyzer). */
export const FALLBACK_FIELD = 'standard';
/** The fallback when the ICU plugin is provisioned: standard tokens, folded (case, accents, width) by `icu_folding`. */
export const ICU_FALLBACK_ANALYZER = 'standard_icu_folded';

/**
 * Fields analysed per language, by index. The base field keeps the `english` analyzer it always had (English
 * channels search it exactly as before); each configured language adds a sub-field `<field>.<subtag>`.
 * `mainSpeakers` has none: names are not stemmed in any language, and its mapping stays as it is.
 */
export const LANGUAGE_FIELDS: Readonly<Partial<Record<IndexName, readonly string[]>>> = Object.freeze({
  passages: ['text', 'chapterTitle', 'generatedContext'],
  episodes: ['title', 'summary', 'description', 'chapterTitles', 'momentTitles'],
  transcripts: ['speech'],
});

/** A language tag's primary subtag (`es` of `es-MX`, `pt` of `pt_BR`), lower case; undefined when blank. */
export function primarySubtag(tag: string | null | undefined): string | undefined {
  return tag?.trim().toLowerCase().split(/[-_]/)[0] || undefined;
}

/** How the words of one language are analysed. */
export interface LanguageAnalysis {
  /** The primary subtag analysed (`en` when the library names none). */
  language: string;
  /** The analyzer that reads it: a built-in language analyzer, or `standard` for the fallback. */
  analyzer: string;
  /** Sub-field suffix the keyword leg targets: `''` for English (the base fields), the subtag, or {@link FALLBACK_FIELD}. */
  suffix: string;
  /** True when the language has no analyzer of its own here (not in LANGUAGES, or none built in). */
  fallback: boolean;
}

/** The sub-field suffixes an index gets for `languages`: each configured language with a built-in analyzer (English aside), then the fallback. */
export function analysedLanguages(languages: readonly string[] = DEFAULT_LANGUAGES): string[] {
  return [...new Set(languages.map(primarySubtag).filter((l): l is string => !!l && l !== 'en' && BUILTIN_ANALYZERS[l] !== undefined))];
}

/**
 * How `tag` (a channel's or an episode's `language`; absent means `en`) is analysed under `languages`.
 * English is always the base fields, whatever LANGUAGES says: today's English ranking never moves.
 */
export function analysisOf(tag: string | null | undefined, { languages = DEFAULT_LANGUAGES }: { languages?: readonly string[] } = {}): LanguageAnalysis {
  const language = primarySubtag(tag) ?? 'en';
  if (language === 'en') return { language, analyzer: 'english', suffix: '', fallback: false };
  if (analysedLanguages(languages).includes(language)) return { language, analyzer: BUILTIN_ANALYZERS[language]!, suffix: language, fallback: false };
  return { language, analyzer: 'standard', suffix: FALLBACK_FIELD, fallback: true };
}

/**
 * `fields` (with their `^boost`s) as the keyword leg targets them for `analysis`: unchanged for English,
 * else each field that has language sub-fields moved to its sub-field (`title^3` → `title.es^3`); a field
 * without any (`mainSpeakers`) is left out, since its English analysis would match the language's stop words.
 */
export function languageFields(fields: readonly string[], analysis: Pick<LanguageAnalysis, 'suffix'>): string[] {
  if (analysis.suffix === '') return [...fields];
  const analysed = new Set(Object.values(LANGUAGE_FIELDS).flat());
  return fields.flatMap((f) => {
    const [name = f, boost] = f.split('^');
    return analysed.has(name) ? [`${name}.${analysis.suffix}${boost === undefined ? '' : `^${boost}`}`] : [];
  });
}

/**
 * The definition of `name` with a sub-field per analysed language on each of its {@link LANGUAGE_FIELDS} and the
 * fallback sub-field (ICU-folded when `icu`, with its analyzer declared in the settings). Other indices, and every
 * other field, are returned as read.
 */
export function withLanguageFields(
  name: IndexName,
  def: IndexDefinition,
  { languages = DEFAULT_LANGUAGES, icu = false }: { languages?: readonly string[]; icu?: boolean } = {},
): IndexDefinition {
  const fields = LANGUAGE_FIELDS[name];
  if (!fields) return def;
  const subFields = languageSubFields(languages, { icu });
  const properties = { ...def.mappings.properties };
  for (const field of fields) {
    const base = properties[field] as { fields?: Record<string, unknown> } | undefined;
    if (base) properties[field] = { ...base, fields: { ...base.fields, ...subFields } };
  }
  const settings = icu ? withIcuAnalyzer(def.settings) : def.settings;
  return { ...def, settings, mappings: { ...def.mappings, properties } };
}

/** The language sub-fields of one field, by suffix. */
export function languageSubFields(languages: readonly string[], { icu = false }: { icu?: boolean } = {}): Record<string, { type: 'text'; analyzer: string }> {
  const own = analysedLanguages(languages).map((l) => [l, { type: 'text' as const, analyzer: BUILTIN_ANALYZERS[l]! }] as const);
  return Object.fromEntries([...own, [FALLBACK_FIELD, { type: 'text' as const, analyzer: icu ? ICU_FALLBACK_ANALYZER : 'standard' }]]);
}

function withIcuAnalyzer(settings: Record<string, unknown>): Record<string, unknown> {
  const analysis = (settings.analysis ?? {}) as { analyzer?: Record<string, unknown> };
  return {
    ...settings,
    analysis: { ...analysis, analyzer: { ...analysis.analyzer, [ICU_FALLBACK_ANALYZER]: { type: 'custom', tokenizer: 'standard', filter: ['icu_folding'] } } },
  };
}
