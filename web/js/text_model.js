// The model the heads panel trains on the text, as the core's parameter ledger takes it: the form's D, layers and
// context, an MLP, and the text's vocabulary. The params panel's ledger and the lesson's params step count the same
// model through it. No DOM in this file.

// V of the shipped corpus (61 characters + the unknown symbol), until a run of a text says: its models are 112,190
// parameters at D = 64, 2 layers, T = 64 (tests/browser/ledger.test.mjs checks it against the model the core builds)
export const SHIPPED_VOCAB = 62;

/**
 * The heads panel's text model at H heads, in parameterLedger's terms (engine.js).
 * @param {{cD: number, layers: number, context: number}} s the page's settings
 * @param {number} vocab V of the text
 * @param {number} nHeads
 * @returns {{vocab: number, dModel: number, nHeads: number, nLayers: number, context: number, mlp: boolean}}
 */
export const textModel = (s, vocab, nHeads) => ({ vocab, dModel: s.cD, nHeads, nLayers: s.layers, context: s.context,
  mlp: true });
