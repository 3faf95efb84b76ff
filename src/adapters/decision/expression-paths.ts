/**
 * Which fields a ZEN expression reads (`score`, `input.requested_amount`, `input["valor solicitado"]`): the policy
 * loader needs them to warn about fields the decision input does not have, to give every field a cell compares a
 * sample of its kind when it compiles the cell, and to guard the cell against a missing value. A small tokenizer,
 * not ZEN's parser: it knows strings, template strings, numbers, names, member access and calls, which is all a
 * path needs.
 */

type Token =
  | { readonly kind: 'name'; readonly text: string }
  | { readonly kind: 'string'; readonly text: string }
  | { readonly kind: 'punct'; readonly text: string }
  | { readonly kind: 'other' };

const KEYWORDS = new Set(['and', 'or', 'not', 'in', 'true', 'false', 'null']);
const NAME_START = /[A-Za-z_$]/;
const NAME_PART = /[\w$]/;

/** Reads a quoted string from `start` (its quote) and returns its value and the index after it. */
function readString(source: string, start: number): { value: string; end: number } {
  const quote = source[start];
  let value = '';
  let index = start + 1;
  while (index < source.length && source[index] !== quote) {
    if (source[index] === '\\' && index + 1 < source.length) index += 1;
    value += source[index];
    index += 1;
  }
  return { value, end: index + 1 };
}

/** Reads a template string: its `${…}` parts are code and are tokenized too (`tokens` gets them). */
function readTemplate(source: string, start: number, tokens: Token[]): number {
  let index = start + 1;
  while (index < source.length && source[index] !== '`') {
    if (source[index] === '$' && source[index + 1] === '{') {
      let depth = 1;
      const from = index + 2;
      index = from;
      while (index < source.length && depth > 0) {
        if (source[index] === '{') depth += 1;
        if (source[index] === '}') depth -= 1;
        index += 1;
      }
      tokens.push({ kind: 'punct', text: '(' }, ...tokenize(source.slice(from, index - 1)), {
        kind: 'punct',
        text: ')',
      });
      continue;
    }
    index += source[index] === '\\' ? 2 : 1;
  }
  return index + 1;
}

function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let index = 0;
  while (index < source.length) {
    const char = source[index] as string;
    if (/\s/.test(char)) {
      index += 1;
    } else if (char === '"' || char === "'") {
      const { value, end } = readString(source, index);
      tokens.push({ kind: 'string', text: value });
      index = end;
    } else if (char === '`') {
      index = readTemplate(source, index, tokens);
      tokens.push({ kind: 'other' });
    } else if (/\d/.test(char)) {
      while (index < source.length && /[\d.eE_]/.test(source[index] as string)) index += 1;
      tokens.push({ kind: 'other' });
    } else if (NAME_START.test(char)) {
      const from = index;
      while (index < source.length && NAME_PART.test(source[index] as string)) index += 1;
      tokens.push({ kind: 'name', text: source.slice(from, index) });
    } else if (char === '?' && source[index + 1] === '.') {
      tokens.push({ kind: 'punct', text: '.' });
      index += 2;
    } else {
      tokens.push({ kind: 'punct', text: char });
      index += 1;
    }
  }
  return tokens;
}

const isPunct = (token: Token | undefined, text: string) => token?.kind === 'punct' && token.text === text;

/** The path starting at `tokens[start]` (a name): its segments and the index after it. */
function readPath(tokens: readonly Token[], start: number): { segments: string[]; end: number } {
  const segments = [(tokens[start] as { text: string }).text];
  let index = start + 1;
  for (;;) {
    const next = tokens[index + 1];
    if (isPunct(tokens[index], '.') && next?.kind === 'name') {
      segments.push(next.text);
      index += 2;
    } else if (isPunct(tokens[index], '[') && next?.kind === 'string' && isPunct(tokens[index + 2], ']')) {
      segments.push(next.text);
      index += 3;
    } else {
      return { segments, end: index };
    }
  }
}

/**
 * The paths an expression reads, each as its segments (`["input", "requested_amount"]`), once each, in order.
 * `$` is kept as a path of its own (a unary cell's value, or an expression node's own results); names of functions,
 * keywords, object keys and closure members (`#.amount`) are not paths. A call on a path (`d.isBefore(…)`) reads
 * the path without the method.
 */
export function pathsRead(expression: string): string[][] {
  const tokens = tokenize(expression);
  const paths = new Map<string, string[]>();
  let index = 0;
  while (index < tokens.length) {
    const token = tokens[index] as Token;
    const previous = tokens[index - 1];
    if (
      token.kind !== 'name' ||
      KEYWORDS.has(token.text) ||
      isPunct(previous, '.') ||
      isPunct(previous, '#')
    ) {
      index += 1;
      continue;
    }
    const { segments, end } = readPath(tokens, index);
    index = end;
    const isObjectKey = isPunct(tokens[end], ':') && (isPunct(previous, '{') || isPunct(previous, ','));
    if (isObjectKey) continue;
    if (isPunct(tokens[end], '(')) segments.pop();
    if (segments.length > 0) paths.set(JSON.stringify(segments), segments);
  }
  return [...paths.values()];
}

/** A path as ZEN reads it: `input.requested_amount`, or `input["valor solicitado"]` for a name with spaces. */
export function pathExpression(segments: readonly string[]): string {
  return segments
    .map((segment, position) => {
      if (/^[A-Za-z_][\w]*$/.test(segment)) return position === 0 ? segment : `.${segment}`;
      return position === 0 ? segment : `[${JSON.stringify(segment)}]`;
    })
    .join('');
}
