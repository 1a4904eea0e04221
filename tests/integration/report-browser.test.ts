/**
 * `platctl report` in a real browser: Debian's chromium driven by playwright-core (no browser download). A run of
 * 120 units with a failure, skips, a recovered and an optional unit is written as HTML by the CLI, opened from disk,
 * and checked as drawn: a bar per unit that ran, the critical path, the failed unit's reason and a log link that
 * opens the log, no console error, nothing overlapping and no horizontal scrolling at 1280 px. The screenshots are
 * kept in test-artifacts/ (git-ignored).
 */
import { existsSync } from 'node:fs';
import { copyFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReportModel } from '../../report/model.js';
import { fixtureState } from '../helpers/report-fixture.js';
import { runCli } from '../helpers/run-cli.js';
import { tempDir } from '../helpers/temp.js';

const CHROMIUM = '/usr/bin/chromium';
const ARTIFACTS = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'test-artifacts');

function browserUnavailable(): string | undefined {
  if (existsSync(CHROMIUM)) return undefined;
  const reason = `${CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium)`;
  if (process.env.PLATCTL_REQUIRE_BROWSER === '1') throw new Error(`${reason}; PLATCTL_REQUIRE_BROWSER=1 requires it`);
  return reason;
}

const unavailable = browserUnavailable();

interface Layout {
  scroll: number;
  client: number;
  labels: { top: number; bottom: number; right: number; height: number; trackLeft: number; spill: number }[];
  bars: { left: number; right: number }[];
}
const FAILED = 'preprod/unit-013';

const CONFIG = `version: 1
environments:
  platform:
    dir: live/platform
  preprod:
    dir: live/preprod
  prod-eu-west-1-with-a-rather-long-environment-name:
    dir: live/prod
`;

