/** A browser's permission to put one list under `incoming/`: a form to post to S3, valid a few minutes. */
export interface UploadTicket {
  /** Where the browser posts the form (the bucket's address). */
  readonly url: string;
  /** The form's fields, in order, before the file: the key, the metadata, the signed policy. */
  readonly fields: Readonly<Record<string, string>>;
  readonly key: string;
  readonly expiresAt: string;
  readonly maxBytes: number;
}

/**
 * Signs uploads the storage itself checks: the key and metadata exactly as given, the size within `maxBytes`.
 * Nothing of the file passes through the signer.
 */
export interface UploadTickets {
  ticketFor(upload: {
    readonly key: string;
    readonly metadata: Readonly<Record<string, string>>;
    readonly maxBytes: number;
  }): Promise<UploadTicket>;
}
