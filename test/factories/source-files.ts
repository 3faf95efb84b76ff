import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** The project's root folder. */
export const ROOT = new URL('../../', import.meta.url).pathname;

/** The TypeScript and .mjs files under a folder of the project, as paths relative to its root. */
export function sourceFiles(folder: string): string[] {
  return readdirSync(join(ROOT, folder)).flatMap((name) => {
    const path = join(folder, name);
    if (statSync(join(ROOT, path)).isDirectory()) return sourceFiles(path);
    return /\.(ts|mjs)$/.test(name) ? [path] : [];
  });
}
