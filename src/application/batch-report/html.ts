/** Markup that is already safe: produced by `html` or by a trusted renderer (the charts' SVG). */
export class SafeHtml {
  constructor(readonly value: string) {}

  toString(): string {
    return this.value;
  }
}

const ESCAPES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Text as HTML text or attribute value: a customer's `<script>` or `"><img onerror=…>` stays text. */
function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => ESCAPES[character] ?? character);
}

type Fragment = SafeHtml | string | number | boolean | null | undefined | readonly Fragment[];

function fragment(value: Fragment): string {
  if (value instanceof SafeHtml) return value.value;
  if (Array.isArray(value)) return value.map(fragment).join('');
  if (value === null || value === undefined || value === false || value === true) return '';
  return escapeHtml(String(value));
}

/**
 * Template tag that escapes every interpolated value unless it is `SafeHtml`, so no piece of a batch's data can
 * reach the page as markup by forgetting a call.
 */
export function html(strings: TemplateStringsArray, ...values: readonly Fragment[]): SafeHtml {
  let text = strings[0] ?? '';
  values.forEach((value, index) => {
    text += fragment(value) + (strings[index + 1] ?? '');
  });
  return new SafeHtml(text);
}
