import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { COMMAND_MODULES } from '../../cli/main.ts';

describe('the command modules main loads lazily', () => {
  it.each(COMMAND_MODULES.map((module) => [module.names.join(', '), module] as const))(
    'lists exactly the commands its module registers: %s',
    async (_, module) => {
      const program = new Command('credit-screen');

      (await module.load())(program);

      expect(program.commands.map((command) => command.name())).toEqual(module.names);
    },
  );

  it('names each command once', () => {
    const names = COMMAND_MODULES.flatMap((module) => module.names);

    expect(new Set(names).size).toBe(names.length);
  });
});
