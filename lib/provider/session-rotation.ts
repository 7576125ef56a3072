/**
 * A browser session whose id is rotated is written under its new id before its old record is
 * deleted, and that delete never fails the request. oidc-provider rotates the id on every resume of an authorization (a sign-in, a
 * consent, a new app for a member already signed in: `resetIdentifier()` in
 * actions/authorization/resume.js) and its `Session#save` deletes the old record first, then
 * writes the new one. A storage fault between the two (a refused write, a Redis that stops
 * answering with the delete already sent) left neither: the browser's cookie named a
 * deleted record, and a member already signed in had to sign in again. Deleting second but
 * failing the request when the delete failed was no better: the 503 carried no new cookie
 * (a failed answer drops what was set, lib/storage/outage.ts), and a Redis that had stopped
 * answering ran the queued delete once back, so the browser's old id was gone all the same.
 *
 * So: the new record first; then the old one deleted, best effort, and the answer goes on
 * with the new id's cookie. A failed delete leaves the old record until its lifetime ends: a
 * record only this browser ever held, which its cookie no longer names. Safe against session
 * fixation as before: the old record holds what the session was before this resume (what a
 * planted id already had, nothing this sign-in added).
 *
 * `beforeWrite` (a policy's storage work that must be stored before the session is, such as
 * the note of a sign-in on the library's page, lib/policies/host-session.ts) runs before every
 * write of a session, rotated or new; when it fails, nothing of the session is written or
 * deleted, and the browser keeps the session its cookie names.
 *
 * The class is the provider instance's own (`provider.Session`, one per instance); its
 * `save` is replaced on its prototype.
 *
 * @module
 */
import Provider from 'oidc-provider';
import type { KoaContextWithOIDC } from 'oidc-provider';

import type { BeforeSessionWrite, SignedInSession } from '../policies/host-session.ts';

interface RotatingSession extends SignedInSession {
  /** the id before `resetIdentifier()`, deleted by the next save */
  oldId?: string;
  readonly adapter: { destroy(id: string): Promise<void> };
}

type Save = (this: RotatingSession, ttl: number) => Promise<unknown>;

/** Makes `provider`'s sessions write their new record before deleting the old one. */
export function writeRotatedSessionsFirst(provider: Provider, beforeWrite?: BeforeSessionWrite): void {
  const prototype = provider.Session.prototype as unknown as { save: Save };
  const save = prototype.save;
  prototype.save = async function saveBeforeForgetting(this: RotatingSession, ttl: number) {
    const before = beforeWrite?.(Provider.ctx as KoaContextWithOIDC | undefined, this);
    if (before) await before;
    const { oldId } = this;
    if (oldId === undefined) return save.call(this, ttl);
    // the provider's save without the old id: it only writes the record
    delete this.oldId;
    let saved: unknown;
    try {
      saved = await save.call(this, ttl);
    } catch (error) {
      // the next save of this request tries again (the write is idempotent)
      this.oldId = oldId;
      throw error;
    }
    await this.adapter.destroy(oldId).catch(() => undefined);
    return saved;
  };
}
