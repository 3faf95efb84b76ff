import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { customerListCsv, distinctDocuments } from '../factories/customer-lists.ts';
import { type RunningCli, runCli, startCli } from '../factories/run-cli.ts';
import { accessibilityViolations } from './accessibility.ts';

/** Debian's Chromium (`npm test` installs it when missing), driven by playwright-core: no browser download. */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** Screenshots for a person to look at (git-ignored). */
const OUTPUT = fileURLToPath(new URL('../../test-output/console', import.meta.url));

let browser: Browser;
let console_: RunningCli;
let ownerLink: string;
/** Every address any page of the test asked for, in every browser context. */
const requested: string[] = [];
const PESSOA_FISICA = fileURLToPath(new URL('../../samples/policies/pessoa-fisica.json', import.meta.url));
const documents = {
  small: distinctDocuments(3, 'console small'),
  decided: distinctDocuments(40, 'console decided')
    .filter((document) => document.length === 11)
    .slice(0, 20),
  big: distinctDocuments(12, 'console big'),
  uploaded: distinctDocuments(20, 'console uploaded')
    .filter((document) => document.length === 11)
    .slice(0, 5),
  journey: distinctDocuments(40, 'console journey')
    .filter((document) => document.length === 11)
    .slice(0, 12),
};

/** Lists over this many documents wait for a manager in the console (the journey's list of 12 does). */
const CONSOLE_APPROVAL_THRESHOLD = 8;

/**
 * Screens three lists into a new state: one completes, one is decided by the sample policy (some rows in review),
 * and one waits for approval (over a threshold of 5).
 */
async function stateWithBatches(): Promise<string> {
  const cwd = await mkdtemp(join(tmpdir(), 'credit-screen-console-'));
  await writeFile(join(cwd, 'clientes-pequenos.csv'), customerListCsv(documents.small));
  const decided = documents.decided.map((cpf, index) => `${cpf},C${index + 1},20000`);
  await writeFile(
    join(cwd, 'clientes-decididos.csv'),
    `cpf,cliente,valor_solicitado\n${decided.join('\n')}\n`,
  );
  await writeFile(join(cwd, 'carteira-grande.csv'), customerListCsv(documents.big));
  const state = join(cwd, 'state');
  const screen = (...args: string[]) => runCli(['screen', ...args, '--state', state], { cwd });
  const runs = [
    await screen('clientes-pequenos.csv', '--out', 'out'),
    await screen('clientes-decididos.csv', '--policy', PESSOA_FISICA, '--out', 'out2'),
  ];
  const big = await screen('carteira-grande.csv', '--approve-above', '5');
  if (runs.some((run) => run.code !== 0) || !/over the approval threshold/.test(big.stderr))
    throw new Error(`state not made: ${runs.map((run) => run.stderr).join(' ')} ${big.stderr}`);
  return state;
}

