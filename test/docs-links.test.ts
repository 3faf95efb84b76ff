import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';

/** The documentation people read: the README, every page under docs/, and the client's own README. */
const PAGES = [
  'README.md',
  'service-client/README.md',
  ...readdirSync('docs')
    .filter((name) => name.endsWith('.md'))
    .map((name) => join('docs', name)),
];

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as dashes. */
const anchorOf = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\- _]/gu, '')
    .replace(/ /g, '-');

function anchorsOf(page: string): Set<string> {
  const text = readFileSync(page, 'utf8').replace(/```[\s\S]*?```/g, '');
  return new Set([...text.matchAll(/^#+ (.+)$/gm)].map((match) => anchorOf(match[1] as string)));
}

/** The relative links of a page (outside code), as written. */
function linksOf(page: string): string[] {
  const text = readFileSync(page, 'utf8').replace(/```[\s\S]*?```/g, '');
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((match) => match[1] as string)
    .filter((target) => !/^[a-z]+:/.test(target));
}

describe('the documentation', () => {
  it.each(PAGES)('%s: every relative link resolves, anchors included', (page) => {
    const broken = linksOf(page).filter((target) => {
      const [path = '', anchor] = target.split('#');
      const file = path === '' ? page : join(dirname(page), path);
      if (!existsSync(file)) return true;
      return anchor !== undefined && file.endsWith('.md') && !anchorsOf(file).has(anchor);
    });

    expect(broken).toEqual([]);
  });

  it('keeps the README to a first screen and links every page of docs/', () => {
    const readme = readFileSync('README.md', 'utf8');
    const docs = readdirSync('docs').filter((name) => name.endsWith('.md'));

    expect(readme.split('\n').length).toBeLessThanOrEqual(250);
    expect(Buffer.byteLength(readme)).toBeLessThanOrEqual(20 * 1024);
    for (const name of docs) expect(readme, name).toContain(`](docs/${name})`);
  });
});
