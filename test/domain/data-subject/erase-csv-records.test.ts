import iconv from 'iconv-lite';
import { describe, expect, it } from 'vitest';
import {
  cellHoldsDocument,
  eraseCsvRecords,
  eraseJsonLines,
  textMentionsDocument,
} from '../../../src/domain/data-subject/index.ts';

const CPF = '41567638031';
const OTHER_CPF = '49486934720';
const ZERO_CPF = '05659939000'; // not checked for validity here: only how it is written matters

const decoded = (bytes: Uint8Array, encoding: string) => iconv.decode(Buffer.from(bytes), encoding);

describe('where a document is written', () => {
  it('finds it bare, formatted, among words and without its leading zeros, never inside a longer number', () => {
    // Arrange
    const holding = [CPF, '415.676.380-31', 'CPF 415.676.380-31 (titular)', ' 41567638031 '];
    const notHolding = ['141567638031', '415676380312', '4156763803', 'R$ 415.676,38', ''];

    // Act / Assert
    for (const cell of holding) expect(cellHoldsDocument(cell, CPF), cell).toBe(true);
    for (const cell of notHolding) expect(cellHoldsDocument(cell, CPF), cell).toBe(false);
    expect(cellHoldsDocument('5659939000', ZERO_CPF)).toBe(true);
    expect(textMentionsDocument('{"a":1,"document":"41567638031"}', CPF)).toBe(true);
    expect(textMentionsDocument('<span>415.676.380-31</span>', CPF)).toBe(true);
    expect(textMentionsDocument('raw/a/41567638031/1.json', CPF)).toBe(true);
    expect(textMentionsDocument('{"queryCode":141567638031}', CPF)).toBe(false);
  });
});

describe('eraseCsvRecords', () => {
  it('empties the records that hold the document and keeps every other byte of a customer list', () => {
    // Arrange: CRLF and a lone LF, a quoted cell spanning lines, a formatted and a bare document
    const text = `id;cpf;nome\r\n1;"415.676.380-31";"Ana\r\nSouza"\r\n2;${OTHER_CPF};Bia\n3;${CPF};"Caio; Jr"\r\n`;

    // Act
    const erased = eraseCsvRecords(Buffer.from(text, 'utf8'), CPF);

    // Assert
    expect(erased?.records).toBe(2);
    expect(Buffer.from(erased?.bytes ?? []).toString('utf8')).toBe(
      `id;cpf;nome\r\n;;\r\n2;${OTHER_CPF};Bia\n;;\r\n`,
    );
  });

  it.each([
    ['windows-1252', 'win1252', Buffer.alloc(0)],
    ['UTF-8 with BOM', 'utf8', Buffer.from([0xef, 0xbb, 0xbf])],
    ['UTF-16LE with BOM', 'utf16le', Buffer.from([0xff, 0xfe])],
    ['UTF-16BE with BOM', 'utf16be', Buffer.from([0xfe, 0xff])],
  ])('keeps the file in %s', (_name, encoding, bom) => {
    // Arrange
    const text = `cpf_cnpj,nome\r\n${OTHER_CPF},João Simões\r\n415.676.380-31,Luíza Ribeiro\r\n`;
    const bytes = Buffer.concat([bom, iconv.encode(text, encoding)]);

    // Act
    const erased = eraseCsvRecords(bytes, CPF);

    // Assert
    const result = Buffer.from(erased?.bytes ?? []);
    expect(result.subarray(0, bom.length)).toEqual(bom);
    expect(decoded(result.subarray(bom.length), encoding)).toBe(
      `cpf_cnpj,nome\r\n${OTHER_CPF},João Simões\r\n,\r\n`,
    );
  });

  it('keeps the row number and status of a summary record and says it was erased', () => {
    // Arrange
    const summary = `row,document,status,status_detail,name,score\r\n1,${CPF},screened,,"SOUZA, ANA",900\r\n2,${OTHER_CPF},screened,,BIA,300\r\n`;

    // Act
    const erased = eraseCsvRecords(Buffer.from(summary), CPF, {
      keep: ['row', 'status'],
      note: { column: 'status_detail', text: 'erased 2026-11-25' },
    });

    // Assert
    expect(Buffer.from(erased?.bytes ?? []).toString()).toBe(
      `row,document,status,status_detail,name,score\r\n1,,screened,erased 2026-11-25,,\r\n2,${OTHER_CPF},screened,,BIA,300\r\n`,
    );
  });

  it('answers null when no record holds the document, and a single-column file loses only its cell', () => {
    // Arrange
    const list = `cpf\n${OTHER_CPF}\n${CPF}\n`;

    // Act / Assert
    expect(eraseCsvRecords(Buffer.from(`cpf\n${OTHER_CPF}\n`), CPF)).toBeNull();
    expect(Buffer.from(eraseCsvRecords(Buffer.from(list), CPF)?.bytes ?? []).toString()).toBe(
      `cpf\n${OTHER_CPF}\n\n`,
    );
  });
});

describe('eraseJsonLines', () => {
  it('drops the lines that name the document', () => {
    // Arrange
    const text = `{"document":"${CPF}"}\n{"document":"${OTHER_CPF}"}\n`;

    // Act
    const erased = eraseJsonLines(text, CPF);

    // Assert
    expect(erased).toEqual({ text: `{"document":"${OTHER_CPF}"}\n`, lines: 1 });
    expect(eraseJsonLines(text, '11144477735')).toBeNull();
  });
});

describe('eraseCsvRecords on a changes file', () => {
  it('drops the records of the document with their line breaks', () => {
    // Arrange
    const changes = `row,document,change,before,after,delta\r\n1,${CPF},score,900,700,-200\r\n2,${OTHER_CPF},score,300,350,+50\r\n1,${CPF},protests,0,1,+1\r\n`;

    // Act
    const erased = eraseCsvRecords(Buffer.from(changes), CPF, 'drop');

    // Assert
    expect(erased?.records).toBe(2);
    expect(Buffer.from(erased?.bytes ?? []).toString()).toBe(
      `row,document,change,before,after,delta\r\n2,${OTHER_CPF},score,300,350,+50\r\n`,
    );
  });
});
