/**
 * Turns a parsed expression into a JavaScript closure with ZEN's semantics (zen-semantics.ts). A closure reads the
 * node's input (`scope.input`) and, in a decision-table cell, the column's value (`scope.reference`, `$`). The
 * functions a policy may call are the ones below; any other makes the policy ZEN's alone ({@link Unsupported}).
 */
import { type Ast, parseStandard, parseUnary, Unsupported } from './expression-parser.ts';
import {
  add,
  compare,
  DEFER,
  divide,
  equals,
  type Interval,
  inInterval,
  inList,
  integral,
  member,
  modulo,
  multiply,
  negate,
  power,
  subtract,
  truth,
  VM_ERROR,
  type ZenValue,
} from './zen-semantics.ts';

export interface Scope {
  readonly input: Readonly<Record<string, ZenValue>>;
  readonly reference: ZenValue;
}

export type Compiled = (scope: Scope) => ZenValue;

function numbersOf(value: ZenValue): number[] {
  if (!Array.isArray(value)) throw DEFER;
  return value.map((item) => {
    if (typeof item !== 'number') throw VM_ERROR;
    return item;
  });
}

const oneNumber = (value: ZenValue): number => {
  if (typeof value !== 'number') throw VM_ERROR;
  return value;
};

const oneString = (value: ZenValue): string => {
  if (typeof value !== 'string') throw VM_ERROR;
  return value;
};

function typeName(value: ZenValue): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'boolean') return 'bool';
  return typeof value;
}

function extreme(value: ZenValue, pick: (a: number, b: number) => number): number {
  const items = numbersOf(value);
  if (items.length === 0) throw VM_ERROR;
  return items.reduce((best, item) => pick(best, item));
}

/** The functions compiled, by name and number of arguments. */
const FUNCTIONS: Readonly<Record<string, { arity: number; call: (...args: ZenValue[]) => ZenValue }>> = {
  type: { arity: 1, call: typeName },
  min: { arity: 1, call: (list) => extreme(list, Math.min) },
  max: { arity: 1, call: (list) => extreme(list, Math.max) },
  sum: {
    arity: 1,
    call: (list) => {
      const items = numbersOf(list);
      if (items.length === 0) throw DEFER;
      return items.reduce((total, item) => add(total, item) as number);
    },
  },
  abs: { arity: 1, call: (value) => Math.abs(oneNumber(value)) },
  floor: { arity: 1, call: (value) => integral(Math.floor(oneNumber(value))) },
  ceil: { arity: 1, call: (value) => integral(Math.ceil(oneNumber(value))) },
  // Half away from zero, as ZEN's decimals round: round(2.5) is 3, round(-2.5) is -3.
  round: {
    arity: 1,
    call: (value) => {
      const number = oneNumber(value);
      return integral(Math.sign(number) * Math.floor(Math.abs(number) + 0.5));
    },
  },
  upper: { arity: 1, call: (value) => oneString(value).toUpperCase() },
  lower: { arity: 1, call: (value) => oneString(value).toLowerCase() },
  startsWith: { arity: 2, call: (text, part) => oneString(text).startsWith(oneString(part)) },
  endsWith: { arity: 2, call: (text, part) => oneString(text).endsWith(oneString(part)) },
};

const ARITHMETIC: Readonly<Record<string, (left: ZenValue, right: ZenValue) => ZenValue>> = {
  '+': add,
  '-': subtract,
  '*': multiply,
  '/': divide,
  '%': modulo,
  '^': power,
};

function compileIn(left: Compiled, right: Ast, negated: boolean): Compiled {
  if (right.kind === 'interval') {
    const low = compile(right.low);
    const high = compile(right.high);
    const { lowIncluded, highIncluded } = right;
    return (scope) => {
      const interval: Interval = { low: low(scope), high: high(scope), lowIncluded, highIncluded };
      return inInterval(left(scope), interval) !== negated;
    };
  }
  const list = compile(right);
  return (scope) => inList(left(scope), list(scope)) !== negated;
}

