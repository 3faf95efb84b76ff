import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { InvalidArgumentError } from 'commander';
import { beforeAll, describe, expect, it } from 'vitest';
import { optionName, parserOf } from '../../cli/option-parsers.ts';
import { type CommandPath, OPTION_TABLE, type OptionSpec, type OptionValue } from '../../cli/option-table.ts';
import { customerListCsv, distinctDocuments } from '../factories/customer-lists.ts';
import { caseFolder, expectOneLineRefusal, runInProcess, treeOf } from './harness.ts';

// The hostile-input corpus, part two, made from the option table (cli/option-table.ts): every option of every
// command given values on both sides of its range, and every pair of options the table forbids given together.
// The parsers are tried directly (fast, many values); then each option's refusal, and each forbidden pair, goes
// through the command line in this process, where it must be one line, exit 2, with nothing started or written.

/** Values a type refuses: past each end of its range, and what is no value of it at all. */
function refusedValues(value: OptionValue): string[] {
  switch (value.type) {
    case 'integer':
      return [String(value.min - 1), String(value.max + 1), '1.5', '1e3', '0x10', 'many', '', 'Infinity'];
    case 'number':
    case 'duration':
      return [
        value.type === 'number' && value.above ? String(value.min) : String(value.min - 0.5),
        String(value.max + 1),
        '1e12',
        'soon',
        '',
        'Infinity',
        'NaN',
        '0x10',
      ];
    case 'rate':
      return ['0', String(value.min / 2), String(value.max * 2), '1e-9', 'fast', '', 'Infinity'];
    case 'probability':
      return ['-0.1', '1.01', 'half', '', '50%'];
    case 'price':
      return ['0', '-2', String(value.max + 1), 'dez', '', '2,705', '1e2'];
    case 'choice':
      return ['zz', ''];
    case 'text':
      return ['', '   ', 'x'.repeat(value.maxLength + 1), ...(value.pattern ? ['bad name!'] : [])];
    case 'path':
      return ['', 'x'.repeat(5000)];
    case 'url':
      return [
        'javascript:alert(1)',
        'http://gateway.example.com',
        'ftp://gateway.example.com',
        'https://user:secret@gateway.example.com',
        'gateway.example.com',
        '',
      ];
    case 'month':
      return ['2026-13', '26-01', '2026-1', 'this month', ''];
    case 'timestamp':
      return ['yesterday', '2026-13-01', '24/11/2026', ''];
    case 'json-object':
      return ['[]', '1', '"x"', 'null', '{', ''];
    case 'bureau-price':
      return ['2,70', 'z=2,70', 'a=0', `a=${value.max + 1}`, 'a=', '=2,70', ''];
    case 'header':
      return ['X-Api-Key', ': value', 'bad name: x', ''];
    case 'list':
      return value.of === 'alert-events'
        ? ['BatchDone', 'BatchCompleted,Nope', ',', '']
        : ['registration_status', 'new_protest,worse', ',', ''];
    default:
      return [];
  }
}

/** Values a type takes, as typed, and what the command gets for them. */
function acceptedValues(value: OptionValue): [string, unknown][] {
  switch (value.type) {
    case 'integer':
    case 'duration':
    case 'rate':
      return [
        [String(value.min), value.min],
        [String(value.max), value.max],
      ];
    case 'number':
      return value.above
        ? [[String(value.max), value.max]]
        : [
            [String(value.min), value.min],
            [String(value.max), value.max],
          ];
    case 'probability':
      return [
        ['0', 0],
        ['1', 1],
        ['0.25', 0.25],
      ];
    case 'price':
      return [
        ['2,70', 2.7],
        ['R$ 8,40', 8.4],
        [String(value.max), value.max],
      ];
    case 'choice':
      return value.choices.map((choice) => [choice, choice]);
    case 'text':
      return value.pattern
        ? [['credit-screen-prod', 'credit-screen-prod']]
        : [['Carteira Q3', 'Carteira Q3']];
    case 'path':
      return [['lista.csv', 'lista.csv']];
    case 'url':
      return [
        ['https://gateway.example.com', 'https://gateway.example.com'],
        ['http://127.0.0.1:8787', 'http://127.0.0.1:8787'],
        ['http://localhost:8787/', 'http://localhost:8787/'],
        ['http://[::1]:8787', 'http://[::1]:8787'],
      ];
    case 'month':
      return [['2026-01', '2026-01']];
    case 'timestamp':
      return [
        ['2026-11-24', '2026-11-24'],
        ['2026-11-24T10:00:00-03:00', '2026-11-24T10:00:00-03:00'],
      ];
    case 'json-object':
      return [['{"theme":"dark"}', { theme: 'dark' }]];
    case 'bureau-price':
      return [
        ['a=2,70', { bureau: 'a', price: 2.7 }],
        ['b=R$ 8,40', { bureau: 'b', price: 8.4 }],
      ];
    case 'header':
      return [
        ['X-Api-Key: s3cr3t', { name: 'X-Api-Key', value: 's3cr3t' }],
        ['Authorization: Bearer a:b', { name: 'Authorization', value: 'Bearer a:b' }],
      ];
    case 'list':
      return value.of === 'alert-events'
        ? [['BatchCompleted, DocumentChanged', ['BatchCompleted', 'DocumentChanged']]]
        : [['new_protest,score_drop', ['new_protest', 'score_drop']]];
    default:
      return [];
  }
}

/** Every option of every command once (a group shared by commands is one set of specs). */
const SPECS: readonly OptionSpec[] = [...new Set(Object.values(OPTION_TABLE).flat() as OptionSpec[])];
const flag = (spec: OptionSpec) => `--${optionName(spec)}`;

