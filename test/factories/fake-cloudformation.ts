import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

const escapeXml = (text: string) =>
  text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;');

/**
 * A stand-in for CloudFormation's `DescribeStacks` (query protocol, XML), the one call `--stack` makes: there is
 * no local CloudFormation. It answers for the stacks it is given and with CloudFormation's error otherwise.
 */
export class FakeCloudFormation {
  readonly #server: Server;

  private constructor(stacks: ReadonlyMap<string, Readonly<Record<string, string>>>) {
    this.#server = createServer((request, response) => {
      let body = '';
      request.setEncoding('utf8').on('data', (chunk: string) => {
        body += chunk;
      });
      request.on('end', () => {
        const form = new URLSearchParams(body);
        const name = form.get('StackName') ?? '';
        const outputs = stacks.get(name);
        response.setHeader('Content-Type', 'text/xml');
        if (form.get('Action') !== 'DescribeStacks' || outputs === undefined) {
          response.statusCode = 400;
          response.end(
            `<ErrorResponse><Error><Type>Sender</Type><Code>ValidationError</Code><Message>Stack with id ${escapeXml(name)} does not exist</Message></Error><RequestId>fake</RequestId></ErrorResponse>`,
          );
          return;
        }
        const members = Object.entries(outputs)
          .map(
            ([key, value]) =>
              `<member><OutputKey>${escapeXml(key)}</OutputKey><OutputValue>${escapeXml(value)}</OutputValue></member>`,
          )
          .join('');
        response.end(
          '<DescribeStacksResponse xmlns="http://cloudformation.amazonaws.com/doc/2010-05-15/"><DescribeStacksResult><Stacks><member>' +
            `<StackName>${escapeXml(name)}</StackName><StackId>arn:aws:cloudformation:us-east-1:000000000000:stack/${escapeXml(name)}/1</StackId>` +
            `<CreationTime>2026-01-01T00:00:00Z</CreationTime><StackStatus>CREATE_COMPLETE</StackStatus><Outputs>${members}</Outputs>` +
            '</member></Stacks></DescribeStacksResult><ResponseMetadata><RequestId>fake</RequestId></ResponseMetadata></DescribeStacksResponse>',
        );
      });
    });
  }

  static async start(
    stacks: ReadonlyMap<string, Readonly<Record<string, string>>>,
  ): Promise<FakeCloudFormation> {
    const fake = new FakeCloudFormation(stacks);
    await new Promise<void>((resolve) => fake.#server.listen(0, '127.0.0.1', resolve));
    return fake;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => {
      this.#server.close(() => resolve());
      this.#server.closeAllConnections();
    });
  }
}
