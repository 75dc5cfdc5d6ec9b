// Runs that survive the page: every finished run and the latest snapshot of every running one, kept in this browser's
// IndexedDB and given back to their panel after a reload. A record holds what Run.toSaved() gives (settings, curves,
// head traces, sample, status, and the model bytes: the weights snapshots for scrubbing, the last of them its final
// weights, and lastFull, weights with the AdamW state and the step, to continue from or, for a finished run, to
// come back at the step it was trained to; kept as Blobs, see below) under the id `panel:key`; a
// panel's plan (the comparison's head counts or variants and seeds, the runs still queued) is one more record, and
// each training text is kept once, by content. No DOM in this file.
//
// The size cap and what goes first. The store holds at most CAP_BYTES (100 MB). A tiny-char model's weights are
// about 0.43 MB (1.3 MB with the AdamW state): a finished 300-step heads run with its 11 scrubbing snapshots and its
// final full state takes about 6 MB, so the default comparison (36 runs) goes over the cap and its older runs lose
// their scrubbing snapshots (tests/browser/persist.test.mjs measures one run). When a save would go over the cap:
//   1. scrubbing snapshots go: the oldest-saved run first, all but its last weights (a finished run keeps its final
//      weights, so Look inside still works; only the slider's earlier steps are lost), run by run;
//   2. then whole finished runs, the oldest-saved first;
//   3. then whole paused (was training) runs, the oldest-saved first.
// A run that does not fit alone is not kept.
//
// One tab owns a panel's kept runs: the tab that saved or took them back last (a record `owner:panel`). A tab is
// known by an id in its sessionStorage, which a reload keeps, and holds a Web Lock of that name while it is open; a
// page takes back a panel's runs unless their owner is another tab that is still open (two tabs never train the same
// kept run, and a second tab opens empty).
//
// Where IndexedDB is missing or refused (a sandboxed frame without its own origin, some browsers from file://,
// private mode, storage switched off or full), openRunStore resolves to a store whose `reason` says why, and the
// page works as before without keeping anything.
import { pageCosts } from './costs.js';
import { RUN_EVENT } from './protocol.js';

/** The most the store holds, in bytes. */
export const CAP_BYTES = 100 * 1024 * 1024;

const SETTINGS = {
  dbName: 'mha-sandbox-runs',
  version: 1,
  openMs: 5000,        // a browser that has not opened the database by then keeps nothing (the page goes on)
  // a training run is saved at most this often (on its snapshots); done, blow-ups and a paused run's last snapshot at
  // once. A save copies the whole run (its snapshots: a few MB): every 2 s, the saves of the heads comparison took 16%
  // of a core on the main thread, taken from the two workers of a 2-core machine (a DevTools profile, issue 33);
  // a reload loses the training since the last save: up to this long, and the steps between its snapshots before that
  saveEveryMs: 10_000,
};

// ---------------------------------------------------------------- sizes and the eviction rule (pure)

/**
 * About how many bytes a value takes in the store: typed arrays and Blobs by their length, strings 2 bytes per
 * character, numbers 8, objects and arrays the sum of their parts.
 * @param {any} v
 * @returns {number}
 */
export function sizeOf(v) {
  if (v === null || v === undefined) return 0;
  if (v instanceof Blob) return v.size;
  if (ArrayBuffer.isView(v)) return v.byteLength;
  if (v instanceof ArrayBuffer) return v.byteLength;
  if (typeof v === 'string') return 2 * v.length;
  if (typeof v !== 'object') return 8;
  let n = 0;
  if (Array.isArray(v)) for (const x of v) n += sizeOf(x);
  else for (const k of Object.keys(v)) n += 2 * k.length + sizeOf(v[k]);
  return n;
}

/**
 * A run record with only its last weights snapshot (rule 1): a copy, the original untouched.
 * @template {{run: {snapshots: {step: number, bytes: Uint8Array}[]}}} R
 * @param {R} record
 * @returns {R & {bytes: number}} the copy, bytes: its size now
 */
