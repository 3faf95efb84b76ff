import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { userInfo } from 'node:os';
import type { Context } from 'hono';
import { getCookie } from 'hono/cookie';
import { z } from 'zod';
import {
  type Authenticator,
  type LocalUsers,
  type SignedIn,
  sessionCookieName,
  UserRefused,
} from '../../src/api/console-env.ts';
import {
  CONSOLE_ROLES,
  CONSOLE_ROUTES,
  type ConsoleIdentity,
  type ConsoleRole,
  type CreatedUser,
  type NewUser,
  UserView,
} from '../../src/contract/index.ts';
import type { ReviewerDirectory } from '../../src/domain/ports/index.ts';
import type { CasePerson } from '../../src/domain/review/index.ts';
import { readIfThere, writePrivateFile } from '../local/private-files.ts';

/** Who reviews rows: whoever may read the review queue. */
const REVIEWING_ROLES: readonly ConsoleRole[] = CONSOLE_ROUTES.review.roles;

/** The file in a state folder that keeps its console's users (no secrets: links and sessions live in memory). */
export const CONSOLE_USERS_FILE = 'console-users.json';
/** The person who started the console: they own the state folder, so they may do everything in it. */
const OWNER_SUBJECT = 'local-owner';
/** How long a sign-in link works, unused. */
const LINK_LIFETIME_MS = 24 * 3_600_000;
/** How long a session lasts after its last request, and at most. */
const SESSION_IDLE_MS = 8 * 3_600_000;
const SESSION_MAX_MS = 12 * 3_600_000;

const StoredUsers = z.object({ users: z.array(UserView) });

interface Pending {
  readonly subject: string;
  expiresAt: number;
  /** When a session ends whatever its use (links: when they expire). */
  readonly endsAt: number;
}

/** A secret's hash: what the maps keep, so a heap dump holds no working link or session. */
const hashOf = (secret: string) => createHash('sha256').update(secret).digest('hex');
const newSecret = () => randomBytes(32).toString('base64url');

/**
 * The local console's users (kept in the state folder), its one-time sign-in links and its sessions (in memory: a
 * console started again signs everyone out, and prints its owner a new link). A person's roles are read on every
 * request, so a change applies at once.
 */
export class LocalConsoleUsers implements LocalUsers, Authenticator, ReviewerDirectory {
  readonly #links = new Map<string, Pending>();
  readonly #sessions = new Map<string, Pending>();

  /** The port the console listens on, once it does: it names the session cookie. */
  port: number | null = null;

  private constructor(
    private readonly file: string,
    private readonly users: Map<string, UserView>,
    private readonly now: () => number,
  ) {}

  cookieName(): string {
    return sessionCookieName(this.port ?? 'unbound');
  }

  /** Opens the users of `file` (made with the owner when missing). */
  static async open(file: string, now: () => number = Date.now): Promise<LocalConsoleUsers> {
    const text = await readIfThere(file);
    const stored = text === null ? { users: [] } : StoredUsers.parse(JSON.parse(text));
    const users = new Map(stored.users.map((user) => [user.subject, user]));
    const opened = new LocalConsoleUsers(file, users, now);
    if (!users.has(OWNER_SUBJECT)) {
      users.set(OWNER_SUBJECT, {
        subject: OWNER_SUBJECT,
        name: userInfo().username,
        roles: [...CONSOLE_ROLES],
        createdAt: new Date(now()).toISOString(),
        createdBy: 'credit-screen console',
      });
      await opened.#save();
    }
    return opened;
  }

  /** A one-time link token that signs in the person who started the console. */
  ownerLinkToken(): string {
    return this.#issueLink(OWNER_SUBJECT);
  }

  async signIn(token: string): Promise<SignedIn | null> {
    const key = hashOf(token);
    const link = this.#links.get(key);
    this.#links.delete(key);
    if (link === undefined || link.expiresAt < this.now()) return null;
    const identity = this.#identityOf(link.subject);
    if (identity === null) return null;
    const sessionId = newSecret();
    const now = this.now();
    this.#sessions.set(hashOf(sessionId), {
      subject: link.subject,
      expiresAt: now + SESSION_IDLE_MS,
      endsAt: now + SESSION_MAX_MS,
    });
    return { sessionId, identity };
  }

  async signOut(sessionId: string): Promise<void> {
    this.#sessions.delete(hashOf(sessionId));
  }

  async identify(context: Context): Promise<ConsoleIdentity | null> {
    const sessionId = getCookie(context, this.cookieName());
    if (sessionId === undefined) return null;
    const session = this.#sessions.get(hashOf(sessionId));
    const now = this.now();
    if (session === undefined || session.expiresAt < now || session.endsAt < now) return null;
    session.expiresAt = Math.min(now + SESSION_IDLE_MS, session.endsAt);
    return this.#identityOf(session.subject);
  }

  async list(): Promise<UserView[]> {
    return [...this.users.values()];
  }

  async reviewers(): Promise<CasePerson[]> {
    return [...this.users.values()]
      .filter((user) => user.roles.some((role) => REVIEWING_ROLES.includes(role)))
      .map((user) => ({ subject: user.subject, name: user.name }));
  }

  async findReviewer(subject: string): Promise<CasePerson | null> {
    return (await this.reviewers()).find((reviewer) => reviewer.subject === subject) ?? null;
  }

  async create(user: NewUser, by: ConsoleIdentity): Promise<CreatedUser> {
    const taken = [...this.users.values()].some(
      (existing) => existing.name.toLocaleLowerCase('pt-BR') === user.name.toLocaleLowerCase('pt-BR'),
    );
    // What a person does is recorded under their name: two people of one name could not be told apart.
    if (taken)
      throw new UserRefused(`there is a user named ${user.name} already: give a name that tells them apart`);
    const created: UserView = {
      subject: randomUUID(),
      name: user.name,
      roles: user.roles,
      createdAt: new Date(this.now()).toISOString(),
      createdBy: by.name,
    };
    this.users.set(created.subject, created);
    await this.#save();
    return { user: created, signInToken: this.#issueLink(created.subject) };
  }

  #issueLink(subject: string): string {
    const token = newSecret();
    const expiresAt = this.now() + LINK_LIFETIME_MS;
    this.#links.set(hashOf(token), { subject, expiresAt, endsAt: expiresAt });
    return token;
  }

  #identityOf(subject: string): ConsoleIdentity | null {
    const user = this.users.get(subject);
    return user === undefined ? null : { subject: user.subject, name: user.name, roles: user.roles };
  }

  async #save(): Promise<void> {
    await writePrivateFile(this.file, `${JSON.stringify({ users: [...this.users.values()] }, null, 2)}\n`);
  }
}
