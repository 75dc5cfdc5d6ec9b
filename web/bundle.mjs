#!/usr/bin/env node
// Bundles the page's ES modules into classic scripts, for pages with an opaque origin (a sandboxed iframe or
// file://), where the browser refuses module scripts, module workers and fetch() of our own files without CORS
// headers. Our modules keep to a small subset that this handles without a parser:
//   import { a, b as c } from './x.js';      named imports of our own modules (relative paths)
//   import createMha from '../mha.js';         default imports only of the two globals below
//   export function f / export async function f / export class C / export const X
//   no top-level await, no cycles; import.meta.url becomes the URL the page passes in (MHA_SCRIPT_URL)
// Writes <out>/js/page.classic.js (from main.js), <out>/js/worker.classic.js (from worker.js), <out>/corpus.js and
// copies uPlot's classic build to <out>/vendor/.
//   node web/bundle.mjs web/js public/build public/data/corpus.txt node_modules/uplot/dist/uPlot.iife.min.js
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';

const [srcDir, outDir, corpusPath, uplotIife] = process.argv.slice(2);
if (!srcDir || !outDir) {
  console.error('usage: node bundle.mjs <js source dir> <site build dir> [corpus.txt] [uPlot.iife.min.js]');
  process.exit(2);
}

// default imports that are globals in the classic page (the classic wasm build and uPlot's iife)
const GLOBALS = { 'mha.js': 'self.createMha', 'vendor/uPlot.esm.js': 'self.uPlot' };

const IMPORT_RE = /^import\s+(?:(\w+)|\{([^}]*)\})\s+from\s+'([^']+)';\s*$/gm;
const EXPORT_RE = /^export\s+(async\s+function|function|class|const|let)\s+(\w+)/gm;

// where `from`, imported by js/<file>, lives relative to the site build dir: 'js/engine.js', 'mha.js', ...
function siteRelative(file, from) {
  return normalize(join('js', dirname(file), from));
}

function bundle(entry) {
  const order = [];
  const seen = new Set();
  const sources = new Map();
  // depth-first: dependencies before the modules that import them
  function visit(file, chain) {
    if (seen.has(file)) return;
    if (chain.includes(file)) throw new Error(`import cycle: ${[...chain, file].join(' -> ')}`);
    const text = readFileSync(join(srcDir, file), 'utf8');
    for (const m of text.matchAll(IMPORT_RE)) {
      const site = siteRelative(file, m[3]);
      if (GLOBALS[site]) continue;
      if (!site.startsWith('js/')) throw new Error(`${file}: '${m[3]}' is outside js/ and not a known global`);
      visit(site.slice(3), [...chain, file]);
    }
    seen.add(file);
    sources.set(file, text);
    order.push(file);
  }
  visit(entry, []);
  const parts = ['(function () {', "'use strict';",
    'const __meta = { url: (self.document && document.currentScript && document.currentScript.src) || self.MHA_SCRIPT_URL };',
    'const __modules = {};'];
  for (const file of order) {
    let text = sources.get(file);
    const exported = [...text.matchAll(EXPORT_RE)].map((m) => m[2]);
    text = text.replace(IMPORT_RE, (_, def, named, from) => {
      const global = GLOBALS[siteRelative(file, from)];
      if (def) {
        if (!global) throw new Error(`${file}: default import of '${from}' is not supported`);
        return `const ${def} = ${global};`;
      }
      if (global) throw new Error(`${file}: named import from the global '${from}'`);
      const target = siteRelative(file, from).slice(3);
      const names = named.split(',').map((s) => s.trim()).filter(Boolean)
        .map((s) => s.replace(/^(\w+)\s+as\s+(\w+)$/, '$1: $2')).join(', ');
      return `const { ${names} } = __modules[${JSON.stringify(target)}];`;
    });
    text = text.replace(EXPORT_RE, (m, kind, name) => `${kind} ${name}`).replaceAll('import.meta.url', '__meta.url');
    if (/^\s*(import|export)\s/m.test(text)) throw new Error(`${file}: an import or export this bundler does not understand`);
    parts.push(`// ---------------------------------------------------------------- ${file}`,
      `__modules[${JSON.stringify(file)}] = (function () {`, text, `return { ${exported.join(', ')} };`, '})();');
  }
  parts.push('})();', '');
  return parts.join('\n');
}

mkdirSync(join(outDir, 'js'), { recursive: true });
writeFileSync(join(outDir, 'js', 'page.classic.js'), bundle('main.js'));
writeFileSync(join(outDir, 'js', 'worker.classic.js'), bundle('worker.js'));
// the same worker bundle as a function a page can hold: from file:// a blob worker may not importScripts() a file,
// so the page builds the worker's script from this function's source (runs.js spawnWorker)
writeFileSync(join(outDir, 'js', 'worker.source.js'), `self.mhaWorkerBundle = function () {\n${bundle('worker.js')}};\n`);
if (corpusPath && existsSync(corpusPath))
  writeFileSync(join(outDir, 'corpus.js'), `self.MHA_CORPUS_TEXT = ${JSON.stringify(readFileSync(corpusPath, 'utf8'))};\n`);
if (uplotIife && existsSync(uplotIife)) {
  mkdirSync(join(outDir, 'vendor'), { recursive: true });
  copyFileSync(uplotIife, join(outDir, 'vendor', 'uPlot.iife.min.js'));
}
