// The one set of limits on generated text, whoever writes it (the local method or a language model): a chapter title
// at most 40 characters (Spotify's advice for chapter titles; YouTube's chapters read the same), a claim at most 200
// (one sentence a page shows whole). A language model may write a title of up to 60 characters, cut at a word's end to
// 40 when it is used: held to 40 by its grammar, the small local model stopped mid-phrase and its answers were refused.
export const GENERATED_TEXT_LIMITS = Object.freeze({
  titleMinChars: 3,
  titleMaxChars: 40,
  modelTitleMaxChars: 60,
  claimMinChars: 12,
  claimMaxChars: 200,
});
