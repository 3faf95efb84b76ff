/**
 * The commands the docs show with what they print (```-fenced blocks whose lines start with `$ `), read so that a
 * test can run them and compare. Conventions of those blocks:
 * - `$ npx credit-screen …` is a command (a `\` at the end of a line continues it; `# …` after it is a comment);
 *   the lines after it, up to the next command or a blank line, are what it prints;
 * - a line `…` stands for any number of lines;
 * - `(exit N)` at the end of a line says the command exits N (it prints on stderr then);
 * - `<!-- docs-check: <command> -->` before a block runs a command first, unshown (the set-up the prose describes).
 */

export interface DocumentedCommand {
  /** The arguments after `npx credit-screen`. */
  readonly args: readonly string[];
  /** What the docs show it printing (empty: not shown, not compared). */
  readonly output: readonly string[];
  readonly exitCode: number;
  /** A set-up command (from a `docs-check` comment): run, not compared. */
  readonly setup: boolean;
  /** Where it is shown, for messages: `docs/cli.md:126`. */
  readonly where: string;
}

const EXIT = /\s+\(exit (\d+)\)\s*$/;

/** Splits a shell command line into words: plain words, and '…' or "…" quoted ones. */
function shellWords(line: string): string[] {
  const words: string[] = [];
  for (const match of line.matchAll(/"((?:[^"\\]|\\.)*)"|'([^']*)'|(\S+)/g))
    words.push(match[1]?.replace(/\\(.)/g, '$1') ?? match[2] ?? (match[3] as string));
  return words;
}

/** The commands a page shows, in page order, with their set-up commands before them. */
export function documentedCommands(path: string, text: string): DocumentedCommand[] {
  const lines = text.split('\n');
  const commands: DocumentedCommand[] = [];
  let inBlock = false;
  let current: { args: string[]; output: string[]; exitCode: number; where: string } | null = null;
  const close = () => {
    if (current) commands.push({ ...current, setup: false });
    current = null;
  };
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index] as string;
    const setup = /^<!-- docs-check: (.*) -->$/.exec(line.trim());
    if (!inBlock && setup) {
      commands.push({
        args: shellWords(setup[1] as string).slice(2),
        output: [],
        exitCode: 0,
        setup: true,
        where: `${path}:${index + 1}`,
      });
      continue;
    }
    if (line.startsWith('```')) {
      close();
      inBlock = !inBlock;
      continue;
    }
    if (!inBlock) continue;
    if (line.startsWith('$ npx credit-screen ')) {
      close();
      let command = line.slice(2);
      while (command.endsWith('\\')) command = `${command.slice(0, -1)} ${(lines[++index] ?? '').trim()}`;
      // A comment is `#` and a space after the command (a `#` inside a word, `"request #42"`, is not one).
      command = command.replace(/\s+#\s.*$/, '');
      current = {
        args: shellWords(command).slice(2),
        output: [],
        exitCode: 0,
        where: `${path}:${index + 1}`,
      };
    } else if (current && line.trim() === '') close();
    else if (current) {
      const exit = EXIT.exec(line);
      if (exit) current.exitCode = Number(exit[1]);
      current.output.push(line.replace(EXIT, '').trimEnd());
    }
  }
  return commands;
}

/**
 * Output as the docs can show it: batch ids, instants, durations, rates and the run's folder are what change from
 * one run to the next, and are written as placeholders on both sides before they are compared.
 */
export function normalisedOutput(text: string, cwd: string): string[] {
  return text
    .split(`${cwd}/`)
    .join('')
    .split(cwd)
    .join('.')
    .replace(/\b[0-9a-f]{24}\b/g, '<batch>')
    .replace(/\b\d{8}T\d{9}Z-[a-z]{12}\b/g, '<upload>')
    .replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z/g, '<time>')
    .replace(/\b\d+(\.\d+)? s\b/g, '<n> s')
    .replace(/\b\d+(\.\d+)? (req|rows)\/s\b/g, '<n> $2/s')
    .split('\n')
    .map((line) => line.trimEnd())
    .filter((line, index, all) => line !== '' || index < all.length - 1);
}

/** The first line of `shown` that `actual` does not print (`…` matches any lines), or null when all are printed. */
export function firstMissingLine(shown: readonly string[], actual: readonly string[]): string | null {
  let at = 0;
  for (let index = 0; index < shown.length; index++) {
    const line = shown[index] as string;
    if (line === '…') {
      const next = shown[index + 1];
      if (next === undefined) return null;
      const found = actual.indexOf(next, at);
      if (found === -1) return next;
      at = found;
      continue;
    }
    if (actual[at] !== line) return line;
    at++;
  }
  return at === actual.length ? null : `(more lines than shown: ${actual[at]})`;
}
