import { describe, expect, it } from 'vitest';
import { sniffDelimiter } from '../../../src/domain/intake/index.ts';

describe('sniffDelimiter', () => {
  it('prefers the consistent delimiter over the frequent one', () => {
    const sample = 'nome;cidade\nSilva, Ana;Rio\nSouza, Bia, Jr;São Paulo\nCaio;Recife\n';
    expect(sniffDelimiter(sample, true)).toBe(';');
  });

  it('ignores delimiters inside quotes', () => {
    expect(sniffDelimiter('"a;b;c",d\n"e;f;g",h\n', true)).toBe(',');
  });

  it('returns null for a single-column sample', () => {
    expect(sniffDelimiter('cpf\n51954022212\n', true)).toBeNull();
  });

  it('ignores the possibly cut last line of an incomplete sample', () => {
    expect(sniffDelimiter('a;b\nc;d\ne,f,g,h,i', false)).toBe(';');
  });
});

describe('sniffDelimiter on ragged and ambiguous files', () => {
  it('finds the delimiter of rows with different numbers of fields', () => {
    expect(sniffDelimiter('id;cpf;nome;seg\n1;51954022212\n2;11222333000181;Caio;PME;;;\n', true)).toBe(';');
  });

  it('keeps a one-column file with an Excel scientific-notation value as one column', () => {
    expect(sniffDelimiter('1,23457E+13\n51954022212\n', true)).toBeNull();
  });

  it('keeps ; when every line also has a decimal comma', () => {
    expect(sniffDelimiter('cpf;valor\n51954022212;1,5\n11222333000181;2,5\n', true)).toBe(';');
  });
});
