import { describe, expect, it } from 'vitest';
import { AutoTextDecoder } from '../../../lambdas/core/intake/index.ts';
import { chunked, utf8, utf8WithBom, windows1252 } from '../../factories/byte-sources.ts';

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
});
