// SPDX-License-Identifier: GPL-2.0
// speedscope-browser.js SPEEDSCOPE_DIR PROFILE_JSON FUNCTION [PNG]: opens a
// profile written by sleepy-parse --speedscope in the speedscope viewer
// (its release files from npm, served from here over HTTP as speedscope.app
// serves them) in headless Chromium, and looks at what it shows: the
// profile's name, and in the Sandwich view (a DOM table, unlike the flame
// chart's canvas) the row of FUNCTION.  PNG gets a screenshot.  Prints
// KEY=VALUE lines; exits non-zero if the page could not be driven.
'use strict';
const fs = require('fs');
const http = require('http');
const path = require('path');
const { chromium } = require('playwright-core');

const types = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css',
  '.json': 'application/json', '.wasm': 'application/wasm', '.png': 'image/png',
  '.woff2': 'font/woff2' };

function serve(root, profile) {
  const server = http.createServer((req, res) => {
    const url = decodeURIComponent(req.url.split(/[?#]/)[0]);
    const file = url === '/profile.json' ? profile :
      path.join(root, path.normalize(url === '/' ? '/index.html' : url));
    fs.readFile(file, (err, data) => {
      if (err) { res.writeHead(404); res.end(); return; }
      res.writeHead(200, { 'Content-Type': types[path.extname(file)] || 'application/octet-stream' });
      res.end(data);
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

async function main([root, profile, fn, png]) {
  const server = await serve(root, profile);
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--no-sandbox', '--use-gl=swiftshader', '--enable-unsafe-swiftshader'],
  });
  const page = await browser.newPage({ viewport: { width: 1200, height: 600 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  const base = `http://127.0.0.1:${server.address().port}`;
  await page.goto(`${base}/index.html#profileURL=${encodeURIComponent(base + '/profile.json')}`);
  const out = {};
  // The view tabs appear once the profile is loaded and parsed.
  const sandwich = page.getByText('Sandwich').first();
  await sandwich.waitFor({ timeout: 60000 });
  out.profile = (await page.locator('body').innerText()).match(/\S+ \(\d+\/\d+\)/)?.[0]?.replace(/ /g, '_');
  await sandwich.click();
  await page.getByText('Symbol Name').first().waitFor({ timeout: 30000 });
  // Rows: total, self, name; heaviest first.
  const rows = (await page.locator('body').innerText()).split('Symbol Name')[1]
    .split('\n').map((l) => l.trim()).filter((l) => l);
  out.top_symbol = rows[2];
  out.top_self = rows[1]?.replace(/ .*/, '');
  out.function_shown = await page.getByText(fn, { exact: true }).count();
  out.errors = errors.length;
  for (const e of errors) console.error(e);
  if (png) await page.screenshot({ path: png });
  await browser.close();
  server.close();
  for (const [k, v] of Object.entries(out)) console.log(`${k}=${v}`);
}

main(process.argv.slice(2)).catch((e) => { console.error(String(e)); process.exit(1); });
