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
 * Whether a batch may be continued by a pipeline calling `endpoint`: it was started there, or before batches
 * recorded where (null or absent), or the pipeline does not say where it calls (undefined).
 */
export function continuesAt(
  batch: { readonly bureauEndpoint?: string | null },
  endpoint: string | undefined,
): boolean {
  return endpoint === undefined || batch.bureauEndpoint == null || batch.bureauEndpoint === endpoint;
}
