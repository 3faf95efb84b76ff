import { describe, expect, it } from 'vitest';
import { formatDocument, maskDocument } from '../../../src/domain/documents/index.ts';

describe('formatDocument', () => {
  it('writes the usual punctuated forms', () => {
    expect(formatDocument('51954022212', 'cpf')).toBe('519.540.222-12');
    expect(formatDocument('11222333000181', 'cnpj')).toBe('11.222.333/0001-81');
    expect(formatDocument('12ABC34501DE35', 'cnpj')).toBe('12.ABC.345/01DE-35');
  });
});

describe('maskDocument', () => {
  it('hides the first digits and the check digits of a CPF', () => {
    expect(maskDocument('51954022212')).toBe('***.540.222-**');
  });

  it('hides the start and the check digits of a CNPJ', () => {
    expect(maskDocument('11222333000181')).toBe('**.222.333/0001-**');
    expect(maskDocument('12ABC34501DE35')).toBe('**.ABC.345/01DE-**');
  });

  it('masks anything else whole, so a raw cell never leaks into a log', () => {
    expect(maskDocument('519540222')).toBe('*********');
    expect(maskDocument('not a document at all')).toBe('**************');
  });
});
