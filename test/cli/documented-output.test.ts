import { cp, mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { documentedCommands, firstMissingLine, normalisedOutput } from '../factories/documented-commands.ts';
import { runCli } from '../factories/run-cli.ts';

/** The pages that show commands with what they print; each runs in a folder and state of its own. */
const PAGES = ['docs/cli.md', 'docs/decisions.md', 'docs/data-protection.md'];
const BATCH_ID = /\b[0-9a-f]{24}\b/;

describe('the commands the docs show print what the docs show', () => {
  it.each(PAGES)(
    '%s',
    async (page) => {
      // Arrange: the page's commands, and a folder with the samples they name
      const commands = documentedCommands(page, await readFile(page, 'utf8'));
      expect(commands.some((command) => command.output.length > 0)).toBe(true);
      const cwd = await mkdtemp(join(tmpdir(), 'credit-screen-docs-'));
      await cp('samples', join(cwd, 'samples'), { recursive: true });
      let lastBatch: string | null = null;

      for (const command of commands) {
        // Act: the docs' batch ids stand for the batch the page's commands made last
        const args = command.args.map((arg) => (BATCH_ID.test(arg) && lastBatch ? lastBatch : arg));
        const run = await runCli(args, { cwd });
        lastBatch = BATCH_ID.exec(run.stdout)?.[0] ?? lastBatch;

        // Assert
        const expectedCode = command.setup ? 0 : command.exitCode;
        expect(run.code, `${command.where}: ${args.join(' ')}\n${run.stderr}`).toBe(expectedCode);
        if (command.output.length === 0) continue;
        const actual = normalisedOutput(run.code === 0 ? run.stdout : run.stderr, cwd);
        const shown = normalisedOutput(command.output.join('\n'), cwd);
        expect(firstMissingLine(shown, actual), `${command.where}: printed\n${actual.join('\n')}`).toBeNull();
      }
    },
    400_000,
  );
});
