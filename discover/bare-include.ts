/**
 * A bare `include { ... }` beside a labelled `include "env" { ... }` in one file is valid HCL, and Terragrunt merges
 * both; hcl2json cannot write that mix as JSON ("Unable to convert Block to JSON: include.env") and fails the
 * whole file. For exactly that failure the file is parsed again with the bare include given the empty label `""`,
 * which is how discovery names a bare include anyway (see unit-config.ts). Nothing moves to another line, so every
 * position stays right.
 */
import { outline } from './hcl/outline.js';

/** hcl2json's message for a file mixing labelled and unlabelled blocks of one type, here `include`. */
export const MIXED_INCLUDE_FAILURE = /Unable to convert Block to JSON: include\b/;

/** The file with each top-level bare `include` block labelled `""`, or undefined when it has none. */
export function labelBareIncludes(content: string): string | undefined {
  const bare = outline(content).filter((b) => b.type === 'include' && b.labels.length === 0);
  if (bare.length === 0) return undefined;
  const lines = content.split('\n');
  for (const block of bare) {
    const text = lines[block.line - 1];
    const at = block.column - 1 + 'include'.length;
    if (text === undefined || text.slice(block.column - 1, at) !== 'include') return undefined;
    lines[block.line - 1] = `${text.slice(0, at)} ""${text.slice(at)}`;
  }
  return lines.join('\n');
}