export function thinRecord(record) {
  const snaps = record.run.snapshots;
  const run = { ...record.run, snapshots: snaps.length ? [snaps[snaps.length - 1]] : [] };
  return { ...record, run, bytes: sizeOf(run) };
}

/**
 * What to do so that the store holds at most cap bytes, by the rule at the top of this file.
 * @param {{id: string, savedAt: number, status: string, bytes: number, thinBytes: number}[]} entries
 *   one per run record: its status ('done' or 'paused', as Run.toSaved keeps it), its size now, and its size with
 *   only its last weights snapshot (thinBytes <= bytes)
 * @param {number} cap bytes
 * @param {number} [other] bytes the store holds besides the run records (plans, texts)
 * @returns {{id: string, action: 'thin'|'drop'}[]} in order; empty when everything fits
 */
export function evictionPlan(entries, cap, other = 0) {
  let total = other + entries.reduce((t, e) => t + e.bytes, 0);
  /** @type {{id: string, action: 'thin'|'drop'}[]} */
  const actions = [];
  const oldestFirst = [...entries].sort((a, b) => a.savedAt - b.savedAt);
  for (const e of oldestFirst) {
    if (total <= cap) return actions;
    if (e.thinBytes < e.bytes) {
      actions.push({ id: e.id, action: 'thin' });
      total -= e.bytes - e.thinBytes;
    }
  }
  for (const status of ['done', 'paused']) {
    for (const e of oldestFirst.filter((x) => x.status === status)) {
      if (total <= cap) return actions;
      actions.push({ id: e.id, action: 'drop' });
      total -= Math.min(e.bytes, e.thinBytes);
    }
  }
  return actions;
}

// ---------------------------------------------------------------- the model bytes, kept as Blobs
// A record's weights (snapshots[].bytes and lastFull.bytes: about 6 MB for a default heads run) are kept as Blobs,
// not as the Uint8Arrays the page holds. IndexedDB serializes a Uint8Array on the main thread when it is put, and
// gives a new one back, on the main thread again, when a record is read (the cap's thinning reads a whole run to
// rewrite it without its snapshots): in Chromium 156 a 6 MB run record took 80 to 115 ms of the main thread to put
// and 45 to 67 ms to read, against about 45 ms to make its Blobs once and 1.4 ms to put those (a /tmp driver, issue
// 33), and a Blob read back is a handle until its bytes are asked for. In the heads comparison the main thread of a
// 2-core machine was busy 39 to 45 s with the Uint8Arrays, 29 to 34 s with the Blobs (scripts/bench_page.mjs, runs
// interleaved: docs/experiments.md, "Runs kept in the browser: what they cost").
// Each snapshot's Blob is made once, at its first save (a training run is saved again and again, its earlier
// snapshots unchanged), and forgotten once its run is saved done (the Blobs' bytes are held by the browser while the
// page holds them).
/** @type {WeakMap<Uint8Array, Blob>} */
const blobOf = new WeakMap();

/**
 * @param {Uint8Array<ArrayBuffer> | Blob} bytes a model's bytes (the worker's, never on a shared buffer), or a Blob
 * @returns {Blob}
 */
function asBlob(bytes) {
  if (!(bytes instanceof Uint8Array)) return bytes;
  let blob = blobOf.get(bytes);
  if (!blob) blobOf.set(bytes, blob = new Blob([bytes]));
  return blob;
}

// run (Run.toSaved() without its text) with its model bytes as Blobs: a copy, the run untouched
function withBlobs(run) {
  return { ...run, snapshots: run.snapshots.map((s) => ({ ...s, bytes: asBlob(s.bytes) })),
    lastFull: run.lastFull && { ...run.lastFull, bytes: asBlob(run.lastFull.bytes) } };
}

const bytesOf = async (b) => (b instanceof Blob ? new Uint8Array(await b.arrayBuffer()) : b);

