// The core's tables as the page's own module exports them (no browser): constants().settingFields, .tasks and
// .presets, from which the page builds its forms, its task choice, its notes and its presets; every settings field
// round-trips through the bindings (web/marshal.hpp, both ways); every preset is a run the core accepts; the
// generated typedef's defaults (web/js/run_settings_type.js) are the module's.
//   node --test tests/browser/constants.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pageModule as module } from './page_module.mjs';

test('the settings table: one entry per key of the defaults, each with its kind, label, help and range', async () => {
  const c = (await module())._constants();
  const keys = c.settingFields.map((f) => f.key);
  assert.deepEqual(keys, Object.keys(c.defaults));
  for (const f of c.settingFields) {
    assert.ok(['whole', 'real', 'flag', 'name'].includes(f.kind), f.key);
    assert.ok(f.label.length > 0 && f.help.length > 0 && f.flag.length > 0, f.key);
    assert.equal(f.default, c.defaults[f.key], f.key);
    if (f.kind === 'whole') assert.ok(f.min <= f.default && f.default <= f.max, f.key);
    assert.ok(f.task === '' || c.tasks.some((t) => t.name === f.task), f.key);
  }
});

test('every settings field round-trips through the bindings, both ways', async () => {
  const mod = await module();
  const c = mod._constants();
  for (const f of c.settingFields) {
    const other = f.kind === 'flag' ? !f.default : f.kind === 'name' ? `${f.default}x` : f.kind === 'whole'
      ? (f.default === f.min ? f.max : f.min) : f.default / 2;
    const r = mod._fullSettings({ [f.key]: other });
    assert.equal(r.ok, true);
    assert.equal(r.settings[f.key], other, f.key);
    // the keys not given are the core's defaults
    for (const g of c.settingFields) if (g.key !== f.key) assert.equal(r.settings[g.key], c.defaults[g.key], g.key);
  }
});

test('the task table: names, words for the page, a preset of its own task, its own fields', async () => {
  const c = (await module())._constants();
  assert.deepEqual(c.tasks.map((t) => t.name), ['char', 'induction', 'offsets']);
  for (const t of c.tasks) {
    for (const k of ['label', 'description', 'vocabulary', 'baseline', 'notes'])
      assert.ok(typeof t[k] === 'string' && t[k].length > 0, `${t.name}.${k}`);
    assert.equal(c.presets[t.preset].task, t.name);
    assert.deepEqual(t.fields, c.settingFields.filter((f) => f.task === t.name).map((f) => f.key));
  }
  assert.deepEqual(c.tasks.find((t) => t.name === 'offsets').fields, ['symbols', 'offsets']);
});

test('every preset is a run the core accepts; the offsets preset is the offsets setting the heads panel ships', async () => {
  const mod = await module();
  const c = mod._constants();
  assert.deepEqual(Object.keys(c.presets), ['heads', 'break', 'offsets', 'induction-short', 'induction-long']);
  for (const [name, p] of Object.entries(c.presets)) {
    assert.equal(p.settings.task, p.task, name);
    assert.deepEqual(mod._checkRun(p.settings), { ok: true }, name);
  }
  const o = c.offsetsSetting, p = c.presets.offsets;
  assert.equal(p.evalEvery, o.evalEvery);
  assert.equal(p.threshold, o.threshold);
  for (const k of ['offsets', 'symbols', 'nLayers', 'mlp', 'context', 'batch', 'steps', 'warmup', 'lr', 'minLr', 'weightDecay'])
    assert.equal(p.settings[k], o[k], k);
  const short = c.presets['induction-short'].settings;
  assert.equal(short.context, c.inductionSettings.short.context);
  assert.equal(short.lr, c.inductionSettings.short.lr);
});

test('a run of a task reports its own settings in its facts', async () => {
  const mod = await module();
  const c = mod._constants();
  for (const t of c.tasks.filter((k) => !k.text)) {
    const run = new mod.Run();
    const s = { ...c.presets[t.preset].settings, dModel: 16, nHeads: 2, batch: 2, steps: 2, warmup: 0, evalBatches: 1 };
    const facts = run._init(s, '', null);
    assert.equal(facts.ok, true, t.name);
    assert.equal(facts.task, t.name);
    for (const key of t.fields) assert.equal(facts[key], s[key], `${t.name}.${key}`);
    run.delete();
  }
});

test('the generated typedef\'s defaults are the module\'s', async () => {
  const c = (await module())._constants();
  const { RUN_SETTINGS_DEFAULTS } = await import(new URL('../../web/js/run_settings_type.js', import.meta.url).href);
  assert.deepEqual({ ...RUN_SETTINGS_DEFAULTS }, c.defaults);
});
