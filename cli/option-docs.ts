import { optionName, optionNotes, relationText, valueText } from './option-parsers.ts';
import { type CommandPath, OPTION_TABLE, type OptionSpec, type OptionValue } from './option-table.ts';

/** Where the page lives, and how it is made again. */
export const OPTION_DOCS_PATH = 'docs/cli-options.md';
export const OPTION_DOCS_COMMAND = 'npx tsx scripts/cli-options-doc.ts';

/** Text for a Markdown table cell: no pipe ends the cell, no `<x>` reads as a tag. */
function cell(text: string): string {
  return text.replaceAll('|', '\\|').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}

/** Code in a Markdown table cell (entities are not read in code, so only the pipe is escaped). */
function code(text: string): string {
  return `\`${text.replaceAll('|', '\\|')}\``;
}

/** The value column: its kind and what it may be. */
function valueCell(value: OptionValue): string {
  if (value.type === 'flag') return 'switch';
  if (value.type === 'negation') return 'switch (turns a default off)';
  if (value.type === 'choice') return `one of ${value.choices.map((choice) => `\`${choice}\``).join(', ')}`;
  if (value.type === 'integer') return valueText(value) ?? 'whole number';
  const kind = {
    integer: 'whole number',
    number: 'number',
    duration: 'duration',
    rate: 'rate',
    probability: 'share',
    price: 'price',
    'bureau-price': 'bureau and price',
    text: 'text',
    path: value.type === 'path' ? value.of : '',
    url: 'URL',
    month: 'month, `YYYY-MM`',
    timestamp: 'date or time',
    'json-object': 'JSON',
    header: 'header',
    list: value.type === 'list' ? (value.of === 'alert-events' ? 'event names' : 'change kinds') : '',
  }[value.type];
  const range = valueText(value);
  const length = value.type === 'text' ? `at most ${value.maxLength} characters` : null;
  return [kind, range, length].filter((part) => part !== null && part !== '').join(', ');
}

function optionRow(spec: OptionSpec, specs: readonly OptionSpec[]): string {
  const notes = optionNotes(spec, specs);
  const fallback = notes.find((note) => note.startsWith('default: '))?.slice('default: '.length) ?? '';
  const relations = [...relationText(spec, specs), ...(spec.required ? ['required'] : [])].join('; ');
  return `| ${code(spec.flags)} | ${cell(valueCell(spec.value))} | ${cell(fallback)} | ${cell(relations)} | ${cell(spec.description)} |`;
}

/** The page of every option of every command, made from the table (option-table.ts); docs/cli-options.md holds it. */
export function renderOptionDocs(): string {
  const sections = (Object.keys(OPTION_TABLE) as CommandPath[]).map((path) => {
    const specs: readonly OptionSpec[] = OPTION_TABLE[path];
    return [
      `## \`credit-screen ${path}\``,
      '',
      '| option | value | default | refused with / needs | what it does |',
      '|---|---|---|---|---|',
      ...specs.map((spec) => optionRow(spec, specs)),
      '',
    ].join('\n');
  });
  const names = new Set(Object.values(OPTION_TABLE).flatMap((specs) => specs.map(optionName)));
  return [
    '# Command-line options',
    '',
    `<!-- Generated from cli/option-table.ts by \`${OPTION_DOCS_COMMAND}\`; test/cli/option-table.test.ts fails when it differs. Do not edit by hand. -->`,
    '',
    `Every option of every \`credit-screen\` command (${names.size} distinct names), as one table makes them: commander parses`,
    'them with these types and ranges, `--help` says the same ranges, and the tests try values on both sides of',
    'each range. A value outside its range, or two options that cannot go together, is refused before anything',
    'starts, in one line on stderr, with exit status 2.',
    '',
    '- **whole number**: decimal digits only (`1e3`, `0x10`, `1.5` are refused); **number**, **duration**, **rate**:',
    '  a decimal (`0.5`, `.5`, `1e3`), never `Infinity`. Durations stay below 2³¹−1 ms, the longest a timer waits.',
    '- **price**: BRL with a point or a comma (`2.70`, `2,70`, `R$ 2,70`).',
    '- **URL**: `https://`; `http://` only on this machine (127.0.0.1, localhost, [::1]), where the emulator runs.',
    '- **text**, **file**, **folder**: never empty.',
    '- **refused with**: giving both is refused; **needs**: giving one without the other is refused. Defaults do',
    '  not count, only what is typed.',
    '',
    ...sections,
  ].join('\n');
}
