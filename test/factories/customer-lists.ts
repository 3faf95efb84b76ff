import { SeededRandom } from '../../emulator/seeded-random.ts';
import { makeCnpj, makeCpf } from './documents.ts';

/** `count` distinct valid documents (a mix of CPFs and CNPJs), the same for the same seed. */
export function distinctDocuments(count: number, seed = 'documents'): string[] {
  const random = new SeededRandom(seed);
  const documents = new Set<string>();
  while (documents.size < count) documents.add(random.chance(0.6) ? makeCpf(random) : makeCnpj(random));
  return [...documents];
}

/** A customer list with a header, an id column and the given document cells. */
export function customerListCsv(cells: readonly string[]): string {
  return `customer_id,cpf_cnpj\n${cells.map((cell, index) => `C${index + 1},${cell}`).join('\n')}\n`;
}