async function consoleLink(running: RunningCli): Promise<string> {
  for (let waited = 0; waited < 60_000; waited += 100) {
    const line = /^console: (http:\/\/127\.0\.0\.1:\d+\/#token=[\w-]+)$/m.exec(running.stdout());
    if (line?.[1]) return line[1];
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the console printed no link: ${running.stderr()}`);
}

/** A new browser session (its own cookies) at `width` px, opened on `url`. */
async function openPage(url: string, width = 1280): Promise<Page> {
  const context = await browser.newContext({ viewport: { width, height: 900 }, locale: 'pt-BR' });
  context.on('request', (request) => requested.push(request.url()));
  const page = await context.newPage();
  await page.goto(url);
  return page;
}

async function screenshots(page: Page, name: string): Promise<void> {
  await mkdir(OUTPUT, { recursive: true });
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: 900 });
    await page.screenshot({ path: join(OUTPUT, `${name}-${width}.png`), fullPage: true });
  }
  await page.setViewportSize({ width: 1280, height: 900 });
}

/** A user the owner creates with one role (by its label); their one-time sign-in link. */
async function newUser(owner: Page, name: string, role: string): Promise<string> {
  await owner.getByRole('link', { name: 'Usuários' }).click();
  await owner.getByLabel('Nome').fill(name);
  if (role !== 'analista') {
    await owner.getByLabel('analista', { exact: true }).uncheck();
    await owner.getByLabel(role).check();
  }
  await owner.getByRole('button', { name: 'Criar usuário' }).click();
  return owner.getByLabel(`Link de acesso de ${name}`).inputValue();
}

beforeAll(async () => {
  const state = await stateWithBatches();
  console_ = startCli([
    'console',
    '--state',
    state,
    '--port',
    '0',
    '--approve-above',
    String(CONSOLE_APPROVAL_THRESHOLD),
  ]);
  ownerLink = await consoleLink(console_);
  browser = await chromium
    .launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] })
    .catch((error: Error) => {
      throw new Error(`cannot start Chromium at ${CHROMIUM} (apt-get install chromium): ${error.message}`);
    });
}, 240_000);

afterAll(async () => {
  await browser?.close();
  console_?.kill('SIGTERM');
  await console_?.done;
});

describe('the console in a browser', () => {
  let owner: Page;
  let managerLink: string;
  let analystPage: Page | undefined;

  it('signs its owner in from the printed link, drops the token from the address, and lists the batches in pt-BR', async () => {
    owner = await openPage(ownerLink);

    await owner.locator('tbody tr').nth(2).waitFor();
    const rows = await owner.locator('tbody tr').allInnerTexts();

    expect(owner.url()).not.toContain('token');
    expect(rows).toHaveLength(3);
    expect(rows[0]).toMatch(
      /carteira-grande\.csv[\s\S]*Aguardando aprovação[\s\S]*0 de 12[\s\S]*12[\s\S]*R\$\s0,00[\s\S]*de R\$\s100,80/,
    );
    expect(rows[1]).toMatch(/clientes-decididos\.csv[\s\S]*Concluído[\s\S]*20 de 20/);
    expect(rows[2]).toMatch(/clientes-pequenos\.csv[\s\S]*Concluído[\s\S]*3 de 3[\s\S]*R\$\s25,20/);
    expect(await accessibilityViolations(owner)).toEqual([]);
    await screenshots(owner, 'batches');
  });

  it('refuses the same link a second time', async () => {
    const again = await openPage(ownerLink);

    await expect(again.getByRole('alert').innerText()).resolves.toBe(
      'this sign-in link was used already or has expired; ask for a new one',
    );
    await again.context().close();
  });

  it('lets the owner create a manager, whose own link signs them in', async () => {
    await owner.getByRole('link', { name: 'Usuários' }).click();
    await owner.getByLabel('Nome').fill('Marta Gerente');
    await owner.getByLabel('analista', { exact: true }).uncheck();
    await owner.getByLabel('gestor de crédito').check();
    await owner.getByRole('button', { name: 'Criar usuário' }).click();
    managerLink = await owner.getByLabel('Link de acesso de Marta Gerente').inputValue();

    expect(managerLink).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/#token=[\w-]{43}$/);
    // The list is read again once the user is created.
    const row = owner.getByRole('row', { name: /^Marta Gerente/ });
    await row.waitFor();
    expect(await row.innerText()).toMatch(/^Marta Gerente\tgestor de crédito\t/);
    expect(await accessibilityViolations(owner)).toEqual([]);
    await screenshots(owner, 'users');
  });

  it('records the signed-in manager as who approved the batch waiting for approval', async () => {
    const manager = await openPage(managerLink);
    await manager.getByRole('link', { name: 'carteira-grande.csv' }).click();
    await manager.getByRole('heading', { name: 'carteira-grande.csv' }).waitFor();
    expect(await accessibilityViolations(manager)).toEqual([]);
    await screenshots(manager, 'batch-awaiting-approval');

    // What the month has bought from bureau A so far: the first batch's 3 documents at R$ 8,40, no cap.
    await expect(manager.getByRole('region', { name: 'Gasto' }).innerText()).resolves.toMatch(
      /Este mês, birô A\s+\d+ consultas \(R\$\s[\d.,]+\), sem limite mensal/,
    );
    await manager.getByRole('button', { name: /^Aprovar/ }).click();

    await expect(manager.getByRole('status').innerText()).resolves.toBe(
      'Lote aprovado: as consultas começam.',
    );
    await manager.getByText('aprovado por Marta Gerente').waitFor();
    await expect(manager.locator('.who').innerText()).resolves.toMatch(
      /^Marta Gerente \(gestor de crédito\)/,
    );
    // The console's own workers take it further; the page follows it to its end without a reload.
    await manager.getByText('Concluído', { exact: true }).waitFor({ timeout: 60_000 });
    const spend = await manager.getByRole('region', { name: 'Gasto' }).innerText();
    expect(spend).toMatch(/Gasto até agora\s+R\$\s100,80/);
    await manager.context().close();
  }, 90_000);

  it('shows an analyst no approval, and the API refuses one they force', async () => {
    await owner.getByRole('link', { name: 'Usuários' }).click();
    await owner.getByLabel('Nome').fill('Ana Analista');
    await owner.getByRole('button', { name: 'Criar usuário' }).click();
    const analyst = await openPage(
      await owner.getByLabel('Link de acesso de Ana Analista').inputValue(),
      390,
    );
    analystPage = analyst;
    await analyst.getByRole('link', { name: 'clientes-pequenos.csv' }).click();
    await analyst.getByRole('heading', { name: 'clientes-pequenos.csv' }).waitFor();

    const forced = await analyst.evaluate(async () => {
      const batchId = (globalThis as unknown as { location: URL }).location.pathname.split('/').pop();
      const response = await fetch(`/api/batches/${batchId}/cancel`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: '{}',
      });
      return [response.status, await response.json()];
    });

    const buttons = await analyst.getByRole('button').allInnerTexts();
    expect(buttons.filter((name) => /Aprovar|Rejeitar|Cancelar/.test(name))).toEqual([]);
    expect(buttons).toContain('Baixar Resumo (CSV)');
    expect(forced).toEqual([403, { error: 'this needs the role manager' }]);
    expect(await accessibilityViolations(analyst)).toEqual([]);
    await screenshots(analyst, 'batch-completed-analyst');
  });

  it('lets the analyst take a row in review, read the rules that fired, and comment on it', async () => {
    const analyst = analystPage as Page;
    await analyst.setViewportSize({ width: 1280, height: 900 });
    await analyst.getByRole('link', { name: 'Revisão' }).click();
    const first = analyst.getByRole('article').first();
    await first.waitFor();

    await first.getByRole('button', { name: 'Assumir' }).click();
    await first.getByText('Com você').waitFor();
    await first.getByText('Dados, regras e comentários').click();
    await first.getByRole('heading', { name: 'Regras que dispararam' }).waitFor();
    const rules = await first.locator('.case ol li').allInnerTexts();
    await first
      .getByLabel('Comentário', { exact: true })
      .fill('Pedi o holerite ao cliente.\nRetorno até amanhã.');
    await first.getByRole('button', { name: 'Comentar' }).click();
    await first.getByText('Retorno até amanhã.', { exact: false }).waitFor();
    expect(await accessibilityViolations(analyst)).toEqual([]);
    await screenshots(analyst, 'review-case');
    await first.screenshot({ path: join(OUTPUT, 'review-case-card-1280.png') });
    await analyst.getByLabel('Minhas').check();
    await analyst.getByText(/^1 linha aguarda/).waitFor();

    // Assert: the rules are the engine's trace; the comment is signed by the signed-in analyst.
    expect(rules.length).toBeGreaterThan(0);
    await expect(first.locator('.comments').innerText()).resolves.toContain('Ana Analista');
    await analyst.getByLabel('Todas', { exact: true }).check();
    // The list is read again for every holder: the next test counts the rows once it shows them all.
    await analyst.getByText(/^\d+ linhas aguardam/).waitFor();
  });

  it('lets the analyst decide a row in review, recorded under their own name', async () => {
    const analyst = analystPage as Page;
    await analyst.setViewportSize({ width: 1280, height: 900 });
    await analyst.getByRole('link', { name: 'Revisão' }).click();
    const first = analyst.getByRole('article').first();
    await first.waitFor();
    const waiting = await analyst.getByText(/linhas? aguarda/).innerText();
    expect(await accessibilityViolations(analyst)).toEqual([]);
    await screenshots(analyst, 'review');
    await analyst.screenshot({ path: join(OUTPUT, 'review-top-1280.png') });

    const title = await first.getByRole('heading', { level: 2 }).innerText();
    await first.getByLabel('Limite de crédito (R$, opcional)').fill('15000');
    await first.getByLabel('Motivo').fill('Renda comprovada por holerite');
    await first.getByRole('button', { name: 'Registrar decisão' }).click();

    const row = /^Linha (\d+)/.exec(title)?.[1];
    await expect(analyst.getByRole('status').innerText()).resolves.toMatch(
      new RegExp(`linha ${row}: aprovado por Ana Analista\\.$`),
    );
    const before = Number(/^(\d+)/.exec(waiting)?.[1]);
    await analyst.getByText(new RegExp(`^${before - 1} linhas? aguarda`)).waitFor();
    expect(before).toBeGreaterThan(0);
  });

  it('writes the final decisions into the summary, whose download names the analyst, and shows the report', async () => {
    const analyst = analystPage as Page;
    await analyst.getByRole('link', { name: 'Lotes' }).click();
    await analyst.getByRole('link', { name: 'clientes-decididos.csv' }).click();
    await analyst.getByRole('button', { name: 'Gravar decisões finais no resumo' }).click();
    await expect(analyst.getByRole('status').innerText()).resolves.toMatch(
      /^Decisões finais gravadas no resumo: 1 por pessoas, \d+ ainda em revisão\.$/,
    );

    const [download] = await Promise.all([
      analyst.waitForEvent('download'),
      analyst.getByRole('button', { name: 'Baixar Resumo (CSV)' }).click(),
    ]);
    const summary = await readFile((await download.path()) as string, 'utf8');
    await analyst.getByRole('button', { name: 'Ver relatório' }).click();
    const report = analyst.frameLocator('iframe[title="Relatório do lote"]');

    expect(download.suggestedFilename()).toMatch(/^[0-9a-f]{24}-summary\.csv$/);
    expect(summary.split('\n')[0]).toContain('final_decision,final_credit_limit,decided_by,decided_at');
    expect(summary.split('\n').filter((line) => line.includes(',Ana Analista,'))).toHaveLength(1);
    await expect(report.locator('h1').innerText()).resolves.toContain('clientes-decididos.csv');
    expect(await accessibilityViolations(analyst)).toEqual([]);
    await screenshots(analyst, 'batch-results');
  });

  it('lets the DPO find a document, export it and erase it, the erasure under her name', async () => {
    await owner.getByRole('link', { name: 'Usuários' }).click();
    await owner.getByLabel('Nome').fill('Davi Encarregado');
    await owner.getByLabel('analista', { exact: true }).uncheck();
    await owner.getByLabel('encarregado (LGPD)').check();
    await owner.getByRole('button', { name: 'Criar usuário' }).click();
    const dpo = await openPage(await owner.getByLabel('Link de acesso de Davi Encarregado').inputValue());
    const document = documents.small[0] as string;
    await dpo.getByRole('heading', { name: 'Titulares' }).waitFor();
    await dpo.getByLabel('CPF ou CNPJ do titular').fill(document);
    await dpo.getByRole('button', { name: 'Consultar' }).click();
    await dpo.getByRole('table', { name: 'Trilha de auditoria' }).waitFor();
    const trail = await dpo.getByRole('table', { name: 'Trilha de auditoria' }).innerText();
    expect(await accessibilityViolations(dpo)).toEqual([]);
    await screenshots(dpo, 'subject');

    const [exported] = await Promise.all([
      dpo.waitForEvent('download'),
      dpo.getByRole('button', { name: 'Exportar tudo (JSON)' }).click(),
    ]);
    const held = JSON.parse(await readFile((await exported.path()) as string, 'utf8'));
    await dpo.getByLabel('Motivo (referência do pedido)').fill('Pedido LGPD 2026-118');
    await dpo.getByLabel('Digite o documento de novo para confirmar').fill(document);
    await dpo.getByRole('button', { name: 'Eliminar dados pessoais' }).click();

    expect(trail).toContain('Consulta ao birô');
    expect(trail).not.toContain(document);
    expect(held.document).toBe(document);
    await expect(dpo.getByRole('status').innerText()).resolves.toMatch(
      /^Dados pessoais eliminados por Davi Encarregado: 1 linhas em 1 lotes, 1 relatórios; \d+ registros de auditoria mantidos\.$/,
    );
    await dpo.context().close();
  });

  it('lets the analyst upload a list with a policy, see its quote first, and follow it to its end', async () => {
    const analyst = analystPage as Page;
    const list = `cpf,cliente,valor_solicitado\n${documents.uploaded.map((cpf, index) => `${cpf},N${index + 1},15000`).join('\n')}\n123.456.789-00,Errado,1000\n`;
    await analyst.getByRole('link', { name: 'Enviar lista' }).click();
    await analyst.setInputFiles('#upload-file', {
      name: 'novos-clientes.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from(list),
    });
    await analyst.getByLabel('Política de crédito').selectOption('pessoa-fisica.json');
    await analyst.getByRole('button', { name: 'Verificar e orçar' }).click();
    const checked = await analyst.getByRole('region', { name: 'O que a lista tem' }).innerText();
    expect(await accessibilityViolations(analyst)).toEqual([]);
    await screenshots(analyst, 'upload');

    await analyst.getByRole('button', { name: /^Enviar e consultar/ }).click();
    await analyst.getByRole('heading', { name: 'novos-clientes.csv' }).waitFor();
    await analyst.getByText('Concluído', { exact: true }).waitFor({ timeout: 60_000 });

    expect(checked).toMatch(/Linhas\s+6[\s\S]*Inválidas\s+1[\s\S]*Consultas a comprar\s+5[\s\S]*R\$\s42,00/);
    expect(checked).toContain('Linha 6 (***.456.789-**)');
    await expect(analyst.getByRole('region', { name: 'Gasto' }).innerText()).resolves.toMatch(
      /Gasto até agora\s+R\$\s42,00/,
    );
  }, 90_000);

  it('follows one list from the analyst’s upload to the DPO’s export, each step by its own role', async () => {
    // Arrange: three people the owner creates, each with one role.
    const analyst = await openPage(await newUser(owner, 'Lia Analista', 'analista'));
    const ruiLink = await newUser(owner, 'Rui Gerente', 'gestor de crédito');
    const dpo = await openPage(await newUser(owner, 'Eva Encarregada', 'encarregado (LGPD)'));
    const list = `cpf,cliente,valor_solicitado\n${documents.journey.map((cpf, index) => `${cpf},J${index + 1},20000`).join('\n')}\n`;

    // The analyst uploads the list with a policy and sees its quote before anything is bought.
    await analyst.getByRole('link', { name: 'Enviar lista' }).click();
    await analyst.setInputFiles('#upload-file', {
      name: 'jornada.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from(list),
    });
    await analyst.getByLabel('Política de crédito').selectOption('pessoa-fisica.json');
    await analyst.getByRole('button', { name: 'Verificar e orçar' }).click();
    const quote = await analyst.getByRole('region', { name: 'O que a lista tem' }).innerText();
    await analyst.getByRole('button', { name: /^Enviar e consultar/ }).click();
    await analyst.getByRole('heading', { name: 'jornada.csv' }).waitFor();
    await analyst.getByText('Aguardando aprovação', { exact: true }).waitFor();

    // The manager approves it; the analyst's page follows it to its end.
    const manager = await openPage(ruiLink);
    await manager.getByRole('link', { name: 'jornada.csv' }).click();
    await manager.getByRole('button', { name: /^Aprovar/ }).click();
    await manager.getByText('aprovado por Rui Gerente').waitFor();
    await analyst.getByText('Concluído', { exact: true }).waitFor({ timeout: 60_000 });
    await analyst.getByRole('button', { name: 'Ver relatório' }).click();
    const report = analyst.frameLocator('iframe[title="Relatório do lote"]');
    const reportTitle = await report.locator('h1').innerText();

    // The analyst takes one of its rows in review and overrides it with a reason.
    await analyst.getByRole('link', { name: 'Revisar linhas deste lote' }).click();
    const card = analyst.getByRole('article').first();
    await card.getByRole('button', { name: 'Assumir' }).click();
    await card.getByText('Com você').waitFor();
    const title = await card.getByRole('heading', { level: 2 }).innerText();
    const row = Number(/^Linha (\d+)/.exec(title)?.[1]);
    await card.getByLabel('Motivo').fill('Renda confirmada por extrato');
    await card.getByRole('button', { name: 'Registrar decisão' }).click();
    await analyst.getByRole('status').getByText(`linha ${row}: aprovado por Lia Analista.`).waitFor();

    // The export writes the override, under the analyst's name, into the summary.
    await analyst.goBack();
    await analyst.getByRole('button', { name: 'Gravar decisões finais no resumo' }).click();
    await analyst.getByText(/^Decisões finais gravadas no resumo: 1 por pessoas/).waitFor();
    const [download] = await Promise.all([
      analyst.waitForEvent('download'),
      analyst.getByRole('button', { name: 'Baixar Resumo (CSV)' }).click(),
    ]);
    const summary = await readFile((await download.path()) as string, 'utf8');

    // The DPO finds the overridden row's document in the audit trail and exports what is held about it.
    const document = documents.journey[row - 1] as string;
    await dpo.getByLabel('CPF ou CNPJ do titular').fill(document);
    await dpo.getByRole('button', { name: 'Consultar' }).click();
    const trail = await dpo.getByRole('table', { name: 'Trilha de auditoria' }).innerText();
    const [exported] = await Promise.all([
      dpo.waitForEvent('download'),
      dpo.getByRole('button', { name: 'Exportar tudo (JSON)' }).click(),
    ]);
    const held = await readFile((await exported.path()) as string, 'utf8');

    // Assert
    expect(quote).toMatch(/Consultas a comprar\s+12/);
    expect(reportTitle).toContain('jornada.csv');
    const overridden = summary.split('\n').find((line) => line.includes(',Lia Analista,'));
    expect(overridden).toMatch(/,approve,[^,]*,Lia Analista,/);
    expect(trail).toContain('Lia Analista');
    expect(held).toContain('Renda confirmada por extrato');
    expect(held).toContain('Lia Analista');
    for (const page of [analyst, manager, dpo]) await page.context().close();
  }, 120_000);

  it('never put a document or a token in an address it asked for, nor in what the console printed', async () => {
    const digits = [...documents.small, ...documents.decided, ...documents.big, ...documents.uploaded];
    const printed = `${console_.stdout()}${console_.stderr()}`;

    expect(requested.length).toBeGreaterThan(20);
    expect(
      requested.filter((url) => digits.some((document) => url.includes(document)) || /token/.test(url)),
    ).toEqual([]);
    expect(digits.filter((document) => printed.includes(document))).toEqual([]);
  });

  it('answers only at its own address (a DNS rebinding sends another host name)', async () => {
    const { port } = new URL(ownerLink);
    const status = await new Promise<number | undefined>((resolve, reject) =>
      request(
        { host: '127.0.0.1', port, path: '/api/me', headers: { Host: `evil.example:${port}` } },
        (response) => {
          response.resume();
          resolve(response.statusCode);
        },
      )
        .on('error', reject)
        .end(),
    );

    expect(status).toBe(421);
  });
});
