/** Plain text and HTML: what clients and models send may contain tags; what we show may not. */
import { decodeHTML } from 'entities';
import sanitizeHtml from 'sanitize-html';

/** The text of an HTML fragment: tags dropped, entities decoded, whitespace collapsed. */
export function plainText(value: string): string {
  return decodeHTML(sanitizeHtml(value, { allowedTags: [], allowedAttributes: {} }))
    .replace(/\s+/g, ' ')
    .trim();
}

export function escapeHtml(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}