// a stored run with its model bytes as Uint8Arrays again (a record kept before they were Blobs has them already)
async function withBytes(run) {
  const snapshots = await Promise.all(run.snapshots.map(async (s) => ({ ...s, bytes: await bytesOf(s.bytes) })));
  const lastFull = run.lastFull && { ...run.lastFull, bytes: await bytesOf(run.lastFull.bytes) };
  return { ...run, snapshots, lastFull };
}

// a cheap fingerprint of a text (FNV-1a over its UTF-16 units, and its length): the id of its record
function textId(text) {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; ++i) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return `text:${text.length}:${h.toString(16)}`;
}

// ---------------------------------------------------------------- this tab
// the tab's id (kept by a reload, not by a new tab), and its Web Lock, held while this page is open
function tabId() {
  let id = '';
  try {
    id = sessionStorage.getItem('mha-sandbox-tab') ?? '';
    if (!id) sessionStorage.setItem('mha-sandbox-tab', id = `tab-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`);
  } catch {
    id = `tab-${Math.random().toString(36).slice(2)}`;  // no sessionStorage here: this page alone
  }
  return id;
}

// the ids of the other tabs open now (their locks), or none where the browser has no Web Locks
async function otherTabs(own) {
  try {
    // held until the page goes (a refusal only means other tabs cannot see this one)
    navigator.locks.request(`mha-sandbox:${own}`, () => new Promise(() => {})).catch(() => {});
    const { held = [], pending = [] } = await navigator.locks.query();
    return new Set([...held, ...pending].map((l) => l.name).filter((n) => n.startsWith('mha-sandbox:tab-') && n !== `mha-sandbox:${own}`)
      .map((n) => n.slice('mha-sandbox:'.length)));
  } catch {
    return new Set();
  }
}

// ---------------------------------------------------------------- IndexedDB

const request = (r) => new Promise((ok, fail) => {
  r.onsuccess = () => ok(r.result);
  r.onerror = () => fail(r.error);
});

// one transaction on the 'runs' object store; resolves when it is committed
function transact(db, mode, work) {
  return new Promise((ok, fail) => {
    const tx = db.transaction('runs', mode);
    const result = work(tx.objectStore('runs'));
    tx.oncomplete = () => ok(result);
    tx.onabort = tx.onerror = () => fail(tx.error);
  });
}

// a refusal in the user's terms: why runs will not be kept
function refusal(err) {
  const name = err?.name ?? '';
  if (name === 'QuotaExceededError') return "this browser's storage for the page is full";
  if (name === 'SecurityError' || self.origin === 'null') {
    return 'the page has no storage of its own here (a sandboxed frame without allow-same-origin, or opened from a file)';
  }
  return `the browser refused storage (private browsing or site data switched off?${err?.message ? ` ${err.message}` : ''})`;
}

/**
 * The store, or one that keeps nothing and says why (reason).
 * @returns {Promise<RunStore>}
 */
export async function openRunStore() {
  try {
    if (typeof indexedDB === 'undefined' || !indexedDB) return new RunStore(null, 'this browser has no IndexedDB');
    const open = indexedDB.open(SETTINGS.dbName, SETTINGS.version);
    open.onupgradeneeded = () => open.result.createObjectStore('runs', { keyPath: 'id' });
    const late = new Promise((_, fail) => setTimeout(() => fail(new Error('it did not open in time.')), SETTINGS.openMs));
    const db = await Promise.race([request(open), late]);
    const store = new RunStore(db, '');
    store.tab = tabId();
    store.otherTabs = await otherTabs(store.tab);
    await store.loadIndex();
    return store;
  } catch (err) {
    return new RunStore(null, refusal(err));
  }
}

/**
 * The records in IndexedDB and an index of their sizes (kept in memory, for the cap). Every write goes through
 * here; a failed write sets `reason` and the store keeps nothing more.
 */
