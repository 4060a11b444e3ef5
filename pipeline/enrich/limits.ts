// The one set of limits on generated text, whoever writes it (the local method or a language model): a chapter title
// at most 40 characters (Spotify's advice for chapter titles; YouTube's chapters read the same), a claim at most 200
// (one sentence a page shows whole).
export const GENERATED_TEXT_LIMITS = Object.freeze({
  titleMinChars: 3,
  titleMaxChars: 40,
  claimMinChars: 12,
  claimMaxChars: 200,
});