describe('each option’s parser, from the table', () => {
  const refused = SPECS.flatMap((spec) =>
    refusedValues(spec.value).map((value) => [flag(spec), value, spec] as const),
  );
  const accepted = SPECS.flatMap((spec) =>
    acceptedValues(spec.value).map(([value, parsed]) => [flag(spec), value, parsed, spec] as const),
  );

  it.each(refused.filter(([, , spec]) => spec.value.type !== 'choice'))(
    '%s refuses %j, naming itself',
    (name, value, spec) => {
      const parse = parserOf(name, spec.value) as (text: string) => unknown;

      expect(() => parse(value)).toThrow(InvalidArgumentError);
      expect(() => parse(value)).toThrow(new RegExp(`^${name} `));
    },
  );

  it.each(accepted.filter(([, , , spec]) => spec.value.type !== 'choice'))(
    '%s takes %j',
    (name, value, parsed, spec) => {
      expect((parserOf(name, spec.value) as (text: string) => unknown)(value)).toEqual(parsed);
    },
  );
});

let list: string;
beforeAll(async () => {
  list = join(await caseFolder('values'), 'lista.csv');
  await writeFile(list, customerListCsv(distinctDocuments(2, 'option values')));
});

/** What each command needs besides the option tried: its arguments, and its required options. */
function baseArgs(path: CommandPath): string[] {
  const batch = 'ffffffffffffffffffffffff';
  const bases: Record<CommandPath, string[]> = {
    check: ['check', list],
    console: ['console'],
    emulator: ['emulator'],
    normalize: ['normalize', list],
    screen: ['screen', list],
    rescreen: ['rescreen', list],
    submit: ['submit', list, '--stack', 'credit-screen-prod'],
    report: ['report', batch],
    decide: ['decide', batch, '--policy', list],
    batches: ['batches'],
    status: ['status', batch],
    review: ['review', batch],
    override: ['override', batch, '--row', '1', '--decision', 'approve', '--reason', 'x', '--by', 'y'],
    export: ['export', batch],
    audit: ['audit', '--batch', batch],
    subject: ['subject', '52998224725'],
    cancel: ['cancel', batch],
    redrive: ['redrive', batch],
    approve: ['approve', batch],
    reject: ['reject', batch],
    resume: ['resume'],
    spend: ['spend'],
    ai: ['ai', 'status'],
    studio: ['studio', 'catalog'],
    'studio projects create': ['studio', 'projects', 'create', '--type', 'chart'],
    'studio projects update': ['studio', 'projects', 'update', 'prj_x'],
    'studio generate': ['studio', 'generate', 'prj_x', '--prompt', 'x'],
    'studio messages post': ['studio', 'messages', 'post', 'prj_x'],
    'studio export': ['studio', 'export', 'prj_x', '1'],
    'webhook test': ['webhook', 'test', 'http://127.0.0.1:9'],
  };
  return bases[path];
}

/** The option as typed with a value it takes (a folder inside the case's own). */
function given(spec: OptionSpec, folder: string): string[] {
  if (spec.value.type === 'flag' || spec.value.type === 'negation') return [flag(spec)];
  if (spec.value.type === 'path') return [flag(spec), spec.value.of === 'file' ? list : join(folder, 'x')];
  return [flag(spec), acceptedValues(spec.value)[0]?.[0] ?? ''];
}

/** Runs a case that must be refused in one line, in a new folder that must stay empty. */
async function expectRefused(args: string[], folder: string, pattern: RegExp): Promise<void> {
  const result = await runInProcess(args, folder);

  expectOneLineRefusal(result, pattern);
  expect(result.stderr).not.toContain('starting DynamoDB Local');
  expect(await treeOf(folder)).toEqual({});
}

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const paths = Object.keys(OPTION_TABLE) as CommandPath[];

describe('every command refuses each option’s out-of-range value in one line, in process', () => {
  const cases = paths.flatMap((path) =>
    (OPTION_TABLE[path] as readonly OptionSpec[]).flatMap((spec) => {
      const [value] = refusedValues(spec.value).slice(spec.value.type === 'integer' ? 1 : 0);
      return value === undefined ? [] : [[path, flag(spec), value] as const];
    }),
  );

  it.each(cases)('%s %s %j', async (path, name, value) => {
    const folder = await caseFolder('value');

    await expectRefused([...baseArgs(path), name, value], folder, new RegExp(escaped(name)));
  });
});

describe('every command refuses the options the table forbids together, in process', () => {
  const cases = paths.flatMap((path) => {
    const specs = OPTION_TABLE[path] as readonly OptionSpec[];
    const byName = new Map(specs.map((spec) => [optionName(spec), spec]));
    return specs.flatMap((spec) => [
      ...(spec.conflicts ?? []).map(
        (relation) =>
          [
            path,
            `${flag(spec)} with --${relation.option}`,
            spec,
            relation,
            byName.get(relation.option),
          ] as const,
      ),
      // Every other option it requires is given, so the one left out is the one refused.
      ...(spec.requires ?? []).map(
        (relation) =>
          [
            path,
            `${flag(spec)} without --${relation.option}`,
            spec,
            relation,
            (spec.requires ?? [])
              .filter((other) => other !== relation)
              .map((other) => byName.get(other.option))
              .filter((other): other is OptionSpec => other !== undefined),
          ] as const,
      ),
    ]);
  });

  it.each(cases)('%s: %s', async (path, _label, spec, relation, others) => {
    const folder = await caseFolder('relation');
    const also = others === undefined ? [] : Array.isArray(others) ? others : [others];
    const args = [
      ...baseArgs(path),
      ...given(spec, folder),
      ...also.flatMap((other: OptionSpec) => given(other, folder)),
    ];

    await expectRefused(args, folder, new RegExp(escaped(relation.message ?? `--${relation.option}`)));
  });
});
