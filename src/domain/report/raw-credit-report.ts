/**
 * The credit-report response of the bureau API, as the service interface describes it, in zod.
 *
 * These schemas are the contract: the emulator's output is typed by them and the normaliser checks responses
 * against them to list what does not match as warnings. They are loose objects (unknown fields are kept) and
 * never used to reject a response outright. Parts the interface leaves unspecified are typed as open objects and
 * marked ASSUMPTION.
 */
import { z } from 'zod';

import { BUREAUS, type Bureau } from '../bureau/bureau-ids.ts';

export { BUREAUS, type Bureau };

/** `valorTotal` is the number 0 or a money string in the bureau's format. */
const moneyValue = z.union([z.number(), z.string()]);

const summaryEntry = z.looseObject({
  quantidadeTotal: z.number().int(),
  // Usually present; absent for bureau A cheques on a CPF.
  valorTotal: moneyValue.optional(),
});

export const queryResumeSchema = z.looseObject({
  protestos: summaryEntry,
  pendenciasFinanceiras: summaryEntry,
  chequesSemFundo: summaryEntry,
  /** Bureau A only. */
  chequesSustados: summaryEntry.optional(),
});

export const personBureauASchema = z.looseObject({
  nome: z.string(),
  cpf: z.string(),
  regiaoCPF: z.string(),
  dataNascimento: z.string(),
  estadoCivil: z.string(),
  grauInstrucao: z.string(),
  nomeMae: z.string(),
  numeroRG: z.string(),
  tituloEleitor: z.string(),
  situacao: z.string(),
  sexo: z.string(),
  numeroDependentes: z.string(),
  endereco: z.string(),
  bairro: z.string(),
  cidade: z.string(),
  uf: z.string(),
  cep: z.string(),
  telefone: z.string(),
  email: z.string(),
  rendaPresumida: z.string(),
  textoRendaPresumida: z.string(),
});

export const companyBureauASchema = z.looseObject({
  razaoSocial: z.string(),
  nomeFantasia: z.string(),
  situacao: z.string(),
  naturezaJuridica: z.string(),
  ramoAtividade: z.string(),
  cnpj: z.string(),
  dataFundacao: z.string(),
  endereco: z.string(),
  bairro: z.string(),
  cidade: z.string(),
  uf: z.string(),
  cep: z.string(),
});

export const personBureauBSchema = z.looseObject({
  nome: z.string(),
  cpf: z.string(),
  dataNascimento: z.string(),
  nomeMae: z.string(),
});

/** `dadosCadastrais` is an object, or the empty array `[]` when there is none (bureau B companies). */
export const emptyRegistration = z.array(z.never()).length(0);

export const scoreSchema = z.looseObject({
  score: z.string(),
  /** A number-like text, a percentage text, or a text meaning "not calculated". */
  probabilidade: z.string(),
  mensagem: z.string(),
});

export const protestBureauASchema = z.looseObject({
  data: z.string(),
  valor: z.string(),
  cartorio: z.string(),
  cidade: z.string(),
  tipoDocumento: z.string(),
  numeroDocumento: z.string(),
});

export const protestBureauBSchema = protestBureauASchema.extend({ estado: z.string() });

export const pendingDebtBureauBSchema = z.looseObject({
  data: z.string(),
  valor: z.string(),
  informante: z.string(),
  tipoPendencia: z.string(),
  situacao: z.string(),
  cidade: z.string(),
});

/** ASSUMPTION: the interface does not show these items; they are taken as objects of strings. */
export const unspecifiedItemSchema = z.record(z.string(), z.unknown());

export const queryHistoryItemSchema = z.looseObject({ data: z.string(), empresa: z.string() });

export const companyParticipationSchema = z.looseObject({
  empresa: z.string(),
  cnpj: z.string(),
  participacaoEmPorcentagem: z.string(),
  uf: z.string(),
  /** `-` when unknown. */
  dataEntrada: z.string(),
});

const creditQueryBureauASchema = z.looseObject({
  resumoConsulta: queryResumeSchema,
  dadosCadastrais: z.union([personBureauASchema, companyBureauASchema, emptyRegistration]),
  score: scoreSchema,
  protestos: z.array(protestBureauASchema),
  pendenciasFinanceiras: z.array(unspecifiedItemSchema),
  chequesSemFundo: z.array(unspecifiedItemSchema),
  chequesSustados: z.array(unspecifiedItemSchema),
  historicoConsultas: z.array(queryHistoryItemSchema),
});

const creditQueryBureauBSchema = z.looseObject({
  resumoConsulta: queryResumeSchema,
  dadosCadastrais: z.union([personBureauBSchema, emptyRegistration]),
  score: scoreSchema,
  protestos: z.array(protestBureauBSchema),
  pendenciasFinanceiras: z.array(pendingDebtBureauBSchema),
  chequesSemFundo: z.array(unspecifiedItemSchema),
  participacaoEmEmpresas: z.array(companyParticipationSchema),
});

export const queryReturnSchema = z.looseObject({
  /** May be empty. */
  cliente: z.string(),
  codigoConsulta: z.number().int(),
  pdf: z.string(),
});

/** A successful response. Besides these, the envelope has a field named after the service, holding a docs URL. */
function creditReportEnvelopeSchema<Query extends z.ZodType>(query: Query) {
  return z.looseObject({
    status: z.literal('sucesso'),
    dados: z.looseObject({ consultaCredito: query, resumoRetorno: queryReturnSchema }),
  });
}

export const creditReportBureauASchema = creditReportEnvelopeSchema(creditQueryBureauASchema);
export const creditReportBureauBSchema = creditReportEnvelopeSchema(creditQueryBureauBSchema);

export type CreditReportBureauA = z.infer<typeof creditReportBureauASchema>;
export type CreditReportBureauB = z.infer<typeof creditReportBureauBSchema>;

/** Success is the literal `sucesso` in the body, whatever the HTTP status (the legacy rule). */
export const SUCCESS_STATUS = 'sucesso';