export class RunStore {
  constructor(db, reason) {
    this.db = db;
    /** why nothing is kept ('' while the store works) */
    this.reason = reason;
    /** @type {Map<string, IndexEntry>} */
    this.index = new Map();
    this.queue = Promise.resolve();  // writes, one after the other
    this.tab = '';                   // this tab's id, and those of the other tabs open when the page loaded
    this.otherTabs = new Set();
    this.kept = [];                  // every record as the page found it at start-up
    this.onChange = () => {};
  }

  get ok() { return !!this.db && !this.reason; }

  // reads every record once at start-up: the index, and what the panels take back (load)
  async loadIndex() {
    const all = await transact(this.db, 'readonly', (s) => request(s.getAll()));
    this.kept = await all;
    this.index.clear();
    for (const r of this.kept) this.index.set(r.id, entryOf(r));
  }

  /**
   * @returns {{runs: number, bytes: number, elsewhere: number}} the run records kept, the bytes of every record, and
   *   how many of those runs belong to another tab of this page that is open now (this tab did not take them back)
   */
  summary() {
    let runs = 0, bytes = 0, elsewhere = 0;
    for (const e of this.index.values()) {
      if (e.kind === 'run') {
        runs += 1;
        if (this.otherTabs.has(this.index.get(`owner:${e.panel}`)?.tab)) elsewhere += 1;
      }
      bytes += e.bytes;
    }
    return { runs, bytes, elsewhere };
  }

  /**
   * Every record of a panel, with its run's text put back (record.run.text); none when another open tab owns them.
   * Taking them makes this tab their owner.
   * @param {string} panel
   * @returns {Promise<object[]>}
   */
  async load(panel) {
    if (!this.ok) return [];
    try {
      const owner = this.index.get(`owner:${panel}`);
      if (owner && this.otherTabs.has(owner.tab)) return [];
      this.claim(panel);
      const records = this.kept;
      const texts = new Map(records.filter((r) => r.kind === 'text').map((r) => [r.id, r.text]));
      const back = await Promise.all(records.filter((r) => r.panel === panel).map(async (r) => {
        if (r.kind !== 'run') return r;
        try {
          return { ...r, run: { ...await withBytes(r.run), text: texts.get(r.textId) ?? '' } };
        } catch {
          return null;  // its bytes are gone (the browser cleared them): this run is not taken back
        }
      }));
      return back.filter((r) => r !== null);
    } catch (err) {
      this.#refused(err);
      return [];
    }
  }

