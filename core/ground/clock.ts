// A time offset as people read it in players and citations: `m:ss`, or `h:mm:ss` from an hour on.

/** `65000` → `1:05`, `3600000` → `1:00:00`; negative offsets read as `0:00`. */
export function clock(ms: number): string {
  const total = Math.max(0, Math.floor(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  const two = (n: number) => String(n).padStart(2, '0');
  return h > 0 ? `${h}:${two(m)}:${two(s)}` : `${m}:${two(s)}`;
}
