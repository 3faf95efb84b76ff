import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { CreditScreenStack, type CreditScreenStackProps } from '../../lib/credit-screen-stack.ts';

/** What CloudFormation would put for the pseudo parameters, so tests can read ARNs and names as AWS builds them. */
const PSEUDO_PARAMETERS: Readonly<Record<string, string>> = {
  'AWS::Partition': 'aws',
  'AWS::Region': 'sa-east-1',
  'AWS::AccountId': '123456789012',
  'AWS::StackName': 'Test',
  'AWS::StackId':
    'arn:aws:cloudformation:sa-east-1:123456789012:stack/Test/0f6c3c70-c7d5-11ee-9e33-0a1b2c3d4e5f',
  'AWS::URLSuffix': 'amazonaws.com',
};

/**
 * The stack as `cdk synth` builds it, with the pipeline's props over a valid bureau URL. Bundling is skipped unless
 * asked for (the template is the same; only the assets differ), which keeps template tests to a second or two.
 */
export function synthesizeStack(
  props: Partial<CreditScreenStackProps['pipeline']> = {},
  options: { readonly stack?: Omit<CreditScreenStackProps, 'pipeline'>; readonly bundle?: boolean } = {},
) {
  const app = new App(options.bundle ? {} : { context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new CreditScreenStack(app, 'Test', {
    ...options.stack,
    pipeline: { bureauBaseUrl: 'https://gateway.example.invalid', ...props },
  });
  return { app, stack, template: Template.fromStack(stack) };
}

type Json = unknown;

/**
 * Resolves the intrinsic functions CDK writes (Ref, Fn::GetAtt, Fn::Join, Fn::Select, Fn::Split) to strings: pseudo
 * parameters from {@link PSEUDO_PARAMETERS}, a resource's Ref and attributes as `<LogicalId>` and
 * `<LogicalId.Attribute>`, so a test can compare a key policy's pattern with a log group's name.
 */
export function resolveValue(value: Json): Json {
  if (Array.isArray(value)) return value.map(resolveValue);
  if (typeof value !== 'object' || value === null) return value;
  const entries = Object.entries(value);
  const [name, argument] = entries[0] ?? [];
  if (entries.length !== 1)
    return Object.fromEntries(entries.map(([key, item]) => [key, resolveValue(item)]));
  if (name === 'Ref') return PSEUDO_PARAMETERS[argument as string] ?? `<${argument as string}>`;
  if (name === 'Fn::GetAtt') return `<${(argument as string[]).join('.')}>`;
  if (name === 'Fn::Join') {
    const [separator, parts] = argument as [string, Json[]];
    return parts.map((part) => String(resolveValue(part))).join(separator);
  }
  if (name === 'Fn::Split') {
    const [separator, source] = argument as [string, Json];
    return String(resolveValue(source)).split(separator);
  }
  if (name === 'Fn::Select') {
    const [index, list] = argument as [number | string, Json];
    return (resolveValue(list) as Json[])[Number(index)];
  }
  return { [name as string]: resolveValue(argument) };
}

/** IAM's `ArnLike`/`StringLike` matching: `*` any run of characters, `?` one. */
export function iamLike(pattern: string, value: string): boolean {
  const escaped = pattern
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${escaped}$`).test(value);
}

/** Whether a policy action list (with `*` wildcards) grants `action`. */
export function allowsAction(actions: string | readonly string[], action: string): boolean {
  return [actions].flat().some((granted) => iamLike(granted, action));
}
