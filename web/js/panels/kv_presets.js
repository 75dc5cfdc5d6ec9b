// Real models for the KV-cache arithmetic of the params panel: the attention shapes each was published with, and
// where they are stated. Batch and bytes per value are the reader's (they describe a deployment, not the model).
// No DOM in this file.

/**
 * @typedef {{name: string, values: {kvL: number, kvD: number, kvH: number, kvKv: number, kvHs: number,
 *            kvCtx: number, kvBias: string}, source: string, url: string}} KvPreset
 *   values: layers, d_model, query heads, key/value heads, head size, context, biases in Q/K/V/O ('1') or not ('0')
 */

/** @type {ReadonlyArray<KvPreset>} */
export const KV_PRESETS = Object.freeze([
  {
    name: 'GPT-2 small',
    values: { kvL: 12, kvD: 768, kvH: 12, kvKv: 12, kvHs: 64, kvCtx: 1024, kvBias: '1' },
    source: 'Radford et al. 2019, "Language Models are Unsupervised Multitask Learners", and the released config ' +
      '(n_layer 12, n_embd 768, n_head 12, n_ctx 1024; c_attn and c_proj have biases)',
    url: 'https://huggingface.co/openai-community/gpt2/blob/main/config.json',
  },
  {
    name: 'Llama-2-7B',
    values: { kvL: 32, kvD: 4096, kvH: 32, kvKv: 32, kvHs: 128, kvCtx: 4096, kvBias: '0' },
    source: 'Touvron et al. 2023, "Llama 2: Open Foundation and Fine-Tuned Chat Models" (arXiv:2307.09288), Table 1: ' +
      'context 4k, no GQA at 7B; config: 32 layers, hidden 4096, 32 heads, 32 key/value heads, no attention biases',
    url: 'https://arxiv.org/abs/2307.09288',
  },
  {
    name: 'Llama-2-70B',
    values: { kvL: 80, kvD: 8192, kvH: 64, kvKv: 8, kvHs: 128, kvCtx: 4096, kvBias: '0' },
    source: 'Touvron et al. 2023 (arXiv:2307.09288), Table 1: context 4k, GQA at 70B; config: 80 layers, hidden 8192, ' +
      '64 heads sharing 8 key/value heads, no attention biases',
    url: 'https://arxiv.org/abs/2307.09288',
  },
  {
    name: 'Mistral-7B',
    values: { kvL: 32, kvD: 4096, kvH: 32, kvKv: 8, kvHs: 128, kvCtx: 4096, kvBias: '0' },
    source: 'Jiang et al. 2023, "Mistral 7B" (arXiv:2310.06825), Table 1: dim 4096, 32 layers, head_dim 128, 32 heads, ' +
      '8 key/value heads, window 4096, context 8192. Its rolling buffer cache keeps only the last 4,096 positions ' +
      '(the sliding window), so the cache is that of 4,096 tokens at any longer context',
    url: 'https://arxiv.org/abs/2310.06825',
  },
]);

/**
 * The preset whose shape these settings are, if any.
 * @param {Record<string, any>} state
 * @returns {KvPreset|null}
 */
export function matchingPreset(state) {
  return KV_PRESETS.find((p) => Object.entries(p.values).every(([k, v]) => state[k] === v)) ?? null;
}
