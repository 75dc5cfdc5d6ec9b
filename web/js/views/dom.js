// Tiny DOM helpers for the views. Text always goes in as text (textContent), never as HTML.

/**
 * Creates an element with attributes and children.
 * @param {string} tag
 * @param {Record<string, string|number|boolean>} [attrs] 'class' sets className; false/null skip the attribute
 * @param {...(Node|string|number)} children strings become text nodes
 * @returns {HTMLElement}
 */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === false || v === null || v === undefined) continue;
    if (k === 'class') node.className = String(v);
    else node.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children) node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return node;
}
