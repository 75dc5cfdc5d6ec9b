// The card of a planned run that has no worker yet (comparison.js): its title, an empty progress bar and whether it
// waits for a free core or was stopped before it started. One card per planned run, kept while it waits, so that
// redrawing does not replace it.
import { el } from './dom.js';

export class WaitingCards {
  /**
   * @param {{tag?: 'div'|'article', cardClass?: string, title: (p: object) => (Node|string)}} o as the panel's run cards: their
   *   element and class besides 'run-card status-queued'; the card's title for a planned run
   */
  constructor({ tag = 'div', cardClass = '', title }) {
    this.tag = tag;
    this.cardClass = cardClass;
    this.title = title;
    /** @type {Map<object, {card: HTMLElement, facts: HTMLElement}>} planned run -> its card */
    this.cards = new Map();
  }

  /**
   * @param {{key: string, label: string, settings: {steps: number}, cancelled: boolean}} p a planned run
   * @returns {HTMLElement}
   */
  card(p) {
    let c = this.cards.get(p);
    if (!c) {
      const facts = el('p', { class: 'run-facts' });
      c = { facts, card: el(this.tag, { class: ['run-card', this.cardClass, 'status-queued'].filter(Boolean).join(' '), 'data-run': p.key },
        el('h3', {}, this.title(p)), el('progress', { max: p.settings.steps, value: 0, 'aria-label': `${p.label}: waiting` }), facts) };
      this.cards.set(p, c);
    }
    c.facts.textContent = p.cancelled ? 'not run: stopped before it started' : 'waiting for a free core';
    return c.card;
  }

  /**
   * Forgets the cards of runs that got a worker or are no longer planned.
   * @param {object[]} plan
   */
  prune(plan) {
    for (const p of this.cards.keys()) if (p.run || !plan.includes(p)) this.cards.delete(p);
  }
}
