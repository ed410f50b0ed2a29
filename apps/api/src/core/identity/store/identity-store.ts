import { OrgScope, type AfterCommit, type Db, type Executor, type Tx } from "@clinsign/db";

/**
 * The identity wing's narrow handle on what is cross-tenant by nature: staff accounts and their
 * memberships, factors and passkeys, staff sessions and pending sign-ins, invitation links, single
 * sign-on identities, domains and link requests, the sign-in rate counters. The raw handle is
 * private: only the query modules beside this file read it (`IdentityStore.handle`, fenced by
 * lint), so everything else in the wing and outside it goes through their named functions.
 *
 * Tenant data stays behind OrgScope: `scopeOf` gives an organization's scope on the same handle,
 * so one transaction can spend an invitation (tenant) and create its account (identity).
 */
export class IdentityStore {
  readonly #db: Executor;
  readonly #afterCommit: AfterCommit[] | undefined;

  private constructor(db: Executor, afterCommit?: AfterCommit[]) {
    this.#db = db;
    this.#afterCommit = afterCommit;
  }

  /** The process's handle: the steps before an organization is known. */
  static of(services: { db: Db }): IdentityStore {
    return new IdentityStore(services.db);
  }

  /** The handle of an organization's scope, inside its transaction when it has one. */
  static joining(scope: OrgScope): IdentityStore {
    return new IdentityStore(OrgScope.unscoped(scope));
  }

  /** For the query modules of core/identity/store only (lint keeps it there). */
  static handle(store: IdentityStore): Executor {
    return store.#db;
  }

  /** An organization's scope on this handle (in this transaction, with its after-commit effects). */
  scopeOf(organizationId: string): OrgScope {
    return new OrgScope(this.#db, organizationId, this.#afterCommit);
  }

  /** Runs `work` in one transaction (or the current one); effects registered by its scopes run after commit. */
  async transaction<R>(work: (store: IdentityStore) => Promise<R>): Promise<R> {
    if ("rollback" in this.#db) return work(this);
    const effects: AfterCommit[] = [];
    const result = await (this.#db as Db).transaction((tx) => work(new IdentityStore(tx as Tx, effects)));
    for (const effect of effects) await effect();
    return result;
  }
}
