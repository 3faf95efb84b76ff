import { readdir, readFile, rm } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import type { ErasableObjects } from '../../src/application/data-subject/subject-objects.ts';
import { writePrivateFile } from './private-files.ts';

/**
 * A folder of the user's machine seen as the bucket prefix it was downloaded from (`out/` as `results/`), so what
 * erases a document from the bucket's results erases it from their downloaded copies the same way.
 */
export class FolderObjects implements ErasableObjects {
  constructor(
    private readonly folder: string,
    /** The bucket prefix the folder stands for, with its slash: `results/`. */
    private readonly prefix: string,
  ) {}

  async *list(prefix: string): AsyncIterable<string> {
    if (!prefix.startsWith(this.prefix)) return;
    const root = join(this.folder, ...prefix.slice(this.prefix.length).split('/').filter(Boolean));
    const entries = await readdir(root, { recursive: true, withFileTypes: true }).catch(() => []);
    const keys = entries
      .filter((entry) => entry.isFile())
      .map(
        (entry) =>
          this.prefix + relative(this.folder, join(entry.parentPath, entry.name)).split(sep).join('/'),
      );
    yield* keys.sort();
  }

  async *read(key: string): AsyncIterable<Uint8Array> {
    yield await readFile(this.#pathOf(key));
  }

  async rewrite(key: string, bytes: Uint8Array): Promise<void> {
    await writePrivateFile(this.#pathOf(key), bytes);
  }

  async remove(key: string): Promise<void> {
    await rm(this.#pathOf(key), { force: true });
  }

  #pathOf(key: string): string {
    if (!key.startsWith(this.prefix) || key.split('/').some((part) => part === '..'))
      throw new Error(`${key} is not under ${this.prefix}`);
    return join(this.folder, ...key.slice(this.prefix.length).split('/'));
  }
}
