import { once } from 'node:events';
import { createWriteStream, type WriteStream } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { makePrivateDirectory, PRIVATE_FILE_MODE } from '../local/private-files.ts';

/** Text gathered before a write: a million rows are written in a few hundred writes, not a million. */
const FLUSH_CHARACTERS = 256 * 1024;

/**
 * `decisions.csv` being written: streamed to a private temporary file in the output folder (0600: it holds
 * documents and decisions about people, LGPD) and renamed into place only once complete, so a run that fails or
 * is interrupted never leaves a half-written file where a finished one was, nor replaces the previous one.
 */
export class DecisionsFile {
  #pending = '';

  private constructor(
    readonly path: string,
    readonly temporary: string,
    readonly stream: WriteStream,
  ) {}

  /** Creates the folder (0700) when missing and opens the temporary file; fails before anything is read. */
  static async create(directory: string, name: string): Promise<DecisionsFile> {
    await makePrivateDirectory(directory);
    const temporary = join(directory, `.${name}.${process.pid}.partial`);
    const handle = await open(temporary, 'w', PRIVATE_FILE_MODE);
    // The mode given to open passes through the umask; this one is exact.
    await handle.chmod(PRIVATE_FILE_MODE);
    return new DecisionsFile(join(directory, name), temporary, createWriteStream(temporary, { fd: handle }));
  }

  async write(text: string): Promise<void> {
    this.#pending += text;
    if (this.#pending.length >= FLUSH_CHARACTERS) await this.#flush();
  }

  async #flush(): Promise<void> {
    const text = this.#pending;
    this.#pending = '';
    if (text !== '' && !this.stream.write(text)) await once(this.stream, 'drain');
  }

  /** Writes what is left and puts the file in place. */
  async commit(): Promise<void> {
    await this.#flush();
    this.stream.end();
    await once(this.stream, 'close');
    await rename(this.temporary, this.path);
  }

  /** Removes the temporary file (after a failure). */
  async discard(): Promise<void> {
    if (!this.stream.closed) {
      this.stream.destroy();
      await once(this.stream, 'close').catch(() => undefined);
    }
    await rm(this.temporary, { force: true });
  }
}
