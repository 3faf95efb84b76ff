/**
 * A parser for the part of ZEN's expression language a credit policy uses: literals (numbers, strings, booleans,
 * null, lists, objects), names and member access, calls, intervals (`[300..500)`), unary `-`/`not`/`!`, `^`,
 * `* / %`, `+ -`, comparisons and `in`/`not in`, `and`/`or`, `??` and `? :`. Precedence and associativity as ZEN
 * 0.54.0 measures them: `-2^2` is 4, `2^3^2` is 512 (to the right), `not true == false` is true, comparisons chain left to right.
 * Whatever else (template strings, closures, `$root`, a number with more digits than a double keeps, `??` mixed with
 * other operators without parentheses) is {@link Unsupported}: the policy is then evaluated by ZEN alone.
 */

/** The expression is outside what the compiled evaluator reproduces. */
export class Unsupported extends Error {}

export type Ast =
  | { readonly kind: 'literal'; readonly value: null | boolean | number | string }
  | { readonly kind: 'name'; readonly name: string }
  | { readonly kind: 'list'; readonly items: readonly Ast[] }
  | { readonly kind: 'object'; readonly entries: readonly (readonly [string, Ast])[] }
  | { readonly kind: 'member'; readonly target: Ast; readonly key: Ast }
  | { readonly kind: 'call'; readonly name: string; readonly args: readonly Ast[] }
  | { readonly kind: 'unary'; readonly operator: '-' | 'not'; readonly operand: Ast }
  | {
      readonly kind: 'binary';
      readonly operator: string;
      readonly left: Ast;
      readonly right: Ast;
      /** Written in parentheses (`??` mixed with other operators needs them). */
      readonly parenthesized?: boolean;
    }
  | { readonly kind: 'conditional'; readonly test: Ast; readonly then: Ast; readonly otherwise: Ast }
  | {
      readonly kind: 'interval';
      readonly low: Ast;
      readonly high: Ast;
      readonly lowIncluded: boolean;
      readonly highIncluded: boolean;
    };

type Token = { readonly kind: 'number' | 'string' | 'name' | 'punct'; readonly text: string };

const PUNCTUATION = ['..', '==', '!=', '<=', '>=', '&&', '||', '??', ...'()[]{},:.?+-*/%^<>!'];
/** A double holds 15 significant digits exactly; ZEN's decimals hold more. */
const MAX_DIGITS = 15;

function significantDigits(text: string): number {
  const mantissa = (text.split(/[eE]/)[0] ?? '').replace('.', '').replace(/^0+/, '');
  return mantissa.replace(/0+$/, '').length;
}

function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let index = 0;
  while (index < source.length) {
    const rest = source.slice(index);
    const space = /^\s+/.exec(rest);
    if (space) {
      index += space[0].length;
      continue;
    }
    const number = /^(?:\d[\d_]*(?:\.\d[\d_]*)?|\.\d[\d_]*)(?:[eE][+-]?\d+)?/.exec(rest);
    if (number && !rest.startsWith('..')) {
      const text = number[0].replaceAll('_', '');
      // `1..5` is an interval's bounds, not the number `1.`.
      if (significantDigits(text) > MAX_DIGITS) throw new Unsupported(`number ${text}`);
      tokens.push({ kind: 'number', text });
      index += number[0].length;
      continue;
    }
    const name = /^[A-Za-z_$][\w$]*/.exec(rest);
    if (name) {
      tokens.push({ kind: 'name', text: name[0] });
      index += name[0].length;
      continue;
    }
    const quote = rest[0];
    if (quote === '"' || quote === "'") {
      let value = '';
      let at = index + 1;
      while (at < source.length && source[at] !== quote) {
        if (source[at] === '\\') throw new Unsupported('escapes in strings');
        value += source[at];
        at += 1;
      }
      if (at >= source.length) throw new Unsupported('unterminated string');
      tokens.push({ kind: 'string', text: value });
      index = at + 1;
      continue;
    }
    const punct = PUNCTUATION.find((candidate) => rest.startsWith(candidate));
    if (punct === undefined) throw new Unsupported(`character ${rest[0]}`);
    tokens.push({ kind: 'punct', text: punct });
    index += punct.length;
  }
  return tokens;
}

