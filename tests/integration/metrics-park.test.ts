/**
 * `down`/`up --metrics-file` through the CLI against moto and the loopback Kubernetes API (the park fixture): the
 * written file, read back with Python's prometheus_client parser, says what the run did and knew.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { useAwsProxy } from '../helpers/aws-proxy.js';
import { useMoto } from '../helpers/moto.js';
import { useParkEnv } from '../helpers/park-env.js';
import { parkConfig } from '../helpers/park-fixture.js';
import { PROM_PARSER_MISSING, parseProm, sampleValue } from '../helpers/prom-parse.js';

describe.skipIf(PROM_PARSER_MISSING !== undefined)(
  `platctl down / up --metrics-file${PROM_PARSER_MISSING ? ` (skipped: ${PROM_PARSER_MISSING})` : ''}`,
  { timeout: 120_000 },
  () => {
    const moto = useMoto();
    const proxy = useAwsProxy(moto);
    const park = useParkEnv(moto, { prefix: 'platctl-park-metrics-', config: parkConfig(), proxy });
    const { cli } = park;
    beforeEach(() => {
      mkdirSync(join(park.root, 'textfile'));
    });

    const read = async (name: string) => parseProm(readFileSync(join(park.root, 'textfile', name), 'utf8'));

    it('down writes parked 1 and zero sizes; a refused down keeps the last success; up writes the restored sizes', async () => {
      const down = await cli(['down', '--env', 'platform', '--yes', '--metrics-file', 'textfile/down.prom']);
      expect(down.code).toBe(0);
      let samples = await read('down.prom');
      expect(sampleValue(samples, 'platctl_parked', { env: 'platform' })).toBe(1);
      expect(sampleValue(samples, 'platctl_nodegroup_desired', { env: 'platform', group: 'system' })).toBe(0);
      expect(sampleValue(samples, 'platctl_nodegroup_desired', { env: 'platform', group: 'workers' })).toBe(0);
      expect(sampleValue(samples, 'platctl_run_exit_code', { verb: 'down', env: 'platform' })).toBe(0);
      const took = sampleValue(samples, 'platctl_run_duration_seconds', { verb: 'down', result: 'success' });
      expect(took).toBeGreaterThan(0);
      const success = sampleValue(samples, 'platctl_run_last_success_timestamp_seconds', { verb: 'down' });
      expect(success).toBeGreaterThan(Date.now() / 1000 - 600);

      // Refused at preflight (exit 3): the environment is still parked, and the last success is the first down's.
      const refused = await cli(['down', '--yes', '--metrics-file', 'textfile/down.prom'], {
        AWS_CREDENTIAL_EXPIRATION: new Date(Date.now() - 60_000).toISOString(),
      });
      expect(refused.code).toBe(3);
      samples = await read('down.prom');
      expect(sampleValue(samples, 'platctl_run_exit_code', { verb: 'down', env: 'platform' })).toBe(3);
      expect(sampleValue(samples, 'platctl_run_duration_seconds', { result: 'refused' })).toBeGreaterThanOrEqual(0);
      expect(sampleValue(samples, 'platctl_run_duration_seconds', { result: 'success' })).toBeUndefined();
      expect(sampleValue(samples, 'platctl_run_last_success_timestamp_seconds', { env: 'platform' })).toBe(success);
      expect(sampleValue(samples, 'platctl_parked', { env: 'platform' })).toBe(1);

      const up = await cli(['up', '--env', 'platform', '--metrics-file', join(park.root, 'textfile', 'up.prom')]);
      expect(up.code).toBe(0);
      samples = await read('up.prom');
      expect(sampleValue(samples, 'platctl_parked', { env: 'platform' })).toBe(0);
      expect(sampleValue(samples, 'platctl_nodegroup_desired', { group: 'system' })).toBe(3);
      expect(sampleValue(samples, 'platctl_nodegroup_desired', { group: 'workers' })).toBe(2);
      expect(sampleValue(samples, 'platctl_run_exit_code', { verb: 'up', env: 'platform' })).toBe(0);
    });

    it('a directory that does not exist is refused before anything runs (exit 2)', async () => {
      const down = await cli(['down', '--yes', '--metrics-file', 'missing/down.prom']);
      expect(down.code).toBe(2);
      expect(down.stderr).toMatch(/^platctl: --metrics-file missing\/down\.prom: the directory .* does not exist/);
      expect(proxy.writes()).toEqual([]);
      expect(park.kube.writes()).toEqual([]);
    });

    it('--dry-run with --metrics-file is a usage error', async () => {
      const up = await cli(['up', '--dry-run', '--metrics-file', 'textfile/up.prom']);
      expect(up.code).toBe(2);
      expect(up.stderr).toContain('--metrics-file reports a run; --dry-run runs nothing');
    });
  },
);
