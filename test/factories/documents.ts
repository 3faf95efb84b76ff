import type { SeededRandom } from '../../emulator/seeded-random.ts';
import { cnpjCheckDigits, cpfCheckDigits, formatDocument } from '../../src/domain/documents/index.ts';

const ALPHANUMERIC = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ';

/** A valid bare CPF; never all-same digits. */
export function makeCpf(random: SeededRandom): string {
  for (;;) {
    const base = random.digits(9);
    if (!/^(\d)\1{8}$/.test(base)) return base + cpfCheckDigits(base);
  }
}

/** A valid bare numeric CNPJ (branch 0001 most of the time, as real lists have). */
export function makeCnpj(random: SeededRandom): string {
  const base = random.digits(8) + (random.chance(0.8) ? '0001' : random.digits(4));
  return base + cnpjCheckDigits(base);
}

/** A valid alphanumeric CNPJ (the format issued from July 2026). */
export function makeAlphanumericCnpj(random: SeededRandom): string {
  let base = '';
  for (let index = 0; index < 12; index++) base += random.pick(ALPHANUMERIC.split(''));
  return base + cnpjCheckDigits(base);
}

export function punctuate(document: string): string {
  return formatDocument(document, document.length === 11 ? 'cpf' : 'cnpj');
}

/** A valid CPF that starts with exactly `zeros` zeros, to test the recovery of what a numeric spreadsheet column drops. */
export function makeCpfWithLeadingZeros(random: SeededRandom, zeros: number): string {
  const base = '0'.repeat(zeros) + String(random.integer(1, 9)) + random.digits(8 - zeros);
  return base + cpfCheckDigits(base);
}

export function makeCnpjWithLeadingZeros(random: SeededRandom, zeros: number): string {
  const base = `${'0'.repeat(zeros) + String(random.integer(1, 9)) + random.digits(7 - zeros)}0001`;
  return base + cnpjCheckDigits(base);
}
