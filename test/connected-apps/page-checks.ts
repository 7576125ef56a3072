/**
 * What every page of the demo host must pass in a real browser, at a desktop (1280×800) and a
 * phone (390×844) size: no axe-core violation (WCAG AA contrast among them), and no sideways
 * scrolling. Used by test/browser/admin-pages.test.ts and test/browser/connected-apps.test.ts.
 */
import { existsSync } from 'node:fs';

import { AxeBuilder } from '@axe-core/playwright';
import { chromium } from 'playwright-core';
import type { Browser, Page } from 'playwright-core';

export const VIEWPORTS = [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
] as const;

const executablePath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(executablePath)) {
    throw new Error(`Chromium not found at ${executablePath}: apt-get install chromium, or set CHROMIUM_PATH`);
  }
  return chromium.launch({
    executablePath,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
}

export interface PageFinding {
  readonly page: string;
  readonly viewport: string;
  readonly problem: string;
}

/**
 * Runs axe and the overflow check on the page as it is now, at each viewport; returns what
 * failed (empty when all is well), each finding naming the page, the size and the rule.
 */
export async function checkPage(page: Page, name: string): Promise<PageFinding[]> {
  const findings: PageFinding[] = [];
  for (const size of VIEWPORTS) {
    await page.setViewportSize(size);
    const viewport = `${size.width}×${size.height}`;
    const { violations } = await new AxeBuilder({ page }).analyze();
    for (const v of violations) {
      findings.push({ page: name, viewport, problem: `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})` });
    }
    const { scrollWidth, clientWidth } = await page.evaluate(() => ({
      scrollWidth: document.documentElement.scrollWidth, clientWidth: document.documentElement.clientWidth,
    }));
    if (scrollWidth > clientWidth) findings.push({ page: name, viewport, problem: `scrolls sideways: ${scrollWidth}px wide in ${clientWidth}px` });
  }
  return findings;
}

/** Collects the console's CSP complaints of a page (the pages must need no script and no foreign style). */
export function watchCsp(page: Page): string[] {
  const seen: string[] = [];
  page.on('console', (m) => {
    if (/Content Security Policy|Refused/i.test(m.text())) seen.push(m.text());
  });
  return seen;
}
