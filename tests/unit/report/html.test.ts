import { describe, expect, it } from 'vitest';
import { buildWalkReport } from '../../../report/model.js';
import { esc, formatMs, renderReportHtml, shortId } from '../../../report/html.js';
import { FIXTURE_START, fixtureState } from '../../helpers/report-fixture.js';

describe('report page', () => {
  it('shortens long ids keeping the unit name and as much of the environment as fits', () => {
    expect(shortId('platform/eks')).toBe('platform/eks');
    expect(shortId('platform/modules/networking/a-deeply-nested/unit-010')).toBe('platform/…/a-deeply-nested/unit-010');
    const long = shortId('prod-eu-west-1-with-a-rather-long-environment-name/modules/x/unit-026');
    expect(long).toBe('prod-eu-west-1-with-a-rather-long-…/unit-026');
    expect(long.length).toBeLessThanOrEqual(44);
  });

  it('escapes what the state holds and formats durations', () => {
    expect(esc(`<a href="x">'&'</a>`)).toBe('&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;');
    expect([formatMs(950), formatMs(42_000), formatMs(185_000), formatMs(3_720_000)]).toEqual([
      '950 ms',
      '42 s',
      '3 m 05 s',
      '1 h 02 m',
    ]);
  });

  it('embeds nothing from elsewhere and no unescaped text from the state', () => {
    const state = fixtureState({ count: 20, parallelism: 3, fail: 'preprod/unit-001' });
    state.units['preprod/unit-001']!.error = '</script><script>alert(1)</script>';
    const html = renderReportHtml(buildWalkReport(state, { now: FIXTURE_START, live: false }));
    expect(html).not.toContain('<script>alert(1)');
    expect(html.match(/<script[ >]/g)).toHaveLength(2);
    expect(html).toContain("default-src 'none'");
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//);
  });

  it('draws a run in progress up to now: running bars, ready units waiting, "in progress"', () => {
    const state = fixtureState({ count: 30, parallelism: 2, cutAtMs: 300_000 });
    const model = buildWalkReport(state, { now: FIXTURE_START + 330_000, live: true });
    expect(model.run.in_progress).toBe(true);
    expect(model.makespan_ms).toBe(330_000);
    const html = renderReportHtml(model);
    expect(html).toContain('id="run-status">in progress<');
    expect(html.match(/class="bar s-running[^"]*live"/g)?.length).toBe(model.rows.filter((r) => r.running).length);
    expect(model.rows.some((r) => r.status === 'pending' && r.wait_ms !== undefined)).toBe(true);
  });
});
