/**
 * A refusal the admin area answers with a page of its own (status, title, message), so
 * nothing under /admin falls through to Koa's plain-text error.
 *
 * @module
 */
import type { HeaderView } from './layout.ts';

export class PageError extends Error {
  readonly status: number;
  readonly title: string;
  /** when someone is signed in: keeps the sign-out form on the page */
  readonly header?: HeaderView;

  constructor(status: number, title: string, message: string, header?: HeaderView) {
    super(message);
    this.name = 'PageError';
    this.status = status;
    this.title = title;
    if (header) this.header = header;
  }
}
