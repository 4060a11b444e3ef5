// The shell blocks of a markdown file, as a reader copies them: each with its line, and the reason it is not run when
// an HTML comment right before its fence gives one (`<!-- not run: serves until Ctrl-C -->`).
import { readFileSync } from 'node:fs';

export interface CommandBlock {
  /** `README.md:135`: the fence's line. */
  where: string;
  script: string;
  /** Set when the block is marked not to be run; '' when the mark gives no reason. */
  notRun?: string;
}

const FENCE = /^```(sh|bash|shell|console)\s*$/;
const MARK = /^<!--\s*not run\b:?\s*(.*?)\s*-->\s*$/;

/** Every `sh`/`bash`/`shell` block of `file` (shown as `name`), in order. */
export function commandBlocks(file: string, name: string): CommandBlock[] {
  const lines = readFileSync(file, 'utf8').split('\n');
  const blocks: CommandBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (!FENCE.test(lines[i]!)) {
      // Another fenced block (json, yaml, plain): skip to its end, so its lines are never read as a fence.
      if (lines[i]!.startsWith('```')) while (++i < lines.length && !lines[i]!.startsWith('```'));
      continue;
    }
    const start = i;
    const body: string[] = [];
    while (++i < lines.length && !lines[i]!.startsWith('```')) body.push(lines[i]!);
    const mark = start > 0 ? MARK.exec(lines[start - 1]!) : null;
    blocks.push({ where: `${name}:${start + 1}`, script: body.join('\n'), ...(mark ? { notRun: mark[1] ?? '' } : {}) });
  }
  return blocks;
}

/** Marks that stand anywhere but right before a block's fence (a mark that would silently mark nothing). */
export function strayMarks(file: string, name: string): string[] {
  const lines = readFileSync(file, 'utf8').split('\n');
  return lines.flatMap((line, i) => (MARK.test(line) && !FENCE.test(lines[i + 1] ?? '') ? [`${name}:${i + 1}`] : []));
}
