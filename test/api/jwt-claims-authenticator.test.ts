import { describe, expect, it } from 'vitest';
import { identityOfClaims } from '../../src/api/jwt-claims-authenticator.ts';

describe('the identity of a verified token’s claims', () => {
  it.each([
    [
      'groups as HTTP APIs pass them',
      { token_use: 'id', sub: 's1', email: 'ana@example.com', 'cognito:groups': '[analyst manager]' },
      { subject: 's1', name: 'ana@example.com', roles: ['analyst', 'manager'] },
    ],
    [
      'groups as an array',
      { token_use: 'id', sub: 's2', 'cognito:username': 'marta', 'cognito:groups': ['manager'] },
      { subject: 's2', name: 'marta', roles: ['manager'] },
    ],
    [
      'groups that are no console role',
      {
        token_use: 'id',
        sub: 's3',
        email: 'x@example.com',
        'cognito:groups': '[admins us-east-1_abc_Google dpo]',
      },
      { subject: 's3', name: 'x@example.com', roles: ['dpo'] },
    ],
    ['no groups at all', { token_use: 'id', sub: 's4' }, { subject: 's4', name: 's4', roles: [] }],
  ])('reads %s', (_, claims, identity) => {
    expect(identityOfClaims(claims)).toEqual(identity);
  });

  it.each([
    ['no claims', undefined],
    [
      'an access token (it names no e-mail: who acted would be recorded otherwise)',
      { token_use: 'access', sub: 's5', client_id: 'c', username: 'marta', 'cognito:groups': '[manager]' },
    ],
    ['no subject', { token_use: 'id', email: 'ana@example.com', 'cognito:groups': '[admin]' }],
    ['an empty subject', { token_use: 'id', sub: '', 'cognito:groups': '[admin]' }],
  ])('names no one for %s', (_, claims) => {
    expect(identityOfClaims(claims)).toBeNull();
  });
});
