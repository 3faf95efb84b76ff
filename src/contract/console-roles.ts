/**
 * Who may do what in the console. One role per kind of person the console serves; in AWS each is a group of the
 * Cognito user pool (its `cognito:groups` claim), on a laptop a local user's roles. Routes name the roles that may
 * call them (`console-routes.ts`); nothing else decides.
 */
export const CONSOLE_ROLES = ['analyst', 'manager', 'dpo', 'admin'] as const;

/** A console role: `analyst` reviews, `manager` also approves spend, `dpo` answers data subjects, `admin` runs it. */
export type ConsoleRole = (typeof CONSOLE_ROLES)[number];

/** The console's person: who they are (recorded in what they do) and what they may do. */
export interface ConsoleIdentity {
  /** Stable id of the person: the user pool's `sub`, or a local user's id. */
  readonly subject: string;
  /** How they are shown and recorded (email or user name), never typed by them at the moment they act. */
  readonly name: string;
  readonly roles: readonly ConsoleRole[];
}