function compileBinary(ast: Extract<Ast, { kind: 'binary' }>): Compiled {
  const { operator } = ast;
  if (operator === 'in' || operator === 'not in')
    return compileIn(compile(ast.left), ast.right, operator !== 'in');
  const left = compile(ast.left);
  const right = compile(ast.right);
  switch (operator) {
    case 'and':
      return (scope) => truth(left(scope)) && strictTruth(right(scope));
    case 'or':
      return (scope) => truth(left(scope)) || strictTruth(right(scope));
    case '??':
      return (scope) => left(scope) ?? right(scope);
    case '==':
      return (scope) => equals(left(scope), right(scope));
    case '!=':
      return (scope) => !equals(left(scope), right(scope));
    case '<':
    case '<=':
    case '>':
    case '>=':
      return (scope) => compare(operator, left(scope), right(scope));
  }
  const apply = ARITHMETIC[operator];
  if (apply === undefined) throw new Unsupported(`operator ${operator}`);
  return (scope) => apply(left(scope), right(scope));
}

/** The right side of `and`/`or`: what ZEN does with a non-boolean there was not measured, so ZEN decides. */
function strictTruth(value: ZenValue): boolean {
  if (typeof value !== 'boolean') throw DEFER;
  return value;
}

function compileCall(ast: Extract<Ast, { kind: 'call' }>): Compiled {
  const fn = Object.hasOwn(FUNCTIONS, ast.name) ? FUNCTIONS[ast.name] : undefined;
  if (fn === undefined || fn.arity !== ast.args.length)
    throw new Unsupported(`function ${ast.name}/${ast.args.length}`);
  const args = ast.args.map(compile);
  const { call } = fn;
  if (args.length === 1) {
    const [only] = args as [Compiled];
    return (scope) => call(only(scope));
  }
  return (scope) => call(...args.map((arg) => arg(scope)));
}

function compile(ast: Ast): Compiled {
  switch (ast.kind) {
    case 'literal': {
      const { value } = ast;
      return () => value;
    }
    case 'name': {
      const { name } = ast;
      if (name === '$') return (scope) => scope.reference;
      return (scope) => (Object.hasOwn(scope.input, name) ? (scope.input[name] ?? null) : null);
    }
    case 'list': {
      const items = ast.items.map(compile);
      return (scope) => items.map((item) => item(scope));
    }
    case 'object': {
      const entries = ast.entries.map(([key, value]) => [key, compile(value)] as const);
      return (scope) => {
        const object: Record<string, ZenValue> = {};
        for (const [key, value] of entries) object[key] = value(scope);
        return object;
      };
    }
    case 'member': {
      const target = compile(ast.target);
      const key = compile(ast.key);
      return (scope) => member(target(scope), key(scope));
    }
    case 'call':
      return compileCall(ast);
    case 'unary': {
      const operand = compile(ast.operand);
      if (ast.operator === '-') return (scope) => negate(operand(scope));
      return (scope) => !truth(operand(scope));
    }
    case 'binary':
      return compileBinary(ast);
    case 'conditional': {
      const test = compile(ast.test);
      const then = compile(ast.then);
      const otherwise = compile(ast.otherwise);
      return (scope) => (truth(test(scope)) ? then(scope) : otherwise(scope));
    }
    case 'interval':
      throw new Unsupported('an interval outside `in`');
  }
}

/** A standard expression (an output cell, an expression node's value, a switch condition, a cell of no field). */
export function compileStandard(source: string): Compiled {
  return compile(parseStandard(source));
}

/** A decision-table cell of a column with a field: true when any of its comma-separated tests holds. */
export function compileUnary(source: string): (scope: Scope) => boolean {
  const tests = parseUnary(source).map(compile);
  return (scope) => {
    for (const test of tests) {
      const result = test(scope);
      if (typeof result !== 'boolean') throw DEFER;
      if (result) return true;
    }
    return false;
  };
}

export { Unsupported };
