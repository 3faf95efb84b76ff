import { describe, expect, it } from 'vitest';
import { AutoTextDecoder } from '../../../src/domain/intake/index.ts';
import { chunked, utf8, utf8WithBom, utf16be, utf16le, windows1252 } from '../../factories/byte-sources.ts';

async function decodeAll(bytes: Uint8Array, chunkSize: number): Promise<{ text: string; encoding: string }> {
  const decoder = new AutoTextDecoder();
  let text = '';
  for await (const chunk of chunked(bytes, chunkSize)) text += decoder.write(chunk);
  text += decoder.end();
  return { text, encoding: decoder.encoding };
}

const SAMPLE = 'nome;obs\nConceição Araújo;“aspas” – travessão € ™\nJosé;ok\n';

describe('AutoTextDecoder', () => {
  it.each([1, 2, 3, 5, 64 * 1024])('decodes Windows-1252 in chunks of %i bytes', async (chunkSize) => {
    expect(await decodeAll(windows1252(SAMPLE), chunkSize)).toEqual({
      text: SAMPLE,
      encoding: 'windows-1252',
    });
  });

  it.each([1, 2, 3, 5, 64 * 1024])('decodes UTF-8 in chunks of %i bytes', async (chunkSize) => {
    expect(await decodeAll(utf8(SAMPLE), chunkSize)).toEqual({ text: SAMPLE, encoding: 'utf-8' });
  });

  it('drops a UTF-8 BOM and chooses UTF-8 for it', async () => {
    expect(await decodeAll(utf8WithBom('cpf\n'), 1)).toEqual({ text: 'cpf\n', encoding: 'utf-8' });
  });

  it('reports UTF-8 for pure ASCII', async () => {
    expect(await decodeAll(utf8('cpf\n51954022212\n'), 4)).toEqual({
      text: 'cpf\n51954022212\n',
      encoding: 'utf-8',
    });
  });

  it('decides on a file that ends right after its first accent', async () => {
    expect(await decodeAll(windows1252('José'), 64)).toEqual({ text: 'José', encoding: 'windows-1252' });
    expect(await decodeAll(utf8('José'), 64)).toEqual({ text: 'José', encoding: 'utf-8' });
  });

  describe('UTF-16 (Excel\'s "Unicode text")', () => {
    // A character outside the BMP (a surrogate pair) and accents: every chunk size below splits some code unit
    // or pair; 3 and 5 also split the BOM from the first code unit.
    const TEXT = 'cpf\tnome\r\n519.540.222-12\tConceição 😀 €\r\n';

    it.each([1, 2, 3, 5, 7, 64 * 1024])(
      'decodes little-endian with its BOM in chunks of %i bytes',
      async (size) => {
        expect(await decodeAll(utf16le(TEXT), size)).toEqual({ text: TEXT, encoding: 'utf-16le' });
      },
    );

    it.each([1, 2, 3, 5, 7, 64 * 1024])(
      'decodes big-endian with its BOM in chunks of %i bytes',
      async (size) => {
        expect(await decodeAll(utf16be(TEXT), size)).toEqual({ text: TEXT, encoding: 'utf-16be' });
      },
    );

    it('reads a file that is only a UTF-16 BOM as empty', async () => {
      expect(await decodeAll(Buffer.from([0xff, 0xfe]), 1)).toEqual({ text: '', encoding: 'utf-16le' });
    });

    it('still reads Windows-1252 text that starts with ÿ or þ, which are not a BOM', async () => {
      expect(await decodeAll(windows1252('ÿ;cpf\n'), 1)).toEqual({
        text: 'ÿ;cpf\n',
        encoding: 'windows-1252',
      });
      expect(await decodeAll(windows1252('þa;cpf\n'), 1)).toEqual({
        text: 'þa;cpf\n',
        encoding: 'windows-1252',
      });
    });
  });
});

describe('AutoTextDecoder: what the first bytes tell', () => {
  const withoutMark = (bytes: Uint8Array) => bytes.subarray(2);

  it.each([1, 3, 64 * 1024])(
    'reads UTF-16LE without a byte-order mark by its NUL bytes, in chunks of %i',
    async (size) => {
      expect(await decodeAll(withoutMark(utf16le(SAMPLE)), size)).toEqual({
        text: SAMPLE,
        encoding: 'utf-16le',
      });
    },
  );

  it('reads UTF-16BE without a byte-order mark by its NUL bytes', async () => {
    expect(await decodeAll(withoutMark(utf16be(SAMPLE)), 7)).toEqual({ text: SAMPLE, encoding: 'utf-16be' });
  });

  it('reads a short UTF-16LE file without a mark (shorter than the bytes looked at first)', async () => {
    expect(await decodeAll(withoutMark(utf16le('cpf\n1\n')), 1)).toEqual({
      text: 'cpf\n1\n',
      encoding: 'utf-16le',
    });
  });

  it.each([
    [
      'UTF-32 little-endian',
      [0xff, 0xfe, 0x00, 0x00, 0x63, 0, 0, 0],
      'unsupported_encoding',
      'UTF-32 (little-endian)',
    ],
    [
      'UTF-32 big-endian',
      [0x00, 0x00, 0xfe, 0xff, 0, 0, 0, 0x63],
      'unsupported_encoding',
      'UTF-32 (big-endian)',
    ],
    [
      'an Excel workbook (.xlsx)',
      [0x50, 0x4b, 0x03, 0x04, 0x14, 0, 6, 0],
      'not_a_text_file',
      'Excel workbook (.xlsx)',
    ],
    [
      'an old Excel workbook (.xls)',
      [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1],
      'not_a_text_file',
      'old Excel workbook (.xls)',
    ],
    ['a gzip file', [0x1f, 0x8b, 0x08, 0, 0, 0, 0, 0], 'not_a_text_file', 'gzip-compressed'],
    ['a PDF', [...Buffer.from('%PDF-1.7\n')], 'not_a_text_file', 'a PDF'],
  ])('refuses %s in one line naming it', async (_, bytes, code, named) => {
    const decoding = decodeAll(Uint8Array.from(bytes as number[]), 3);

    await expect(decoding).rejects.toMatchObject({ code, message: expect.stringContaining(named as string) });
    await expect(decoding).rejects.toThrow(/^[^\n]+$/);
  });

  it('still reads a Windows-1252 file whose text starts like no signature', async () => {
    expect(await decodeAll(windows1252('PK;nome\n1;Ana\n'), 2)).toMatchObject({ text: 'PK;nome\n1;Ana\n' });
  });
});
