import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseCsvRows } from '../../../src/domain/intake/csv-rows.ts';
import { CustomerListError } from '../../../src/domain/intake/index.ts';
import { readAll, utf8 } from '../../factories/byte-sources.ts';

async function* pieces(chunks: readonly string[]): AsyncGenerator<string> {
  yield* chunks;
}

async function parseAll(chunks: readonly string[], delimiter = ','): Promise<string[][]> {
  const rows: string[][] = [];
  for await (const batch of parseCsvRows(pieces(chunks), { delimiter })) rows.push(...batch);
  return rows;
}

/**
 * Writes a field quoted when it must be, and sometimes when it need not be. A quote inside an unquoted field is left
 * as it is (`5" disk`): not RFC 4180, but common, and data to papaparse.
 */
function writeField(value: string, delimiter: string, quote: boolean): string {
  const mustQuote =
    value === '' || value.startsWith('"') || /[\r\n]/.test(value) || value.includes(delimiter);
  return quote || mustQuote ? `"${value.replaceAll('"', '""')}"` : value;
}

/** Cuts a text at the given positions (taken modulo its length), in order. */
function cut(text: string, positions: readonly number[]): string[] {
  const cuts = [...new Set(positions.map((position) => position % (text.length + 1)))].sort((a, b) => a - b);
  return [0, ...cuts]
    .map((from, index) => text.slice(from, cuts[index] ?? text.length))
    .filter((c) => c !== '');
}

const fieldText = fc.string({
  unit: fc.constantFrom('a', 'Z', '7', ' ', ',', ';', '\t', '|', '"', '\r', '\n', 'é'),
  maxLength: 6,
});
const written = fc.record({
  delimiter: fc.constantFrom(',', ';', '\t', '|'),
  rows: fc.array(
    fc.record({
      fields: fc.array(fc.record({ value: fieldText, quote: fc.boolean() }), { minLength: 1, maxLength: 4 }),
      lineBreak: fc.constantFrom('\r\n', '\n', '\r'),
    }),
    { minLength: 1, maxLength: 12 },
  ),
  lastLineBreak: fc.boolean(),
  cuts: fc.array(fc.nat(), { maxLength: 12 }),
});

describe('parseCsvRows', () => {
  it('reads back any rows, whatever mix of CRLF, LF and CR ends them and however the text is chunked', async () => {
    await fc.assert(
      fc.asyncProperty(written, async ({ delimiter, rows, lastLineBreak, cuts }) => {
        // Arrange
        const text = rows
          .map(({ fields, lineBreak }, index) => {
            const line = fields
              .map((field) => writeField(field.value, delimiter, field.quote))
              .join(delimiter);
            return index < rows.length - 1 || lastLineBreak ? line + lineBreak : line;
          })
          .join('');

        // Act
        const parsed = await parseAll(cut(text, cuts), delimiter);

        // Assert
        expect(parsed).toEqual(rows.map(({ fields }) => fields.map((field) => field.value)));
      }),
      { numRuns: 300 },
    );
  });

  it.each([
    ['a CR ending one chunk and an LF opening the next', ['a\r', '\nb'], [['a'], ['b']]],
    ['a CR ending one chunk and text opening the next', ['a\r', 'b'], [['a'], ['b']]],
    ['a lone CR, then a CRLF', ['a\r', '\r\nb'], [['a'], [''], ['b']]],
    ['line breaks inside quotes, kept in the value', ['"x\r', '\ny\rz\n"\r\nb'], [['x\r\ny\rz\n'], ['b']]],
  ])('reads %s', async (_label, chunks, expected) => {
    // Act
    const parsed = await parseAll(chunks);

    // Assert
    expect(parsed).toEqual(expected);
  });

  it('refuses, in one line, a text whose records papaparse reads as fewer rows', async () => {
    // Arrange: papaparse reads the quote after Ana as data and runs her name on to Caio's closing quote.
    const text = 'cpf;nome\n51954022212;"Ana"x\n48620579851;Bia\n11222333000181;"Caio"\n';

    // Act
    const parsing = parseAll([text], ';');

    // Assert
    await expect(parsing).rejects.toBeInstanceOf(CustomerListError);
    await expect(parsing).rejects.toMatchObject({
      code: 'unbalanced_quote',
      message: expect.stringMatching(/^the file has 4 lines but reads as 2 rows: .*line 2\b[^\n]*$/),
    });
  });
});

describe('openCustomerList on mixed line breaks', () => {
  const chunkSizes = [1, 2, 7, 64 * 1024];

  it.each(chunkSizes)(
    'reads every row of a CRLF header over LF rows (chunks of %i bytes)',
    async (chunkSize) => {
      // Arrange
      const text = 'cpf,nome\r\n51954022212,A\n48620579851,B\n11222333000181,C\n';

      // Act
      const { rows } = await readAll(utf8(text), { chunkSize });

      // Assert
      expect(rows.map((row) => [row.document, ...row.passThrough])).toEqual([
        ['51954022212', 'A'],
        ['48620579851', 'B'],
        ['11222333000181', 'C'],
      ]);
      expect(rows.flatMap((row) => [row.input, ...row.passThrough]).join('')).not.toMatch(/[\r\n]/);
    },
  );

  it.each(chunkSizes)(
    'does not drop the customer after a stray CR in an LF file (chunks of %i bytes)',
    async (chunkSize) => {
      // Arrange: one line ends with a lone CR, and a name holds another (a break too, outside quotes).
      const text =
        'cpf;nome\n51954022212;Ana\r48620579851;Bia\n11222333000181;Caio\rSilva\n23456789092;Dan\n';

      // Act
      const { rows } = await readAll(utf8(text), { chunkSize });

      // Assert
      expect(rows.filter((row) => row.status === 'valid').map((row) => row.document)).toEqual([
        '51954022212',
        '48620579851',
        '11222333000181',
        '23456789092',
      ]);
      expect(rows.flatMap((row) => row.passThrough).join('')).not.toMatch(/[\r\n]/);
    },
  );

  it('refuses a file whose misplaced quote would swallow customers, with one clear line', async () => {
    // Arrange
    const text = 'cpf;nome\n51954022212;"Ana"x\n48620579851;Bia\n11222333000181;"Caio"\n23456789092;Dan\n';

    // Act
    const reading = readAll(utf8(text));

    // Assert
    await expect(reading).rejects.toMatchObject({
      code: 'unbalanced_quote',
      message: expect.stringMatching(/^the file has 5 lines but reads as 3 rows[^\n]*$/),
    });
  });

  it('reads a long Excel export (CRLF) with a quoted field in linear time', async () => {
    // Arrange: 50,000 CRLF lines, 2.2 MB in one piece, and one quoted field at its end: a scan that looked ahead for
    // the quote again from every character took about 20 s here (quadratic); reading once takes well under a tenth
    // of a second. The bound leaves a wide margin for a loaded machine.
    const lines = Array.from(
      { length: 50_000 },
      (_, index) => `CLI-${index},52998224725,Nome ${index},varejo`,
    );
    const text = `${lines.join('\r\n')}\r\n"Ana, a quoted name",x\r\n`;

    // Act
    const started = performance.now();
    const parsed = await parseAll([text]);
    const elapsed = performance.now() - started;

    // Assert
    expect(parsed).toHaveLength(50_001);
    expect(parsed.at(-1)).toEqual(['Ana, a quoted name', 'x']);
    expect(elapsed).toBeLessThan(5_000);
  });
});
