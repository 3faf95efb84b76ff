import { describe, expect, it } from 'vitest';
import { maskPersonalDataInText, REDACTED, redactForLog } from '../../../src/domain/documents/index.ts';

describe('maskPersonalDataInText', () => {
  it.each([
    ['a punctuated CPF', 'row 3: 519.540.222-12 failed', 'row 3: ***.540.222-** failed'],
    ['a bare CPF in a URL', 'GET /consulta?cpf=51954022212&x=1', 'GET /consulta?cpf=***.540.222-**&x=1'],
    ['a CPF with a bad check digit', 'got 51954022213', 'got ***.540.222-**'],
    ['a punctuated CNPJ', 'empresa 11.222.333/0001-81', 'empresa **.222.333/0001-**'],
    ['a bare CNPJ', 'incoming/a/11222333000181.csv', 'incoming/a/**.222.333/0001-**.csv'],
    [
      'an alphanumeric CNPJ, any case',
      '12.abc.345/01de-35 and 12ABC34501DE35',
      '**.ABC.345/01DE-** and **.ABC.345/01DE-**',
    ],
    ['an e-mail address', 'bounced: ana.silva@example.com.br', `bounced: ${REDACTED}`],
  ])('masks %s', (_label, text, expected) => {
    expect(maskPersonalDataInText(text)).toBe(expected);
  });

  it.each([
    ['epoch milliseconds (13 digits)', 'at 1732300000000'],
    ['a batch id', 'batch 9c41e0b7a2d35f186e04b8c2'],
    ['a 14-letter word that fails the CNPJ check digits', 'PROCESSAMENT12 done'],
    ['an ISO timestamp', 'fetched 2026-01-02T03:04:05.000Z'],
  ])('leaves %s alone', (_label, text) => {
    expect(maskPersonalDataInText(text)).toBe(text);
  });

  it('hides every quoted value and date of a text that names a personal field, keeping masked documents', () => {
    expect(maskPersonalDataInText('dadosCadastrais.dataNascimento: date "31/02/1990" does not exist')).toBe(
      `dadosCadastrais.dataNascimento: date "${REDACTED}" does not exist`,
    );
    expect(maskPersonalDataInText('dadosCadastrais.nomeMae: expected text, got {"a":"Maria Souza"}')).toBe(
      `dadosCadastrais.nomeMae: expected text, got {"${REDACTED}":"${REDACTED}"}`,
    );
    expect(maskPersonalDataInText('dadosCadastrais.cpf: "111.444.777-35" is not the queried document')).toBe(
      'dadosCadastrais.cpf: "***.444.777-**" is not the queried document',
    );
  });
});

describe('redactForLog', () => {
  it('hides personal fields whatever they hold, masks documents in strings, numbers and keys, at any depth', () => {
    const entry = {
      batchId: 'b1',
      row: 7,
      nested: [{ document: 51954022212, note: 'CNPJ 11222333000181' }],
      subject: { name: 'Ana', motherName: 'Maria' },
      dadosCadastrais: { nome: 'Ana', cpf: '51954022212' },
      Telefone: '(11) 98765-4321',
      'REPORT#a#51954022212': 'x',
    };
    expect(redactForLog(entry)).toEqual({
      batchId: 'b1',
      row: 7,
      nested: [{ document: '***.540.222-**', note: 'CNPJ **.222.333/0001-**' }],
      subject: REDACTED,
      dadosCadastrais: REDACTED,
      Telefone: REDACTED,
      'REPORT#a#***.540.222-**': 'x',
    });
  });

  it('turns errors into plain masked objects, causes included', () => {
    const error = new Error('bureau said 519.540.222-12 is unknown', {
      cause: new Error('for 11222333000181'),
    });
    const redacted = redactForLog({ error }) as { error: Record<string, unknown> };
    expect(redacted.error).toMatchObject({
      name: 'Error',
      message: 'bureau said ***.540.222-** is unknown',
      cause: { message: 'for **.222.333/0001-**' },
    });
    expect(JSON.stringify(redacted)).not.toMatch(/51954022212|519\.540\.222-12|11222333000181/);
  });

  it('survives cycles and absurd depth', () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    expect(redactForLog(cyclic)).toEqual({ a: 1, self: '[circular]' });
    let deep: unknown = '51954022212';
    for (let level = 0; level < 50; level++) deep = [deep];
    expect(JSON.stringify(redactForLog(deep))).not.toContain('51954022212');
  });
});