  /**
   * Keeps a run (record.run from Run.toSaved(), its text kept once by content), then applies the cap.
   * @param {{id: string, panel: string, key: string, run: object}} record key: the Run's
   */
  putRun(record) {
    return this.#write(async () => {
      // the main thread's part of a save (its size, the text's id, the structured clone in put), for the page's tally
      // (costs.js): the write itself is the browser's, off this thread
      const { text, ...saved } = record.run;
      const [tid, run, bytes] = pageCosts.timed('store', () => {
        const kept = withBlobs(saved);
        return [textId(text ?? ''), kept, sizeOf(kept)];
      });
      const r = { ...record, kind: 'run', savedAt: Date.now(), textId: tid, run, bytes };
      /** @type {object[]} the run, and its text when the store does not hold it yet */
      const writes = [r];
      if (!this.index.has(tid)) writes.push({ id: tid, kind: 'text', panel: '', savedAt: r.savedAt, text: text ?? '', bytes: sizeOf(text ?? '') });
      await transact(this.db, 'readwrite', (s) => pageCosts.timed('store', () => { for (const w of writes) s.put(w); }));
      for (const w of writes) this.index.set(w.id, entryOf(w));
      // a finished run is seldom saved again (one taken back after a reload is, and makes its Blobs anew): its Blobs
      // are the store's alone now
      if (saved.status === 'done') for (const b of [...saved.snapshots, saved.lastFull]) if (b) blobOf.delete(b.bytes);
      await this.#applyCap();
    });
  }

  /** Keeps a panel's plan (small), or removes it with null. */
  putPlan(panel, plan) {
    const id = `${panel}:plan`;
    return this.#write(async () => {
      if (plan === null) {
        await transact(this.db, 'readwrite', (s) => s.delete(id));
        this.index.delete(id);
        return;
      }
      const r = { id, kind: 'plan', panel, savedAt: Date.now(), plan, bytes: sizeOf(plan) };
      await transact(this.db, 'readwrite', (s) => s.put(r));
      this.index.set(id, entryOf(r));
    });
  }

  /** Makes this tab the owner of a panel's kept runs (a small record). */
  claim(panel) {
    const id = `owner:${panel}`;
    if (this.index.get(id)?.tab === this.tab) return Promise.resolve();
    return this.#write(async () => {
      const r = { id, kind: 'owner', panel: '', savedAt: Date.now(), tab: this.tab, bytes: 0 };
      await transact(this.db, 'readwrite', (s) => s.put(r));
      this.index.set(id, entryOf(r));
    });
  }

  /** Removes records by id (and the texts no run uses any more). */
  remove(ids) {
    return this.#write(() => this.#delete(ids));
  }

  /**
   * Removes every record of a panel, or of every panel with null, except the records named in `except`.
   * @param {string|null} [panel]
   * @param {string[]} [except] record ids
   */
  forget(panel = null, except = []) {
    const keep = new Set(except);
    return this.#write(() => this.#delete([...this.index.values()]
      .filter((e) => (panel === null || e.panel === panel) && !keep.has(e.id)).map((e) => e.id)));
  }

  async #delete(ids) {
    for (const id of ids) this.index.delete(id);
    const used = new Set([...this.index.values()].map((e) => e.textId).filter(Boolean));
    const unused = [...this.index.values()].filter((e) => e.kind === 'text' && !used.has(e.id)).map((e) => e.id);
    for (const id of unused) this.index.delete(id);
    await transact(this.db, 'readwrite', (s) => { for (const id of [...ids, ...unused]) s.delete(id); });
  }

  async #applyCap() {
    const runs = [...this.index.values()].filter((e) => e.kind === 'run');
    const other = [...this.index.values()].filter((e) => e.kind !== 'run').reduce((t, e) => t + e.bytes, 0);
    const actions = evictionPlan(runs, CAP_BYTES, other);
    const drops = actions.filter((a) => a.action === 'drop').map((a) => a.id);
    for (const { id } of actions.filter((a) => a.action === 'thin' && !drops.includes(a.id))) {
      const r = await transact(this.db, 'readonly', (s) => request(s.get(id)));
      const record = await r;
      if (!record) continue;
      const thinned = thinRecord(record);
      await transact(this.db, 'readwrite', (s) => s.put(thinned));
      this.index.set(id, entryOf(thinned));
    }
    if (drops.length) await this.#delete(drops);
  }

  // writes run one after the other; none throws: a refusal (quota, a closed database) ends keeping
  #write(work) {
    if (!this.ok) return Promise.resolve();
    this.queue = this.queue.then(work).catch((err) => this.#refused(err)).then(() => this.onChange());
    return this.queue;
  }

  #refused(err) {
    this.reason = refusal(err);
    this.onChange();
  }
}

/**
 * @typedef {{id: string, kind: 'run'|'text'|'plan'|'owner', panel: string, savedAt: number, status: string,
 *            bytes: number, thinBytes: number, textId?: string, tab?: string}} IndexEntry
 *   one record in the store's index: status the run's ('' for the other kinds), textId a run's text, tab an owner's
 */

/**
 * @param {any} r a record as the store holds it
 * @returns {IndexEntry}
 */
