// The page's first script (index.html), a classic script in a file: the page has no inline script, so it runs
// under a strict Content-Security-Policy (README, "Embedding in a course page"). It does two things:
// 1. loads the page's code: the ES modules normally; on a page with an opaque origin (<iframe sandbox=
//    "allow-scripts">, file://), where the browser refuses module scripts without CORS headers, the same code
//    bundled as classic scripts (web/bundle.mjs);
// 2. says why the page cannot start, instead of "Loading the WebAssembly core…" forever: this browser lacks
//    WebAssembly or its SIMD, a security policy blocked a script or the wasm, a file could not be fetched, workers
//    are unavailable, or the core is just slow to arrive. main.js reports through self.mhaLoader: ready() once the
//    core is loaded, failed(error) when loading it threw.
// Written for old browsers too (no ?., no ??): the one that cannot run the page must still read why.
(function () {
  'use strict';

  const SETTINGS = {
    patienceMs: 10000,  // no core by then and no cause found yet: say so (and keep waiting)
  };

  // the browsers whose WebAssembly has SIMD (the core is compiled with -msimd128)
  const BROWSERS = 'Chrome or Edge 91 or later, Firefox 89 or later, or Safari 16.4 or later';

  // a module whose one function uses SIMD (i32.const 0; i8x16.splat; i8x16.popcnt): valid only where the final
  // SIMD proposal is implemented (the bytes of wasm-feature-detect's simd test)
  const SIMD_MODULE = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 10, 1, 8, 0,
    65, 0, 253, 15, 253, 98, 11]);

  const status = document.getElementById('load-status');
  const violations = [];     // securitypolicyviolation events of this document, until the core is loaded
  const unfetched = [];      // our scripts that did not load
  let settled = false;       // ready() or a final failure: nothing more to say
  let workers = true;        // whether this page may start Web Workers (the training panels need them)

  // ---------------------------------------------------------------- what the page says
  const CANNOT = 'The page cannot start.';

  // replaces the status line with: what is wrong in bold (lead), the sentence naming the cause, and what to do
  // (each a string, or a list of strings and elements)
  function show(cause, lead, sentence, advice) {
    document.documentElement.dataset.loadProblem = cause;
    status.textContent = '';
    const what = document.createElement('strong');
    what.textContent = lead;
    status.append(what, ' ', ...[].concat(sentence), ' ', ...[].concat(advice));
    status.setAttribute('role', 'alert');
    status.classList.remove('loading');
    status.classList.add('alert', 'load-problem');
    status.hidden = false;
    // panels that will never fill in are noise under the sentence
    const panels = document.getElementById('panels');
    if (panels) panels.hidden = lead === CANNOT;
  }

  function noSimd() {
    show('simd', CANNOT, 'This browser lacks WebAssembly SIMD, which the page’s core is compiled with.',
      `Open the page in ${BROWSERS}.`);
  }

  function noWasm() {
    show('wasm', CANNOT,
      'This browser does not run WebAssembly (it is missing, or switched off by a security setting).',
      `Open the page in ${BROWSERS}, with WebAssembly allowed.`);
  }

  function noWorkers() {
    show('workers', 'Training cannot start.', 'This browser does not let the page start Web Workers, which train ' +
      'the models: the training panels (4 to 7) cannot run here, the others work.',
      'Allow workers for this site (a privacy setting or an extension may block them), or open the page in ' +
      `${BROWSERS}.`);
  }

  // what a violation blocked, in words
  function blockedThing(e) {
    const uri = e.blockedURI || '';
    if (uri === 'wasm-eval') return 'compiling WebAssembly';
    if (uri === 'eval') return 'code built from text (eval)';
    if (uri === 'inline') return 'an inline script or style';
    try {
      return `loading ${new URL(uri).pathname}`;
    } catch (err) {
      return uri ? `loading ${uri}` : 'a request';
    }
  }

  function code(text) {
    const c = document.createElement('code');
    c.textContent = text;
    return c;
  }

  function blockedByPolicy(e) {
    const what = e ? [` refused ${blockedThing(e)} under `, code(e.effectiveDirective || e.violatedDirective), '.']
      : [' refused the WebAssembly core.'];
    show('csp', CANNOT, ['A security policy of this site (its Content-Security-Policy)', ...what],
      ['The page needs at least ', code("script-src 'self' 'wasm-unsafe-eval'"), ', ', code("worker-src 'self' blob:"),
        ' and ', code("connect-src 'self'"), ': ask whoever runs the site to allow these, or open the page from a ' +
        'host without that policy.']);
  }

  function notFetched(file, why) {
    show('fetch', CANNOT, `${file} could not be fetched from the server (${why}).`,
      'Check the connection and reload; if it stays, the site may be incomplete (scripts/build wasm writes that ' +
      'file) or a server or content blocker refuses it.');
  }

  // ---------------------------------------------------------------- checks
  function hasWasm() {
    return typeof WebAssembly === 'object' && typeof WebAssembly.validate === 'function' &&
      typeof WebAssembly.instantiate === 'function';
  }

  function hasSimd() {
    try {
      return WebAssembly.validate(SIMD_MODULE) === true;
    } catch (err) {
      return false;
    }
  }

  // starts a worker from an empty script and stops it at once: whether `new Worker` works here at all
  function canStartWorkers() {
    if (typeof Worker !== 'function') return false;
    let url = '';
    try {
      url = URL.createObjectURL(new Blob([''], { type: 'text/javascript' }));
      new Worker(url).terminate();
      return true;
    } catch (err) {
      return false;
    } finally {
      if (url) setTimeout(() => URL.revokeObjectURL(url), 0);
    }
  }

  // why the core did not load, as far as the page can tell; error: what loading threw, or null when it is only slow
  function diagnose(error) {
    if (settled) return;
    const message = String((error && error.message) || error || '');
    if (violations.length > 0) return blockedByPolicy(violations[0]);
    if (/Content.Security.Policy|unsafe-eval/i.test(message)) return blockedByPolicy(null);
    if (unfetched.length > 0) return notFetched(unfetched[0], 'the request failed');
    if (/CompileError|SIMD/i.test(message) && !hasSimd()) return noSimd();
    const wasm = new URL('./build/mha.wasm', document.baseURI).href;
    const probe = self.origin === 'null' || !error
      ? Promise.resolve(null)   // an opaque origin may not fetch (the wasm is inside mha.classic.js there)
      : fetch(wasm, { method: 'HEAD', cache: 'no-store' }).then(
        (r) => (r.ok ? null : `HTTP ${r.status}`), () => 'a network error');
    return probe.then((why) => {
      if (settled) return;
      if (why) return notFetched('The WebAssembly core (build/mha.wasm)', why);
      if (!error) {
        show('slow', 'The page has not started yet.',
          `The WebAssembly core has not arrived after ${SETTINGS.patienceMs / 1000} seconds.`,
          'On a slow connection it may still come (about 0.6 MB); if this stays, reload the page.');
        return;
      }
      show('other', CANNOT, `The WebAssembly core could not be started (${message || 'no reason given'}).`,
        `Reload the page; if this stays, open it in ${BROWSERS}.`);
    });
  }

  // ---------------------------------------------------------------- what main.js calls
  let patience = 0;

  self.mhaLoader = {
    /** the core is loaded: the status line goes (or says that training cannot start) */
    ready() {
      settled = true;
      clearTimeout(patience);
      delete document.documentElement.dataset.loadProblem;
      if (workers) status.hidden = true;
      else noWorkers();
    },
    /** loading the core threw: say why, as far as the page can tell */
    failed(error) {
      clearTimeout(patience);
      // a violation event may arrive just after the failure it caused: look once the queue has run
      setTimeout(() => {
        Promise.resolve(diagnose(error || new Error('no reason given'))).then(() => { settled = true; });
      }, 0);
    },
  };

  // ---------------------------------------------------------------- start
  document.addEventListener('securitypolicyviolation', (e) => { if (!settled) violations.push(e); });
  status.textContent = 'Loading the WebAssembly core…';   // drops the no-script note (style.css)

  if (!hasWasm()) return noWasm();
  if (!hasSimd()) return noSimd();
  workers = canStartWorkers();

  const classic = self.origin === 'null';
  // from file:// also the worker bundle as a function: the training workers are built from its source there
  const fromDisk = location.protocol === 'file:' ? ['./build/js/worker.source.js'] : [];
  const files = classic ? ['./build/vendor/uPlot.iife.min.js', './build/mha.classic.js', ...fromDisk, './build/js/page.classic.js']
    : ['./build/js/main.js'];
  for (const src of files) {
    const s = document.createElement('script');
    if (!classic) s.type = 'module';
    s.src = src;
    s.async = false;
    s.addEventListener('error', () => {
      unfetched.push(`The page’s script ${src.replace('./', '')}`);
      self.mhaLoader.failed(new Error(`${src} did not load`));
    });
    document.head.append(s);
  }
  patience = setTimeout(() => diagnose(null), SETTINGS.patienceMs);
})();
