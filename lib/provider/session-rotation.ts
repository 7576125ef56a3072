/**
 * A browser session whose id is rotated is written under its new id before its old record is
 * deleted. oidc-provider rotates the id on every resume of an authorization (a sign-in, a
 * consent, a new app for a member already signed in: `resetIdentifier()` in
 * actions/authorization/resume.js) and its `Session#save` deletes the old record first, then
 * writes the new one. A storage fault between the two (a refused write, a Redis that stops
 * answering with the delete already sent) left neither: the browser's cookie named a
 * deleted record, and a member already signed in had to sign in again.
 *
 * Written the other way round, a fault leaves the old record, which the browser's cookie
 * still names when the answer (a 503) set no new one, or the new record when it did. Safe
 * against session fixation as before: the old record holds what the session was before this
 * resume (what a planted id already had, nothing this sign-in added), and its deletion is
 * still part of the save, so a failed delete fails the request (503) and is tried again by
 * the next save of the request.
 *
 * The class is the provider instance's own (`provider.Session`, one per instance); its
 * `save` is replaced on its prototype.
 *
 * @module
 */
import type Provider from 'oidc-provider';

interface RotatingSession {
  /** the id before `resetIdentifier()`, deleted by the next save */
  oldId?: string;
  readonly adapter: { destroy(id: string): Promise<void> };
}

type Save = (this: RotatingSession, ttl: number) => Promise<unknown>;

/** Makes `provider`'s sessions write their new record before deleting the old one. */
export function writeRotatedSessionsFirst(provider: Provider): void {
  const prototype = provider.Session.prototype as unknown as { save: Save };
  const save = prototype.save;
  prototype.save = async function saveBeforeForgetting(this: RotatingSession, ttl: number) {
    const { oldId } = this;
    if (oldId === undefined) return save.call(this, ttl);
    // the provider's save without the old id: it only writes the record
    delete this.oldId;
    try {
      const saved = await save.call(this, ttl);
      await this.adapter.destroy(oldId);
      return saved;
    } catch (error) {
      // the next save of this request tries again (the write is idempotent)
      this.oldId = oldId;
      throw error;
    }
  };
}
