import type { Template, TemplateResource } from '../../cli/local/cloud-assembly.ts';

/** The account and region the offline deployment pretends to be in. */
export const ACCOUNT = '123456789012';
export const REGION = 'us-east-1';

export const arns = {
  table: (name: string) => `arn:aws:dynamodb:${REGION}:${ACCOUNT}:table/${name}`,
  bucket: (name: string) => `arn:aws:s3:::${name}`,
  queue: (name: string) => `arn:aws:sqs:${REGION}:${ACCOUNT}:${name}`,
  eventBus: (name: string) => `arn:aws:events:${REGION}:${ACCOUNT}:event-bus/${name}`,
  schedule: (group: string, name: string) =>
    `arn:aws:scheduler:${REGION}:${ACCOUNT}:schedule/${group}/${name}`,
  role: (name: string) => `arn:aws:iam::${ACCOUNT}:role/${name}`,
  function: (name: string) => `arn:aws:lambda:${REGION}:${ACCOUNT}:function:${name}`,
} as const;

/** Physical names of the resources the local services provides, by logical id; the rest are named after their id. */
export interface PhysicalNames {
  readonly byLogicalId: ReadonlyMap<string, string>;
  /** A queue's URL as a function sees it (the origin is that function's recording endpoint). */
  readonly queueUrl: (queueName: string) => string;
}

export class TemplateResolutionError extends Error {
  override readonly name = 'TemplateResolutionError';
}

/**
 * Resolves CloudFormation intrinsics (Ref, Fn::GetAtt, Fn::Join, Fn::Sub, Fn::Select, Fn::Split and the pseudo
 * parameters) to what they would be once deployed in {@link ACCOUNT}/{@link REGION}, with the local resources'
 * names. An intrinsic or attribute it does not know fails loudly rather than resolving to something wrong.
 */
export class TemplateResolver {
  constructor(
    readonly template: Template,
    readonly names: PhysicalNames,
  ) {}

  resolve(value: unknown): unknown {
    if (Array.isArray(value)) return value.map((item) => this.resolve(item));
    if (value === null || typeof value !== 'object') return value;
    const entries = Object.entries(value);
    const [first] = entries;
    if (entries.length === 1 && first && (first[0] === 'Ref' || first[0].startsWith('Fn::')))
      return this.#intrinsic(first[0], first[1]);
    return Object.fromEntries(entries.map(([key, item]) => [key, this.resolve(item)]));
  }

  resolveString(value: unknown): string {
    const resolved = this.resolve(value);
    if (typeof resolved !== 'string')
      throw new TemplateResolutionError(`expected a string, got ${JSON.stringify(resolved)}`);
    return resolved;
  }

  #intrinsic(name: string, argument: unknown): unknown {
    switch (name) {
      case 'Ref':
        return this.#ref(String(argument));
      case 'Fn::GetAtt': {
        const [logicalId, attribute] = (
          typeof argument === 'string' ? argument.split('.') : (argument as string[])
        ) as [string, string];
        return this.#attribute(logicalId, attribute);
      }
      case 'Fn::Join': {
        const [separator, parts] = argument as [string, unknown[]];
        return parts.map((part) => this.resolveString(part)).join(separator);
      }
      case 'Fn::Select': {
        const [index, list] = argument as [number | string, unknown];
        return (this.resolve(list) as unknown[])[Number(index)];
      }
      case 'Fn::Split': {
        const [separator, source] = argument as [string, unknown];
        return this.resolveString(source).split(separator);
      }
      case 'Fn::Sub': {
        const [text, variables] = (typeof argument === 'string' ? [argument, {}] : argument) as [
          string,
          Record<string, unknown>,
        ];
        return text.replace(/\$\{([^}]+)\}/g, (_match, reference: string) => {
          if (reference in variables) return this.resolveString(variables[reference]);
          const [logicalId, attribute] = reference.split('.') as [string, string | undefined];
          return String(attribute ? this.#attribute(logicalId, attribute) : this.#ref(logicalId));
        });
      }
      default:
        throw new TemplateResolutionError(`intrinsic ${name} is not resolved offline`);
    }
  }

  #resource(logicalId: string): TemplateResource {
    const resource = this.template.Resources[logicalId];
    if (!resource) throw new TemplateResolutionError(`no resource ${logicalId} in the template`);
    return resource;
  }

  #name(logicalId: string): string {
    return this.names.byLogicalId.get(logicalId) ?? logicalId.toLowerCase();
  }

  #ref(logicalId: string): unknown {
    const pseudo: Record<string, string> = {
      'AWS::AccountId': ACCOUNT,
      'AWS::Region': REGION,
      'AWS::Partition': 'aws',
      'AWS::URLSuffix': 'amazonaws.com',
      'AWS::StackName': 'CreditScreen',
      'AWS::StackId': `arn:aws:cloudformation:${REGION}:${ACCOUNT}:stack/CreditScreen/8d5f6f10-0000-4000-8000-000000000000`,
    };
    if (logicalId in pseudo) return pseudo[logicalId];
    const { Type } = this.#resource(logicalId);
    const name = this.#name(logicalId);
    if (Type === 'AWS::SQS::Queue') return this.names.queueUrl(name);
    if (Type === 'AWS::SecretsManager::Secret') return this.#attribute(logicalId, 'Arn');
    return name;
  }

  #attribute(logicalId: string, attribute: string): string {
    const { Type } = this.#resource(logicalId);
    const name = this.#name(logicalId);
    const arnOf: Record<string, () => string> = {
      'AWS::DynamoDB::Table': () => arns.table(name),
      'AWS::S3::Bucket': () => arns.bucket(name),
      'AWS::SQS::Queue': () => arns.queue(name),
      'AWS::KMS::Key': () => `arn:aws:kms:${REGION}:${ACCOUNT}:key/${name}`,
      'AWS::Lambda::Function': () => arns.function(name),
      'AWS::IAM::Role': () => arns.role(name),
      // Secrets Manager appends six random characters to a secret's name.
      'AWS::SecretsManager::Secret': () =>
        `arn:aws:secretsmanager:${REGION}:${ACCOUNT}:secret:${name}-AbCdEf`,
      'AWS::Events::Rule': () => `arn:aws:events:${REGION}:${ACCOUNT}:rule/${name}`,
      'AWS::Events::ApiDestination': () =>
        `arn:aws:events:${REGION}:${ACCOUNT}:api-destination/${name}/6a3c1f0e-0000-4000-8000-000000000001`,
      'AWS::Events::Connection': () =>
        `arn:aws:events:${REGION}:${ACCOUNT}:connection/${name}/6a3c1f0e-0000-4000-8000-000000000002`,
      'AWS::Scheduler::ScheduleGroup': () => `arn:aws:scheduler:${REGION}:${ACCOUNT}:schedule-group/${name}`,
      'AWS::Cognito::UserPool': () => `arn:aws:cognito-idp:${REGION}:${ACCOUNT}:userpool/${REGION}_${name}`,
    };
    if (attribute === 'QueueName' && Type === 'AWS::SQS::Queue') return name;
    const arn = arnOf[Type];
    if (attribute === 'Arn' && arn) return arn();
    throw new TemplateResolutionError(
      `attribute ${attribute} of ${Type} ${logicalId} is not resolved offline`,
    );
  }
}
