import { afterEach, describe, expect, it } from 'vitest';
import { HclParserPool } from '../../../discover/hcl2json.js';
import type { ParseRequest } from '../../../discover/hcl2json.js';

const pools: HclParserPool[] = [];
afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.close()));
});

function pool(size: number): HclParserPool {
  const created = new HclParserPool(size);
  pools.push(created);
  return created;
}

function units(count: number): ParseRequest[] {
  return Array.from({ length: count }, (_, i) => ({
    file: `/repo/u${i}/terragrunt.hcl`,
    content: `dependency "vpc" {\n  config_path = "../vpc-${i}"\n}\ninputs = { n = ${i} }\n`,
  }));
}

describe('HclParserPool', () => {
  it('starts workers ahead of use with warm(), never more than its size', async () => {
    const parser = pool(2);
    expect(parser.running).toBe(0);
    parser.warm(1);
    expect(parser.running).toBe(1);
    parser.warm();
    parser.warm(5);
    expect(parser.running).toBe(2);
    const out = await parser.parseAll(units(40));
    expect(out.size).toBe(40);
    expect(parser.running).toBe(2);
  });

  it('keeps to one worker after limit(1), however many batches there are', async () => {
    const parser = pool(2);
    parser.warm(1);
    parser.limit(1);
    const out = await parser.parseAll(units(64));
    expect(parser.running).toBe(1);
    expect(out.get('/repo/u63/terragrunt.hcl')).toEqual({
      ok: true,
      json: { dependency: { vpc: [{ config_path: '../vpc-63' }] }, inputs: { n: 63 } },
    });
  });

  it('gives each file of a batch its own result, and a malformed one its own error and line', async () => {
    const parser = pool(1);
    const requests = units(20);
    requests[5] = { file: '/repo/broken/terragrunt.hcl', content: 'locals {\n  a = \n}\n' };
    const out = await parser.parseAll(requests);
    expect(out.size).toBe(20);
    const broken = out.get('/repo/broken/terragrunt.hcl');
    expect(broken?.ok).toBe(false);
    if (broken && !broken.ok) {
      expect(broken.location).toMatchObject({ file: '/repo/broken/terragrunt.hcl', line: 2 });
      expect(broken.message).not.toBe('');
    }
    for (const [file, outcome] of out) if (file !== '/repo/broken/terragrunt.hcl') expect(outcome.ok).toBe(true);
  });
});
