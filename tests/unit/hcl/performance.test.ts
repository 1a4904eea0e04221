import { describe, expect, it } from 'vitest';
import {
  evaluateJson,
  parseExpression,
  parseTemplate,
  standardFunctions,
  type Scope,
} from '../../../discover/hcl/index.js';

// How fast evaluation is lives in bench/discovery (numbers, not timed tests: this machine is shared and noisy). What
// keeps it fast is that each distinct expression is parsed once however often discovery evaluates it: that is
// checked here, without a clock.
describe('performance', () => {
  it('parses a typical config_path once and evaluates it again from the memo', () => {
    const scope: Scope = {
      variables: { local: { env: 'dev' } },
      functions: { ...standardFunctions(), find_in_parent_folders: (args) => `/repo/live/${args[0] as string}` },
    };
    const value = '${dirname(find_in_parent_folders("root.hcl"))}/${local.env}/vpc';
    const first = parseTemplate(value);
    expect(evaluateJson(value, scope)).toBe('/repo/live/dev/vpc');
    expect(evaluateJson(value, { ...scope, variables: { local: { env: 'prod' } } })).toBe('/repo/live/prod/vpc');
    // The very same tree, not an equal one: the second parse was answered from the memo.
    expect(parseTemplate(value)).toBe(first);
    const expression = 'dirname(local.root)';
    expect(parseExpression(expression)).toBe(parseExpression(expression));
  });
});
