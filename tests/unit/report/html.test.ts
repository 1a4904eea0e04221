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
});
