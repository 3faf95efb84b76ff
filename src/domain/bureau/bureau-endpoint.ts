/**
 * Where a batch's bureau calls go, as its record keeps it: the base URL's origin and path, without credentials, a
 * query or a fragment (the token is never part of it). A batch is continued only where it was started: a rerun,
 * an approval or a redrive against another endpoint would buy, or make up, other answers for the same customers.
 */
export function bureauEndpointOf(baseUrl: string): string {
  const url = new URL(baseUrl);
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

/**
 * Whether a batch may be continued by a pipeline calling `endpoint`: it was started there, or the pipeline does not
 * say where it calls (undefined). A batch stored before endpoints were recorded counts as started at `unrecorded`:
 * the local runner says the bundled emulator (where such batches were continued before); left undefined, as in AWS
 * (one endpoint per stack), such a batch continues anywhere.
 */
export function continuesAt(
  batch: { readonly bureauEndpoint?: string | null },
  endpoint: string | undefined,
  unrecorded?: string,
): boolean {
  const started = batch.bureauEndpoint ?? unrecorded;
  return endpoint === undefined || started === undefined || started === endpoint;
}
