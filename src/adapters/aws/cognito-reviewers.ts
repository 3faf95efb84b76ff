import {
  type CognitoIdentityProviderClient,
  paginateListUsersInGroup,
  type UserType,
} from '@aws-sdk/client-cognito-identity-provider';
import type { ReviewerDirectory } from '../../domain/ports/index.ts';
import type { CasePerson } from '../../domain/review/index.ts';

/** How long the list of reviewers is kept: people are added rarely, and the list is read on every review page. */
const KEPT_MS = 60_000;

/**
 * The reviewers as the user pool knows them: the enabled members of the groups that review (analysts, managers),
 * each once, by their `sub` and their e-mail (as their ID token names them, so a row given to someone shows the name
 * their own actions are recorded under).
 */
export class CognitoReviewers implements ReviewerDirectory {
  #kept: { readonly at: number; readonly people: Promise<CasePerson[]> } | null = null;

  constructor(
    private readonly client: CognitoIdentityProviderClient,
    private readonly userPoolId: string,
    private readonly groups: readonly string[],
    private readonly now: () => number = Date.now,
  ) {}

  async reviewers(): Promise<CasePerson[]> {
    if (this.#kept === null || this.now() - this.#kept.at > KEPT_MS) {
      const people = this.#read();
      // A failed read is not kept: the next page asks again.
      people.catch(() => {
        this.#kept = null;
      });
      this.#kept = { at: this.now(), people };
    }
    return this.#kept.people;
  }

  async findReviewer(subject: string): Promise<CasePerson | null> {
    return (await this.reviewers()).find((person) => person.subject === subject) ?? null;
  }

  async #read(): Promise<CasePerson[]> {
    const bySubject = new Map<string, CasePerson>();
    for (const group of this.groups) {
      const pages = paginateListUsersInGroup(
        { client: this.client },
        { UserPoolId: this.userPoolId, GroupName: group },
      );
      for await (const page of pages)
        for (const user of page.Users ?? []) {
          const person = personOf(user);
          if (person !== null) bySubject.set(person.subject, person);
        }
    }
    return [...bySubject.values()].sort((a, b) => a.name.localeCompare(b.name, 'pt-BR'));
  }
}

/** The person a user is, if they may sign in: their `sub`, and their e-mail (or user name) as their name. */
function personOf(user: UserType): CasePerson | null {
  if (user.Enabled === false) return null;
  const attribute = (name: string) => user.Attributes?.find((found) => found.Name === name)?.Value;
  const subject = attribute('sub');
  if (subject === undefined) return null;
  return { subject, name: attribute('email') ?? user.Username ?? subject };
}
