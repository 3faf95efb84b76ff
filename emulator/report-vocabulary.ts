/** The words the emulator's reports are drawn from: names, places, trades, creditors, banks. */

export const FIRST_NAMES = [
  'MARIA',
  'JOSE',
  'ANA',
  'JOAO',
  'ANTONIO',
  'FRANCISCA',
  'CARLOS',
  'PAULO',
  'LUCIA',
  'MARCOS',
  'CONCEIÇÃO',
  'SEBASTIÃO',
];
export const SURNAMES = [
  'DA SILVA',
  'DOS SANTOS',
  'OLIVEIRA',
  'SOUZA',
  'RODRIGUES',
  'FERREIRA',
  'ALVES',
  'PEREIRA',
  'GONÇALVES',
  'ARAÚJO',
];
export const CITIES = [
  ['SAO PAULO', 'SP'],
  ['RIO DE JANEIRO', 'RJ'],
  ['BELO HORIZONTE', 'MG'],
  ['CURITIBA', 'PR'],
  ['RECIFE', 'PE'],
  ['PORTO ALEGRE', 'RS'],
  ['SALVADOR', 'BA'],
  ['GOIANIA', 'GO'],
] as const;
export const STREETS = [
  'RUA DAS FLORES',
  'AV BRASIL',
  'RUA XV DE NOVEMBRO',
  'AV PAULISTA',
  'RUA SÃO JOÃO',
  'TRAVESSA DO COMÉRCIO',
];
export const DISTRICTS = ['CENTRO', 'JARDIM AMÉRICA', 'VILA NOVA', 'BOA VISTA', 'SANTA CRUZ'];
export const TRADES = [
  'COMERCIO DE ALIMENTOS',
  'TRANSPORTES',
  'CONSTRUTORA',
  'FARMACIA',
  'INDUSTRIA TEXTIL',
  'SERVICOS MEDICOS',
];
export const CREDITORS = [
  'BANCO ALFA S.A.',
  'FINANCEIRA BETA',
  'LOJAS GAMA LTDA',
  'TELEFONICA DELTA',
  'CARTOES OMEGA',
  'ENERGIA SIGMA',
];
export const DEBT_KINDS = [
  'FINANCIAMENTO',
  'CARTAO DE CREDITO',
  'EMPRESTIMO',
  'CREDIARIO',
  'CONTA DE CONSUMO',
];
export const BANKS = ['001', '033', '104', '237', '341', '756'];
export const LEGAL_NATURES = [
  '206-2 - SOCIEDADE EMPRESARIA LIMITADA',
  '213-5 - EMPRESARIO INDIVIDUAL',
  '205-4 - SOCIEDADE ANONIMA FECHADA',
];
