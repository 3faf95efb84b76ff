/**
 * Fails when folders depend on each other in a circle (dependency-cruiser's `circular` rule sees modules, not
 * folders). A folder here is a unit a reader thinks in: `src/<layer>/<module>`, `cli/local`, or a top
 * folder.
 * Run by `npm run architecture`; prints each cycle with one import per step. Plain JavaScript run by node: under tsx,
 * dependency-cruiser's swc parser fails to load.
 */
import { cruise } from 'dependency-cruiser';

const ROOTS = ['src', 'service-client', 'lib', 'lambdas', 'cli', 'emulator', 'bin'];

/** The folder a module belongs to, as docs/architecture.md names them. */
/** @param {string} path */
function folderOf(path) {
  const parts = path.split('/');
  // The command line is one unit (its commands and their parts), its local runner another; src by layer and module.
  const depth = parts[0] === 'src' ? 3 : parts[0] === 'cli' && parts[1] === 'local' ? 2 : 1;
  return parts.slice(0, Math.min(depth, parts.length - 1)).join('/') || path;
}

/**
 * Folder-to-folder edges, each with one import that makes it.
 * @param {import('dependency-cruiser').IModule[]} modules
 * @returns {Map<string, Map<string, string>>}
 */
function folderEdges(modules) {
  const edges = new Map();
  for (const module of modules) {
    for (const dependency of module.dependencies) {
      if (
        dependency.coreModule ||
        dependency.couldNotResolve ||
        dependency.resolved.startsWith('node_modules')
      )
        continue;
      const from = folderOf(module.source);
      const to = folderOf(dependency.resolved);
      if (from === to) continue;
      const targets = edges.get(from) ?? new Map();
      targets.set(to, `${module.source} → ${dependency.resolved}`);
      edges.set(from, targets);
    }
  }
  return edges;
}

/**
 * Strongly connected components of more than one folder (Tarjan): each is a set of folders in a cycle.
 * @param {Map<string, Map<string, string>>} edges
 * @returns {string[][]}
 */
function cyclicGroups(edges) {
  const index = new Map();
  const lowLink = new Map();
  /** @type {string[]} */
  const stack = [];
  /** @type {string[][]} */
  const groups = [];
  /** @param {string} folder */
  const visit = (folder) => {
    index.set(folder, index.size);
    lowLink.set(folder, index.get(folder) ?? 0);
    stack.push(folder);
    for (const next of edges.get(folder)?.keys() ?? []) {
      if (!index.has(next)) {
        visit(next);
        lowLink.set(folder, Math.min(lowLink.get(folder) ?? 0, lowLink.get(next) ?? 0));
      } else if (stack.includes(next)) {
        lowLink.set(folder, Math.min(lowLink.get(folder) ?? 0, index.get(next) ?? 0));
      }
    }
    if (lowLink.get(folder) !== index.get(folder)) return;
    /** @type {string[]} */
    const group = [];
    let member;
    do {
      member = stack.pop();
      if (member !== undefined) group.push(member);
    } while (member !== undefined && member !== folder);
    if (group.length > 1) groups.push(group.sort());
  };
  for (const folder of edges.keys()) if (!index.has(folder)) visit(folder);
  return groups;
}

async function main() {
  const result = await cruise(
    ROOTS,
    { parser: 'swc', tsPreCompilationDeps: true, doNotFollow: { path: 'node_modules' } },
    { extensions: ['.ts', '.mjs', '.js', '.json'] },
    { tsConfig: { fileName: 'tsconfig.json' } },
  );
  if (typeof result.output === 'string')
    throw new Error('dependency-cruiser returned text instead of modules');
  const edges = folderEdges(result.output.modules);
  const groups = cyclicGroups(edges);
  for (const group of groups) {
    console.error(`folder cycle: ${group.join(' ⇄ ')}`);
    for (const from of group)
      for (const [to, example] of edges.get(from) ?? [])
        if (group.includes(to)) console.error(`  ${example}`);
  }
  console.log(`${edges.size} folders, ${groups.length} folder cycles`);
  return groups.length === 0 ? 0 : 1;
}

process.exitCode = await main();
