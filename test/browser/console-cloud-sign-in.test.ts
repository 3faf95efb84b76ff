import { mkdir, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { S3Client } from '@aws-sdk/client-s3';
import { handle } from 'hono/aws-lambda';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildConsolePages } from '../../cli/console/console-pages.ts';
import { siteContentSecurityPolicy } from '../../lib/pipeline/console-site.ts';
import { S3UploadTickets } from '../../src/adapters/aws/s3-upload-tickets.ts';
import { jwtClaimsAuthenticator } from '../../src/api/jwt-claims-authenticator.ts';
import { consoleApiHarness } from '../api/console-api-harness.ts';
import { accessibilityViolations } from './accessibility.ts';
import { type FakeCloud, startFakeCloud } from './fake-cloud.ts';

/** Debian's Chromium (`npm test` installs it when missing), driven by playwright-core: no browser download. */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

let browser: Browser;
let cloud: FakeCloud;

/** Screenshots for a person to look at (git-ignored), as the AWS site serves the pages. */
const OUTPUT = fileURLToPath(new URL('../../test-output/console', import.meta.url));

async function screenshots(page: Page, name: string): Promise<void> {
  await mkdir(OUTPUT, { recursive: true });
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: 900 });
    await page.screenshot({ path: join(OUTPUT, `${name}-${width}.png`), fullPage: true });
  }
  await page.setViewportSize({ width: 1280, height: 900 });
}

/** Every address the page asked for. */
const requested: string[] = [];

beforeAll(async () => {
  const pages = await mkdtemp(join(tmpdir(), 'console-cloud-pages-'));
  await buildConsolePages(pages);
  // The real ticket signer, its S3 being the fake one (known once it listens).
  const uploadTickets = {
    ticketFor: (upload: Parameters<S3UploadTickets['ticketFor']>[0]) =>
      new S3UploadTickets(
        new S3Client({
          endpoint: `${cloud.s3Url}`,
          forcePathStyle: true,
          region: 'sa-east-1',
          credentials: { accessKeyId: 'AKIAEXAMPLE', secretAccessKey: 'secret' },
        }),
        'pipeline-bucket',
      ).ticketFor(upload),
  };
  const harness = await consoleApiHarness({ authenticator: jwtClaimsAuthenticator, uploadTickets });
  await harness.batch('batch-in-aws');
  cloud = await startFakeCloud({
    pagesDirectory: pages,
    // The console's Lambda as it is deployed: Hono's adapter over the same app, who calls read from the claims.
    handler: handle(harness.app) as never,
    person: { sub: 'sub-marta', email: 'marta@credora.com.br', groups: ['manager', 'analyst'] },
    contentSecurityPolicy: siteContentSecurityPolicy,
  });
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await cloud?.close();
});

describe('the console’s pages as AWS serves them (hosted sign-in, API Gateway, CloudFront, on loopback)', () => {
  let page: Page;

  it('signs in at the hosted sign-in with the code flow and PKCE, then calls the API with the ID token', async () => {
    const context = await browser.newContext({ locale: 'pt-BR' });
    context.on('request', (request) => requested.push(request.url()));
    page = await context.newPage();
    const errors: string[] = [];
    page.on('console', (message) => message.type() === 'error' && errors.push(message.text()));
    await page.goto(cloud.siteUrl);
    await page.getByRole('button', { name: 'Entrar' }).waitFor();
    const signedOutViolations = await accessibilityViolations(page);
    await screenshots(page, 'cloud-signed-out');

    await page.getByRole('button', { name: 'Entrar' }).click();
    await page.getByRole('link', { name: 'batch-in-aws', exact: true }).first().waitFor();

    const [authorize] = cloud.seen.authorize;
    const [token] = cloud.seen.tokens;
    expect(authorize?.get('code_challenge_method')).toBe('S256');
    expect(authorize?.get('redirect_uri')).toBe(`${cloud.siteUrl}/`);
    expect(token?.get('code_verifier')?.length).toBeGreaterThanOrEqual(43);
    expect(cloud.seen.api.length).toBeGreaterThan(0);
    expect(
      cloud.seen.api.every((authorization) => /^Bearer [\w-]+\.[\w-]+\.[\w-]+$/.test(authorization)),
    ).toBe(true);
    // The code left the address once used; the pages name the signed-in person as the token does.
    expect(new URL(page.url()).search).toBe('');
    await expect(page.locator('.who').innerText()).resolves.toMatch(/^marta@credora\.com\.br/);
    expect(errors).toEqual([]);
    expect(signedOutViolations).toEqual([]);
    expect(await accessibilityViolations(page)).toEqual([]);
  });

  it('offers no page of the local console’s users (the user pool keeps them)', async () => {
    const links = await page.getByRole('navigation', { name: 'Seções' }).getByRole('link').allInnerTexts();

    expect(links).toEqual(['Lotes', 'Enviar lista', 'Revisão']);
  });

  it('puts a list straight into S3 with the form the API signed: its key opaque, its name and policy metadata', async () => {
    const list = 'cpf,cliente\n52998224725,Ana\n';
    await page.getByRole('link', { name: 'Enviar lista' }).click();
    await page.setInputFiles('#upload-file', {
      name: 'novos.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from(list),
    });
    await page.getByLabel('Política de crédito').selectOption('pessoa-fisica.json');
    await page.getByRole('button', { name: 'Enviar lista' }).click();

    await page.getByRole('status').getByText('novos.csv enviada.', { exact: false }).waitFor();
    expect(await accessibilityViolations(page)).toEqual([]);
    await screenshots(page, 'cloud-upload-sent');
    expect(cloud.seen.uploads).toEqual([
      {
        key: expect.stringMatching(/^incoming\/a\/\d{8}T\d{9}Z-[a-z]{12}\.csv$/),
        size: Buffer.byteLength(list),
        metadata: { 'source-name': 'novos.csv', policy: 'pessoa-fisica.json' },
      },
    ]);
  });

  it('signs out at the hosted sign-in too, and comes back signed out', async () => {
    await page.getByRole('button', { name: 'Sair' }).click();
    await page.getByRole('button', { name: 'Entrar' }).waitFor();

    const [logout] = cloud.seen.logouts;
    expect(logout?.get('client_id')).toBe('console-client-id');
    expect(logout?.get('logout_uri')).toBe(`${cloud.siteUrl}/`);
    expect(requested.some((address) => address.includes('token=') || address.includes('id_token'))).toBe(
      false,
    );
  });
});
