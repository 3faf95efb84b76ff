/**
 * Generates the committed sample customer lists (`npm run samples`):
 * - `samples/customers.csv`: UTF-8, comma-separated, what a CRM export looks like;
 * - `samples/customers-excel-br.csv`: the same customers as Brazilian Excel saves them: `;`, Windows-1252, CRLF,
 *   some documents punctuated (text cells), others stored as numbers (leading zeros lost, long CNPJs shown in
 *   scientific notation).
 * The data is synthetic: documents come from the check-digit rules, names from word lists. Deterministic, so a
 * test can check the committed files are what this script makes.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import iconv from 'iconv-lite';
import { SeededRandom } from '../emulator/seeded-random.ts';
import {
  makeAlphanumericCnpj,
  makeCnpj,
  makeCnpjWithLeadingZeros,
  makeCpf,
  makeCpfWithLeadingZeros,
  punctuate,
} from '../test/factories/documents.ts';

const FIRST_NAMES = [
  'Maria',
  'José',
  'Ana',
  'João',
  'Antônio',
  'Francisca',
  'Luíza',
  'Sebastião',
  'Márcia',
  'Conceição',
  'Raimundo',
  'Cláudia',
  'Fábio',
  'Letícia',
  'Inês',
];
const SURNAMES = [
  'da Silva',
  'dos Santos',
  'Oliveira',
  'Souza',
  'Araújo',
  'Gonçalves',
  'Pereira',
  'Simões',
  'Conceição',
  'Brandão',
  'Magalhães',
  'Ribeiro',
];
const TRADES = [
  'Comércio de Alimentos',
  'Indústria Têxtil',
  'Transportes',
  'Farmácia',
  'Padaria',
  'Construções',
  'Açougue',
  'Papelaria',
  'Serviços Médicos',
];
const PLACES = ['Paraná', 'São João', 'Goiás', 'Maranhão', 'Três Rios', 'Ipê', 'Itaú', 'Pará'];
const FORMS = ['Ltda', 'S.A.', 'ME', 'EIRELI'];

export interface SampleRow {
  readonly customerId: string;
  /** The document as a CRM would export it (text, punctuated or bare). */
  readonly document: string;
  /** How Brazilian Excel writes the same cell. */
  readonly excelDocument: string;
  readonly name: string;
  readonly segment: string;
}

/** Excel's General format: a long number shows as 1,23457E+13 and its digits are gone. */
function excelNumber(document: string): string {
  const value = Number(document);
  if (value >= 1e11) return value.toExponential(5).replace('.', ',').replace('e+', 'E+');
  return String(value);
}

export function sampleRows(): SampleRow[] {
  const random = new SeededRandom('credit-screen samples v1');
  const rows: SampleRow[] = [];
  const person = () => `${random.pick(FIRST_NAMES)} ${random.pick(SURNAMES)}`;
  const company = () => `${random.pick(TRADES)} ${random.pick(PLACES)} ${random.pick(FORMS)}`;
  const add = (document: string, excelDocument: string, name: string, segment: string) =>
    rows.push({
      customerId: `CLI-${String(rows.length + 1).padStart(5, '0')}`,
      document,
      excelDocument,
      name,
      segment,
    });

  for (let index = 0; index < 300; index++) {
    const roll = random.next();
    if (roll < 0.6) {
      // People; one in eight has a CPF starting with zeros, which Excel's numeric column loses.
      const cpf = random.chance(0.125)
        ? makeCpfWithLeadingZeros(random, random.integer(1, 2))
        : makeCpf(random);
      const written = random.chance(0.6) ? punctuate(cpf) : cpf;
      add(
        written,
        random.chance(0.5) ? punctuate(cpf) : excelNumber(cpf),
        person(),
        random.pick(['pessoa física', 'varejo']),
      );
    } else if (roll < 0.95) {
      const cnpj = random.chance(0.1)
        ? makeCnpjWithLeadingZeros(random, random.integer(1, 2))
        : makeCnpj(random);
      const written = random.chance(0.7) ? punctuate(cnpj) : cnpj;
      add(
        written,
        random.chance(0.9) ? punctuate(cnpj) : excelNumber(cnpj),
        company(),
        random.pick(['PME', 'corporate', 'atacado']),
      );
    } else {
      // Alphanumeric CNPJs (issued from July 2026) are text in Excel too.
      const cnpj = makeAlphanumericCnpj(random);
      add(punctuate(cnpj), punctuate(cnpj), company(), 'PME');
    }
  }
  // The problems a real list has: typos, missing values, repeated customers in another format.
  const typo = (document: string) => document.slice(0, -1) + String((Number(document.at(-1)) + 1) % 10);
  const bare = (row: SampleRow | undefined) => (row?.document ?? '').replace(/[.\-/]/g, '');
  add(typo(makeCpf(random)), typo(makeCpf(random)), person(), 'varejo');
  add('', '', person(), 'varejo');
  add('111.111.111-11', '111.111.111-11', person(), 'varejo');
  add('1234567', '1234567', company(), 'PME');
  add('12.345.678/0001-XX', '12.345.678/0001-XX', company(), 'PME');
  add(typo(makeCnpj(random)), typo(makeCnpj(random)), company(), 'atacado');
  for (const source of [rows[3], rows[10], rows[42], rows[120], rows[200]]) {
    if (source === undefined) continue;
    add(bare(source), source.excelDocument, source.name, source.segment);
  }
  return rows;
}

function csvCell(value: string, delimiter: string): string {
  return /["\r\n]/.test(value) || value.includes(delimiter) ? `"${value.replaceAll('"', '""')}"` : value;
}

export function buildSamples(): { standard: Buffer; excel: Buffer } {
  const rows = sampleRows();
  const standard = [
    'customer_id,cpf_cnpj,name,segment',
    ...rows.map((row) =>
      [row.customerId, row.document, row.name, row.segment].map((cell) => csvCell(cell, ',')).join(','),
    ),
  ];
  const excel = [
    'Código do Cliente;CPF/CNPJ;Razão Social / Nome;Segmento',
    ...rows.map((row) =>
      [row.customerId, row.excelDocument, row.name, row.segment].map((cell) => csvCell(cell, ';')).join(';'),
    ),
  ];
  return {
    standard: Buffer.from(`${standard.join('\n')}\n`, 'utf8'),
    excel: iconv.encode(`${excel.join('\r\n')}\r\n`, 'win1252'),
  };
}

export const SAMPLE_FILES = {
  standard: fileURLToPath(new URL('../samples/customers.csv', import.meta.url)),
  excel: fileURLToPath(new URL('../samples/customers-excel-br.csv', import.meta.url)),
} as const;

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const samples = buildSamples();
  writeFileSync(SAMPLE_FILES.standard, samples.standard);
  writeFileSync(SAMPLE_FILES.excel, samples.excel);
  console.log(`wrote ${SAMPLE_FILES.standard} and ${SAMPLE_FILES.excel}`);
}
