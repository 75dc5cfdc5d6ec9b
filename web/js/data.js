// The shipped corpus, from the page's own origin. A normal page fetches data/corpus.txt; a page with an opaque
// origin (a sandboxed iframe, file://) may not fetch even its own files, so there it loads build/corpus.js, a
// classic script with the same text. No DOM beyond that one <script> element.

/** @type {Promise<string> | null} */
let loading = null;

/**
 * True when the page runs with an opaque origin ("null"): module workers and fetch() of our files are refused.
 * @returns {boolean}
 */
export function opaqueOrigin() {
  return self.origin === 'null';
}

/**
 * The shipped corpus (KJV excerpt, public domain), loaded once.
 * @returns {Promise<string>} its UTF-8 text
 */
export function loadCorpus() {
  if (!loading) {
    const fromScript = () => new Promise((ok, fail) => {
      if (typeof self.MHA_CORPUS_TEXT === 'string') return ok(self.MHA_CORPUS_TEXT);
      const s = document.createElement('script');
      s.src = new URL('../corpus.js', import.meta.url).href;
      s.onload = () => (typeof self.MHA_CORPUS_TEXT === 'string' ? ok(self.MHA_CORPUS_TEXT) : fail(new Error('corpus.js held no text')));
      s.onerror = () => fail(new Error('the corpus could not be loaded'));
      document.head.append(s);
    });
    loading = opaqueOrigin()
      ? fromScript()
      : fetch(new URL('../../data/corpus.txt', import.meta.url)).then((r) => {
        if (!r.ok) throw new Error(`the corpus could not be loaded (HTTP ${r.status})`);
        return r.text();
      }).catch(() => fromScript());
    loading.catch(() => { loading = null; });
  }
  return loading;
}

/**
 * UTF-8 size of a text in bytes (what the core's text limit, constants().limits.maxTextBytes, counts).
 * @param {string} text
 * @returns {number}
 */
export function utf8Bytes(text) {
  return new TextEncoder().encode(text).length;
}
