import { describe, expect, it } from 'vitest';
import { evaluateJson, standardFunctions, type Scope } from '../../../discover/hcl/index.js';

describe('performance', () => {
  it('parses (memoised) and evaluates a typical config_path in microseconds', () => {
    const scope: Scope = {
      variables: { local: { env: 'dev' } },
      functions: { ...standardFunctions(), find_in_parent_folders: (args) => `/repo/live/${args[0] as string}` },
    };
    const value = '${dirname(find_in_parent_folders("root.hcl"))}/${local.env}/vpc';
    expect(evaluateJson(value, scope)).toBe('/repo/live/dev/vpc');
    const runs = 20_000;
    const start = performance.now();
    for (let i = 0; i < runs; i++) evaluateJson(value, scope);
    const microseconds = ((performance.now() - start) * 1000) / runs;
    // About 1.3 µs on the development machine; the bound only catches a lost memo or an accidental O(n²).
    expect(microseconds).toBeLessThan(50);
  });
});
