#!/usr/bin/env node
// How long the whole lesson takes at the defaults (or at the settings of HASH), in headless Chromium as a student
// walks it (the built site, public/: scripts/build page): per step the seconds from committing a prediction to its
// judgement (training included), what the core measured, and the total. Information, not a test: the times depend on
// the machine and on what else it runs. Predicts the first choice (0 for a number) everywhere; "cannot tell yet" is
// reported as it comes, not retried.
//   node scripts/time_lesson.mjs ['#lesson=1'] [--shots DIR] [--width PX] [--kernels simd128]
// --kernels simd128: the workers train with mha.wasm, as in a browser without relaxed SIMD (web/js/kernels_module.js).
// --shots DIR saves each judged step as the student sees it: the lesson card (N-id-lesson.png) and the page at the
// step's panel (N-id-panel.png).
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { launchChromium } from './chromium.mjs';
import { judgedMark, predict, STEP_RUNS, trainStep } from './lesson_walk.mjs';
import { startServer } from './serve.mjs';

const args = process.argv.slice(2);
const option = (name) => { const i = args.indexOf(name); return i >= 0 ? args.splice(i, 2)[1] : null; };
const shots = option('--shots');
const width = Number(option('--width') ?? 1280);
const kernels = option('--kernels');
const hash = args[0] ?? '#lesson=1';
if (shots) mkdirSync(shots, { recursive: true });
const { server, url } = await startServer({ port: 0 });
const browser = await launchChromium({ viewport: { width, height: 900 } });
try {
  const p = await browser.context.newPage();
  await p.goto(url + hash);
  await p.waitForSelector('.lesson-step');
  if (kernels) await p.evaluate((k) => globalThis.mhaDebug.kernels(k), kernels);
  const ids = await p.$$eval('.lesson-nav button', (bs) => bs.length);
  let total = 0;
  for (let i = 0; i < ids; ++i) {
    const id = await p.getAttribute('.lesson-step', 'data-step');
    const choices = await p.$$eval(`input[name="lesson-${id}"]`, (xs) => xs.map((x) => /** @type {HTMLInputElement} */ (x).value));
    const t0 = Date.now();
    await predict(p, id, choices.length ? choices[0] : 0);
    if (STEP_RUNS[id]) await trainStep(p, id);
    const mark = await judgedMark(p);
    const seconds = (Date.now() - t0) / 1000;
    total += seconds;
    const evidence = (await p.textContent('.lesson-evidence').catch(() => '')) ?? '';
    console.log(`${String(i + 1).padStart(2)} ${id.padEnd(10)} ${seconds.toFixed(1).padStart(7)} s  ${mark.padEnd(9)} ${evidence}`);
    if (shots) {
      const name = `${i + 1}-${id}`;
      await p.locator('#lesson').screenshot({ path: join(shots, `${name}-lesson.png`) });
      const chart = p.locator('#panels .panel:not([hidden]) .chart, #panels .panel:not([hidden]) table').first();
      if (await chart.count()) await chart.scrollIntoViewIfNeeded();
      await p.screenshot({ path: join(shots, `${name}-panel.png`) });
    }
    if (i < ids - 1) await p.click('text=Next step');
  }
  console.log(`total ${total.toFixed(1)} s (${(total / 60).toFixed(1)} min) from the first commit to the last judgement, ${hash}`);
} finally {
  await browser.close();
  server.close();
}
