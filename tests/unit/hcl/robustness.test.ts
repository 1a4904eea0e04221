/**
 * Malformed input must produce parse errors or best-effort outlines, never exceptions: truncate realistic
 * sources at every offset and feed each piece to the parser, the template parser and the outline scanner.
 */
import { describe, expect, it } from 'vitest';
import {
  HclEvalError,
  evaluateJsonSafe,
  outline,
  parseExpression,
  parseTemplate,
} from '../../../discover/hcl/index.js';
import { scopeOf } from './helpers.js';

const expression =
  '{ a = [for k, v in local.m : "${k}-%{ if v ~}x%{ else }y%{ endif }" if v != null]\n' +
  '  b = try(local.x[*].y, <<-EOT\n    text ${upper("q\\"")}\n    EOT\n  ), c: (local.k) ? -1.5e3 : !false }';

const file = `include "root" {\n  path = find_in_parent_folders("root.hcl")\n}\nlocals {\n  s = "a \${b} }{"\n  h = <<EOT\nx }\nEOT\n}\ndependency "vpc" {\n  config_path = "../vpc" # c\n}\n`;

describe('truncated input', () => {
  it('parseExpression returns a result for every prefix', () => {
    expect(parseExpression(expression).ok).toBe(true);
    for (let end = 0; end < expression.length; end++) {
      const result = parseExpression(expression.slice(0, end));
      if (!result.ok) expect(result.error.offset).toBeLessThanOrEqual(end);
    }
  });

  it('parseTemplate and evaluateJsonSafe return results for every prefix', () => {
    const template = '${dirname(find("x"))}/%{ for v in local.l }${v}%{ endfor }/$${lit}';
    const scope = scopeOf({ local: { l: ['a'] } }, { find: () => '/r/x' });
    for (let end = 0; end <= template.length; end++) {
      parseTemplate(template.slice(0, end));
      const result = evaluateJsonSafe(template.slice(0, end), scope);
      if (!result.ok) expect(result.error).toBeInstanceOf(HclEvalError);
    }
  });

  it('outline never throws and finds complete blocks before the cut', () => {
    expect(outline(file).map((b) => b.type)).toEqual(['include', 'locals', 'dependency']);
    for (let end = 0; end <= file.length; end++) {
      const blocks = outline(file.slice(0, end));
      if (end >= file.indexOf('locals')) expect(blocks[0]?.type).toBe('include');
    }
  });
});