/** Binding power of each binary operator, low to high. */
const BINARY: Readonly<Record<string, number>> = {
  '??': 2,
  or: 3,
  '||': 3,
  and: 4,
  '&&': 4,
  '==': 5,
  '!=': 5,
  '<': 5,
  '<=': 5,
  '>': 5,
  '>=': 5,
  in: 5,
  '+': 6,
  '-': 6,
  '*': 7,
  '/': 7,
  '%': 7,
  '^': 8,
};
const CANONICAL: Readonly<Record<string, string>> = { '||': 'or', '&&': 'and' };
const COMPARISONS = new Set(['==', '!=', '<', '<=', '>', '>=']);

class Parser {
  #index = 0;
  constructor(readonly tokens: readonly Token[]) {}

  peek(offset = 0): Token | undefined {
    return this.tokens[this.#index + offset];
  }
  next(): Token {
    const token = this.tokens[this.#index++];
    if (token === undefined) throw new Unsupported('unexpected end');
    return token;
  }
  at(text: string): boolean {
    const token = this.peek();
    return token !== undefined && token.kind !== 'string' && token.text === text;
  }
  expect(text: string): void {
    if (!this.at(text)) throw new Unsupported(`expected ${text}`);
    this.#index++;
  }
  done(): boolean {
    return this.#index >= this.tokens.length;
  }

  expression(): Ast {
    const test = this.binary(0);
    if (!this.at('?')) return test;
    this.next();
    const then = this.expression();
    this.expect(':');
    return { kind: 'conditional', test, then, otherwise: this.expression() };
  }

  #operator(): string | null {
    const token = this.peek();
    if (token === undefined || token.kind === 'string' || token.kind === 'number') return null;
    if (token.text === 'not' && this.peek(1)?.text === 'in') return 'not in';
    return BINARY[token.text] === undefined ? null : token.text;
  }

  binary(minimum: number): Ast {
    let left = this.unary();
    for (;;) {
      const operator = this.#operator();
      if (operator === null) return left;
      const power = BINARY[operator === 'not in' ? 'in' : operator] as number;
      if (power <= minimum) return left;
      this.next();
      if (operator === 'not in') this.next();
      // `^` groups to the right (`2^3^2` is 512); the others to the left.
      const right = this.binary(operator === '^' ? power - 1 : power);
      const name = CANONICAL[operator] ?? operator;
      if (name === '??' && (isBareBinary(left) || isBareBinary(right)))
        throw new Unsupported('?? beside other operators without parentheses');
      left = { kind: 'binary', operator: name, left, right };
    }
  }

  unary(): Ast {
    if (this.at('-')) {
      this.next();
      return { kind: 'unary', operator: '-', operand: this.unary() };
    }
    if (this.at('not') || this.at('!')) {
      this.next();
      return { kind: 'unary', operator: 'not', operand: this.unary() };
    }
    return this.postfix(this.primary());
  }

  postfix(target: Ast): Ast {
    let result = target;
    for (;;) {
      if (this.at('.') && this.peek(1)?.kind === 'name') {
        this.next();
        result = { kind: 'member', target: result, key: { kind: 'literal', value: this.next().text } };
      } else if (this.at('[')) {
        this.next();
        const key = this.expression();
        this.expect(']');
        result = { kind: 'member', target: result, key };
      } else {
        return result;
      }
    }
  }

  primary(): Ast {
    const token = this.next();
    if (token.kind === 'number') return { kind: 'literal', value: Number(token.text) };
    if (token.kind === 'string') return { kind: 'literal', value: token.text };
    if (token.kind === 'name') return this.#named(token.text);
    if (token.text === '(' || token.text === '[') return this.#group(token.text);
    if (token.text === '{') return this.#object();
    throw new Unsupported(`unexpected ${token.text}`);
  }

  #named(name: string): Ast {
    if (name === 'true' || name === 'false') return { kind: 'literal', value: name === 'true' };
    if (name === 'null') return { kind: 'literal', value: null };
    if (['and', 'or', 'in', 'not'].includes(name) || (name.startsWith('$') && name !== '$'))
      throw new Unsupported(`name ${name}`);
    if (!this.at('(')) return { kind: 'name', name };
    this.next();
    const args: Ast[] = [];
    while (!this.at(')')) {
      args.push(this.expression());
      if (!this.at(')')) this.expect(',');
    }
    this.next();
    return { kind: 'call', name, args };
  }

