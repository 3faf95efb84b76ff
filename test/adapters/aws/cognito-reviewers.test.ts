import { CognitoIdentityProviderClient } from '@aws-sdk/client-cognito-identity-provider';
import { describe, expect, it } from 'vitest';
import { CognitoReviewers } from '../../../src/adapters/aws/cognito-reviewers.ts';

/** A user as ListUsersInGroup returns one. */
const user = (sub: string | null, email: string | null, enabled = true) => ({
  Username: `user-${sub ?? 'none'}`,
  Enabled: enabled,
  Attributes: [
    ...(sub === null ? [] : [{ Name: 'sub', Value: sub }]),
    ...(email === null ? [] : [{ Name: 'email', Value: email }]),
  ],
});

/** A user pool's groups, a page of one user at a time, counting the calls. */
function pool(groups: Record<string, ReturnType<typeof user>[]>, failures = 0) {
  const calls: { group: string; token: string | undefined }[] = [];
  let failing = failures;
  // A real client (the paginator checks its class) whose requests the test answers.
  const client = new CognitoIdentityProviderClient({ region: 'sa-east-1' });
  Object.assign(client, {
    send: async (command: { input: { GroupName: string; NextToken?: string } }) => {
      calls.push({ group: command.input.GroupName, token: command.input.NextToken });
      if (failing-- > 0) throw new Error('throttled');
      const members = groups[command.input.GroupName] ?? [];
      const index = Number(command.input.NextToken ?? 0);
      return {
        Users: members.slice(index, index + 1),
        NextToken: index + 1 < members.length ? String(index + 1) : undefined,
      };
    },
  });
  return { client, calls };
}

describe('CognitoReviewers', () => {
  it('lists the enabled members of the reviewing groups once each, by sub and e-mail, every page read', async () => {
    const { client, calls } = pool({
      analyst: [
        user('s-ana', 'ana@x.com.br'),
        user('s-bia', 'bia@x.com.br'),
        user('s-off', 'off@x.com.br', false),
      ],
      manager: [user('s-ana', 'ana@x.com.br'), user('s-rui', null), user(null, 'nosub@x.com.br')],
    });
    const reviewers = new CognitoReviewers(client, 'pool-1', ['analyst', 'manager']);

    const people = await reviewers.reviewers();

    expect(people).toEqual([
      { subject: 's-ana', name: 'ana@x.com.br' },
      { subject: 's-bia', name: 'bia@x.com.br' },
      { subject: 's-rui', name: 'user-s-rui' },
    ]);
    expect(calls.map((call) => call.group)).toEqual([
      'analyst',
      'analyst',
      'analyst',
      'manager',
      'manager',
      'manager',
    ]);
  });

  it('keeps the list for a minute, finds a reviewer in it, and does not keep a failed read', async () => {
    let clock = 0;
    const { client, calls } = pool({ analyst: [user('s-ana', 'ana@x.com.br')] }, 1);
    const reviewers = new CognitoReviewers(client, 'pool-1', ['analyst'], () => clock);

    await expect(reviewers.reviewers()).rejects.toThrow('throttled');
    const found = await reviewers.findReviewer('s-ana');
    const missing = await reviewers.findReviewer('s-nobody');
    const readsWithinAMinute = calls.length;
    clock += 61_000;
    await reviewers.reviewers();

    expect(found).toEqual({ subject: 's-ana', name: 'ana@x.com.br' });
    expect(missing).toBeNull();
    expect(readsWithinAMinute).toBe(2);
    expect(calls).toHaveLength(3);
  });
});
