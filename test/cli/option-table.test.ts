import { readFile } from 'node:fs/promises';
import { Command, type Option } from 'commander';
import { describe, expect, it } from 'vitest';
import { COMMAND_MODULES } from '../../cli/main.ts';
import { OPTION_DOCS_COMMAND, OPTION_DOCS_PATH, renderOptionDocs } from '../../cli/option-docs.ts';
import { optionName, optionNotes } from '../../cli/option-parsers.ts';
import {
  type CommandPath,
  DURATION_UNIT_MS,
  MAX_TIMER_MS,
  OPTION_TABLE,
  type OptionSpec,
} from '../../cli/option-table.ts';

/** The whole program, every command module registered. */
async function program(): Promise<Command> {
  const root = new Command('credit-screen');
  for (const module of COMMAND_MODULES) (await module.load())(root);
  return root;
}

/** Every command under `command`, by its path (`studio projects create`). */
function commandsOf(command: Command, prefix: string[] = []): [string, Command][] {
  return command.commands.flatMap((sub) => {
    const path = [...prefix, sub.name()];
    return [[path.join(' '), sub] as [string, Command], ...commandsOf(sub, path)];
  });
}

const table = OPTION_TABLE as Readonly<Record<string, readonly OptionSpec[]>>;

describe('the option table (cli/option-table.ts)', () => {
  it('is every option each command registers, in the order --help lists them', async () => {
    const registered = Object.fromEntries(
      commandsOf(await program()).map(([path, command]) => [
        path,
        command.options.map((option: Option) => option.flags),
      ]),
    );
    const listed = Object.fromEntries(
      Object.keys(registered).map((path) => [path, (table[path] ?? []).map((spec) => spec.flags)]),
    );

    // A command that registers options of its own, outside the table, shows here: add them to the table.
    expect(registered).toEqual(listed);
    expect(Object.keys(table).filter((path) => !(path in registered))).toEqual([]);
  });

  it('says every range in --help as the parser enforces it', async () => {
    for (const [path, command] of commandsOf(await program())) {
      const help = command.helpInformation().replace(/\s+/g, ' ');
      for (const spec of table[path] ?? [])
        for (const note of optionNotes(spec, table[path] ?? []))
          expect(help, `${path} ${spec.flags}`).toContain(note.replace(/\s+/g, ' '));
    }
  });

  it('keeps every duration below what a timer waits, every count a safe integer, every rate above 0', () => {
    for (const spec of Object.values(table).flat()) {
      const { value } = spec;
      if (value.type === 'duration')
        expect(value.max * DURATION_UNIT_MS[value.unit], spec.flags).toBeLessThan(MAX_TIMER_MS);
      if (value.type === 'integer') expect(Number.isSafeInteger(value.max), spec.flags).toBe(true);
      if (value.type === 'rate') expect(value.min, spec.flags).toBeGreaterThan(0);
      if ('min' in value) expect(value.min, spec.flags).toBeLessThanOrEqual(value.max);
    }
  });

  it.each(Object.keys(OPTION_TABLE) as CommandPath[])(
    '%s: every option named in a relation is an option of the same command, and no name is given twice',
    (path) => {
      const names = table[path]?.map(optionName) ?? [];
      const related = (table[path] ?? []).flatMap((spec) =>
        [...(spec.conflicts ?? []), ...(spec.requires ?? [])].map((relation) => relation.option),
      );

      expect(new Set(names).size).toBe(names.length);
      for (const name of related) expect(names).toContain(name);
    },
  );
});

describe(OPTION_DOCS_PATH, () => {
  it(`is what the table makes (${OPTION_DOCS_COMMAND} writes it again)`, async () => {
    const committed = await readFile(new URL(`../../${OPTION_DOCS_PATH}`, import.meta.url), 'utf8');

    expect(committed).toBe(renderOptionDocs());
  });
});