  /** `( expr )`, a list `[a, b]`, or an interval `[a..b)` with either bracket on either side. */
  #group(open: string): Ast {
    if (open === '[' && this.at(']')) {
      this.next();
      return { kind: 'list', items: [] };
    }
    const first = this.expression();
    if (this.at('..')) {
      this.next();
      const high = this.expression();
      const close = this.next().text;
      if (close !== ']' && close !== ')') throw new Unsupported('interval without its end');
      return { kind: 'interval', low: first, high, lowIncluded: open === '[', highIncluded: close === ']' };
    }
    if (open === '(') {
      this.expect(')');
      return first.kind === 'binary' ? { ...first, parenthesized: true } : first;
    }
    const items = [first];
    while (this.at(',')) {
      this.next();
      items.push(this.expression());
    }
    this.expect(']');
    return { kind: 'list', items };
  }

  #object(): Ast {
    const entries: [string, Ast][] = [];
    while (!this.at('}')) {
      const key = this.next();
      if (key.kind !== 'name' && key.kind !== 'string') throw new Unsupported('object key');
      this.expect(':');
      entries.push([key.text, this.expression()]);
      if (!this.at('}')) this.expect(',');
    }
    this.next();
    return { kind: 'object', entries };
  }
}

const isBareBinary = (ast: Ast): boolean => ast.kind === 'binary' && ast.parenthesized !== true;

/** Parses a standard expression. */
export function parseStandard(source: string): Ast {
  const parser = new Parser(tokenize(source));
  const ast = parser.expression();
  if (!parser.done()) throw new Unsupported('trailing tokens');
  return ast;
}

/**
 * Parses a decision-table cell: its comma-separated tests of the column's value `$`, each a comparison that starts
 * with its operator (`< 300`), an interval or list (`$ in` it), an expression that names `$`, or a value `$` equals.
 */
export function parseUnary(source: string): Ast[] {
  const parser = new Parser(tokenize(source));
  const tests: Ast[] = [];
  do {
    if (tests.length > 0) parser.next();
    const token = parser.peek();
    const reference: Ast = { kind: 'name', name: '$' };
    if (token?.kind === 'punct' && COMPARISONS.has(token.text)) {
      parser.next();
      tests.push({ kind: 'binary', operator: token.text, left: reference, right: parser.binary(5) });
      continue;
    }
    const value = parser.expression();
    if (value.kind === 'interval' || value.kind === 'list')
      tests.push({ kind: 'binary', operator: 'in', left: reference, right: value });
    else if (readsReference(value)) tests.push(value);
    else tests.push({ kind: 'binary', operator: '==', left: reference, right: value });
  } while (parser.at(','));
  if (!parser.done()) throw new Unsupported('trailing tokens');
  return tests;
}

/** Whether an expression names `$` (the column's value in a cell). */
function readsReference(ast: Ast): boolean {
  switch (ast.kind) {
    case 'name':
      return ast.name === '$';
    case 'literal':
      return false;
    case 'list':
      return ast.items.some(readsReference);
    case 'object':
      return ast.entries.some(([, value]) => readsReference(value));
    case 'member':
      return readsReference(ast.target) || readsReference(ast.key);
    case 'call':
      return ast.args.some(readsReference);
    case 'unary':
      return readsReference(ast.operand);
    case 'binary':
      return readsReference(ast.left) || readsReference(ast.right);
    case 'conditional':
      return [ast.test, ast.then, ast.otherwise].some(readsReference);
    case 'interval':
      return readsReference(ast.low) || readsReference(ast.high);
  }
}