describe.skipIf(unavailable !== undefined)(
  `platctl report in chromium${unavailable ? ` (skipped: ${unavailable})` : ''}`,
  { timeout: 120_000 },
  () => {
    let context: BrowserContext;
    let page: Page;
    const problems: string[] = [];
    let root: string;
    let model: ReportModel;

    beforeAll(async () => {
      root = await tempDir('platctl-report-browser-');
      await writeFile(join(root, '.platctl.yaml'), CONFIG);
      const state = fixtureState({ count: 120, parallelism: 6, fail: FAILED });
      await writeFile(join(root, '.platctl-state.json'), JSON.stringify(state));
      const log = state.units[FAILED]!.log!;
      await mkdir(dirname(join(root, log)), { recursive: true });
      await writeFile(join(root, log), 'Error: creating EKS Node Group: ResourceInUseException\n');
      // The report goes to a sub directory: its log links must lead back to the repository's logs.
      await mkdir(join(root, 'out'));
      const html = await runCli(['report', '--output', 'out/run.html'], { cwd: root });
      expect(html.stderr).toBe('');
      expect(html.code).toBe(0);
      expect(html.stdout.trim()).toBe(join(root, 'out', 'run.html'));
      const json = await runCli(['report', '--format', 'json'], { cwd: root });
      expect(json.code).toBe(0);
      model = JSON.parse(json.stdout) as ReportModel;

      const { chromium } = await import('playwright-core');
      context = await chromium.launchPersistentContext(join(root, 'chromium-profile'), {
        executablePath: CHROMIUM,
        headless: true,
        args: [
          '--headless',
          '--no-sandbox',
          '--disable-gpu',
          '--disable-quic',
          '--no-first-run',
          '--disable-background-networking',
          '--disable-component-update',
          '--disable-sync',
        ],
        viewport: { width: 1280, height: 900 },
      });
      page = context.pages()[0] ?? (await context.newPage());
      page.on('console', (message) => {
        if (message.type() === 'error') problems.push(`console: ${message.text()}`);
      });
      page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
      // Nothing may be fetched: the page is whole in itself.
      page.on('request', (request) => {
        if (!request.url().startsWith('file:')) problems.push(`request: ${request.url()}`);
      });
      await page.goto(pathToFileURL(join(root, 'out', 'run.html')).href);
      await page.waitForSelector('#rows .row');
    });

    afterAll(async () => {
      await context?.close();
    });

    it('draws a bar per unit that ran and a row for every unit', async () => {
      const ran = model.rows.filter((row) => row.start_ms !== undefined).map((row) => row.id);
      expect(ran.length).toBeGreaterThan(100);
      expect(await page.locator('#rows .row').count()).toBe(120);
      const bars = await page.evaluate<{ id: string; width: number }[]>(
        `[...document.querySelectorAll('#rows .bar[data-unit]')].map((el) => ({
          id: el.getAttribute('data-unit'),
          width: el.getBoundingClientRect().width,
        }))`,
      );
      expect(bars.map((bar) => bar.id).sort()).toEqual([...ran].sort());
      for (const bar of bars) expect(bar.width).toBeGreaterThanOrEqual(2);
      expect(await page.locator('#rows .waitbar').count()).toBeGreaterThan(0);
    });

    it('highlights the critical path and shows the lower bound beside the makespan', async () => {
      expect(model.critical_path.length).toBeGreaterThan(1);
      const critical = await page.evaluate<string[]>(
        `[...document.querySelectorAll('.bar.critical')].map((el) => el.getAttribute('data-unit'))`,
      );
      expect(critical.sort()).toEqual([...model.critical_path].sort());
      const outline = await page.evaluate<string>(
        `getComputedStyle(document.querySelector('.bar.critical')).outlineStyle`,
      );
      expect(outline).toBe('solid');
      expect(await page.locator('#makespan').textContent()).toMatch(/\d/);
      expect(await page.locator('#lower-bound').textContent()).toMatch(/\d/);
    });

    it("shows the failed unit's reason and a link that opens its log", async () => {
      const row = page.locator(`#problems tr[data-id="${FAILED}"]`);
      await expect(row.locator('.reason').textContent()).resolves.toContain(
        'exit-non-zero: exit code 1: Error: creating EKS Node Group: <ResourceInUseException> & "quotes"',
      );
      const href = await row.locator('a.log').getAttribute('href');
      const target = new URL(href!, page.url());
      expect(await readFile(fileURLToPath(target), 'utf8')).toContain('ResourceInUseException');
      // Skips name the failure they follow; the recovered and optional units are marked.
      expect(await page.locator('#problems tr.s-skipped').count()).toBe(model.counts.skipped);
      expect(await page.locator('#rows .badge.recovered').count()).toBe(1);
      expect(await page.locator('#rows .badge.optional').count()).toBe(1);
      expect(await page.locator('#rows .badge.slower').count()).toBeGreaterThanOrEqual(1);
    });

    it('has a readable layout at 1280 px: no overlap, no horizontal scrolling, no console error', async () => {
      // Page-side code as text: the tests compile without the DOM library.
      const layout = await page.evaluate<Layout>(`(() => {
        const doc = document.documentElement;
        const labels = [...document.querySelectorAll('#rows .row')].map((row) => {
          const cell = row.querySelector('.label');
          const label = cell.getBoundingClientRect();
          const track = row.querySelector('.track').getBoundingClientRect();
          // The right edge of the last thing drawn in the label (the id, then its badges).
          const right = Math.max(...[...cell.children].map((child) => child.getBoundingClientRect().right));
          return { top: label.top, bottom: label.bottom, right, height: label.height, trackLeft: track.left,
            spill: cell.scrollWidth - cell.clientWidth };
        });
        const bars = [...document.querySelectorAll('#rows .bar')].map((bar) => {
          const box = bar.getBoundingClientRect();
          const track = bar.parentElement.getBoundingClientRect();
          return { left: box.left - track.left, right: track.right - box.right };
        });
        return { scroll: doc.scrollWidth, client: doc.clientWidth, labels, bars };
      })()`);
      expect(layout.scroll).toBeLessThanOrEqual(layout.client);
      for (let i = 0; i < layout.labels.length; i += 1) {
        const label = layout.labels[i]!;
        expect(label.height).toBeGreaterThan(8);
        expect(label.right).toBeLessThanOrEqual(label.trackLeft + 0.5);
        expect(label.spill).toBeLessThanOrEqual(0);
        if (i > 0) expect(label.top).toBeGreaterThanOrEqual(layout.labels[i - 1]!.bottom - 0.5);
      }
      for (const bar of layout.bars) {
        expect(bar.left).toBeGreaterThanOrEqual(-0.5);
        expect(bar.right).toBeGreaterThanOrEqual(-1);
      }
      await mkdir(ARTIFACTS, { recursive: true });
      await page.screenshot({ path: join(ARTIFACTS, 'report-1280.png'), fullPage: true });
      await page.screenshot({ path: join(ARTIFACTS, 'report-1280-top.png') });
      await copyFile(join(root, 'out', 'run.html'), join(ARTIFACTS, 'report.html'));
      expect(problems).toEqual([]);
    });

    it('filters the timeline as one types', async () => {
      await page.fill('#filter', 'failed');
      expect(await page.locator('#rows .row:not(.hidden)').count()).toBe(1);
      await page.fill('#filter', '');
      expect(await page.locator('#rows .row:not(.hidden)').count()).toBe(120);
      expect(problems).toEqual([]);
    });
  },
);
