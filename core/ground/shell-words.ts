// Text from outside (a snapshot's manifest, a feed's fields) made safe to show in a terminal and in a command line an
// operator copies: controls and direction overrides replaced, then quoted for a POSIX shell when it is not a plain word.

// C0 and C1 controls (ESC starts cursor moves and title changes), DEL, and the overrides that reorder a line.
// eslint-disable-next-line no-control-regex
const CONTROLS = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/** `text` with terminal controls (C0, DEL, C1) and bidirectional overrides replaced by U+FFFD. */
export const printable = (text: string): string => text.replace(CONTROLS, '\uFFFD');

/** Characters that a POSIX shell takes literally anywhere in a word. */
const PLAIN = /^[A-Za-z0-9_@%+=:,./-]+$/;

/** One shell word that reads back as `text` (controls replaced): as it is when plain, else in single quotes. */
export function shellWord(text: string): string {
  const shown = printable(text);
  return PLAIN.test(shown) ? shown : `'${shown.replace(/'/g, `'\\''`)}'`;
}
