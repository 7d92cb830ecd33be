// SPDX-License-Identifier: GPL-2.0
// flamegraph-browser.js SVG APP FUNCTION [PNG]: opens a flame graph
// written by sleepy-parse --flamegraph in headless Chromium (Playwright)
// and uses it as a person would: clicks APP's frame, clicks Reset Zoom,
// searches for FUNCTION; PNG gets a screenshot of the result.  Prints what it saw as KEY=VALUE lines; exits non-zero if the
// page could not be driven.
'use strict';
const { chromium } = require('playwright-core');

async function main([svg, app, fn, png]) {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--no-sandbox'],
  });
  const page = await browser.newPage({ viewport: { width: 1220, height: 400 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto('file://' + svg);
  const width = (name) =>
    page.locator(`g.f[data-n="${name}"] rect`).first().getAttribute('width');
  const shown = () => page.evaluate(() =>
    Array.from(document.querySelectorAll('g.f')).filter((g) => g.style.display !== 'none').length);
  const out = { frames: await shown(), app_width: await width(app), fn_width: await width(fn) };
  await page.locator(`g.f[data-n="${app}"]`).first().click();
  out.zoomed_app_width = await width(app);
  out.zoomed_fn_width = await width(fn);
  out.zoomed_frames = await shown();
  out.unzoom_opacity = await page.evaluate(() => document.getElementById('unzoom').style.opacity);
  await page.locator('#unzoom').click();
  out.reset_app_width = await width(app);
  page.once('dialog', (d) => d.accept(fn));
  await page.locator('#search').click();
  out.matched = (await page.locator('#matched').textContent()).replace(/[^0-9.]/g, '');
  out.highlighted = await page.evaluate(() =>
    Array.from(document.querySelectorAll('g.f rect')).filter((r) => r.getAttribute('fill') === 'rgb(230,0,230)').length);
  out.errors = errors.length;
  if (png) await page.screenshot({ path: png });
  await browser.close();
  for (const [k, v] of Object.entries(out)) console.log(`${k}=${v}`);
}

main(process.argv.slice(2)).catch((e) => { console.error(String(e)); process.exit(1); });