function entryOf(r) {
  const e = { id: r.id, kind: r.kind, panel: r.panel, savedAt: r.savedAt, status: r.run?.status ?? '', bytes: r.bytes ?? 0,
    thinBytes: r.bytes ?? 0, textId: r.textId, tab: r.tab };
  if (r.kind === 'run') e.thinBytes = r.run.snapshots.length > 1 ? thinRecord(r).bytes : r.bytes;
  return e;
}

// ---------------------------------------------------------------- keeping the page's runs

/** @param {string} panel @param {string} key @returns {string} the id of a panel's run in the store */
const runId = (panel, key) => `${panel}:${key}`;

/**
 * Saves the runs of the panels as they train: a panel passes its runs' event handler through watch(panel, onEvent),
 * and every snapshot (at most every saveEveryMs per run), done and blow-up saves that run. Saving never waits on
 * training: the store writes in the background.
 */
export class RunKeeper {
  /** @param {RunStore} store */
  constructor(store) {
    this.store = store;
    this.owner = new WeakMap();     // Run -> {panel, timer, last}
    this.dropped = new WeakSet();   // runs no longer kept (replaced by a new comparison, or forgotten)
  }

  /**
   * @param {string} panel 'heads', 'break', 'induction'
   * @param {(e: object) => void} onEvent the panel's handler
   * @returns {(e: object) => void} the handler to give its runs
   */
  watch(panel, onEvent) {
    return (e) => {
      onEvent(e);
      this.#seen(panel, e);
    };
  }

  #seen(panel, e) {
    const run = e.run;
    if (!run || !this.store.ok || this.dropped.has(run)) return;
    let o = this.owner.get(run);
    if (!o) this.owner.set(run, o = { panel, timer: 0, last: 0 });
    const now = [RUN_EVENT.done, RUN_EVENT.diverged, RUN_EVENT.restored].includes(e.type)
      || (e.type === RUN_EVENT.snapshot && run.status !== 'running');  // the last snapshot of a paused or stopped run
    if (!now && e.type !== RUN_EVENT.snapshot) return;
    clearTimeout(o.timer);
    const wait = now ? 0 : Math.max(0, SETTINGS.saveEveryMs - (Date.now() - o.last));
    o.timer = setTimeout(() => this.save(run), wait);
  }

  /** Saves one run now (nothing for a run without a snapshot yet, or one that failed). */
  save(run) {
    const o = this.owner.get(run);
    if (!o || this.dropped.has(run)) return Promise.resolve();
    o.last = Date.now();
    const saved = run.toSaved();
    if (!saved) return Promise.resolve();
    this.store.claim(o.panel);
    return this.store.putRun({ id: runId(o.panel, run.key), panel: o.panel, key: run.key, run: saved });
  }

  /**
   * A panel replaced its runs (a new comparison): the old ones are no longer kept, and its plan is the new one.
   * @param {string} panel
   * @param {Iterable<object>} oldRuns
   * @param {object|null} plan
   * @param {{key: string}[]} [keptRuns] runs of the comparison before that the new one keeps: kept as they are
   */
  replace(panel, oldRuns, plan, keptRuns = []) {
    for (const r of oldRuns) this.#drop(r);
    this.store.forget(panel, keptRuns.map((r) => runId(panel, r.key)));
    this.store.claim(panel);
    if (plan) this.store.putPlan(panel, plan);
  }

  /** One run replaced (a loaded file by another): no longer kept. */
  forgetRun(panel, run) {
    this.#drop(run);
    this.store.remove([runId(panel, run.key)]);
  }

  /** Updates a panel's plan (e.g. a run cancelled). */
  plan(panel, plan) {
    this.store.putPlan(panel, plan);
  }

  /**
   * Empties the store; the runs on the page now are not saved again (new ones are).
   * @param {Iterable<object>} pageRuns
   */
  forgetAll(pageRuns) {
    for (const r of pageRuns) this.#drop(r);
    return this.store.forget(null);
  }

  #drop(run) {
    this.dropped.add(run);
    clearTimeout(this.owner.get(run)?.timer);
  }
}
