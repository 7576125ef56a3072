/**
 * The English page strings: every word the sign-in, consent and notice pages show. `{name}`
 * marks a value the page fills in (escaped, or markup the library built). Scope descriptions
 * are the scope catalogue's own (lib/scopes/catalogue.ts), the one table they are written in.
 *
 * @module
 */
import { SCOPES } from '../../scopes/catalogue.ts';

export const en = {
  'login.title': 'Sign in',
  'login.heading': 'Sign in',
  'login.toContinue': 'to continue to {client}',
  'login.again': '{client} asked you to sign in again, even if you are signed in already.',
  'login.email': 'Email',
  'login.password': 'Password',
  'login.submit': 'Sign in',
  'login.cancel': 'Cancel',
  'login.incorrect': 'The email or password is incorrect.',

  'consent.title': 'Allow access?',
  'consent.headingSite': '{site}: {client} wants to access your account',
  'consent.heading': '{client} wants to access your account',
  'consent.signedInAs': 'Signed in as {email}.',
  'consent.returnTo': 'After you decide you will return to {host}.',
  'consent.canDo': 'It will be able to:',
  'consent.chooseSite': 'Act for which school?',
  'consent.allow': 'Allow',
  'consent.deny': 'Deny',
  'consent.loopback': 'This application runs on your own device (it returns to a loopback address). Only continue if you started this sign-in yourself.',

  'trust.member': 'Created by {site}',
  'trust.memberDetail': 'This application was set up by {site} for its members.',
  'trust.vendor': 'Approved integration',
  'trust.vendorDetail': 'This integration is offered by a partner this service works with.',
  'trust.service': 'Set up by this service',
  'trust.serviceDetail': 'This application was set up by the operators of this service.',
  'trust.reviewed': 'Reviewed',
  'trust.reviewedDetail': 'This application describes itself at {host}; a school operator has reviewed it.',
  'trust.unverified': 'Unverified',
  'trust.registeredDetail': 'This application registered itself: its name is its own claim, and nobody has checked it. It returns to {host}.',
  'trust.documentDetail': 'This application describes itself at {host}; its name is its own claim, and nobody has checked it.',

  'refusal.title': 'You cannot use this application',
  'refusal.member': 'This application belongs to a school you are not a member of.',
  'refusal.operator': 'This application is for school administrators, and you do not administer any school.',
  'refusal.back': 'Return to the application',

  'notice.expired.title': 'This page has expired',
  'notice.expired.message': 'Go back to the application and start signing in again.',
  'notice.unknownClient.title': 'Unknown application',
  'notice.unknownClient.message': 'The application that sent you here is no longer registered.',
  'notice.clientUnavailable.title': "This application can't be checked right now",
  'notice.clientUnavailable.message': 'Its description could not be loaded from where it is published. Try again in a moment, or go back to the application.',
  'notice.formExpired.title': 'This form has expired',
  'notice.formExpired.message': 'Reload the page and try again.',
  'notice.alreadySignedIn.title': 'Already signed in',
  'notice.alreadySignedIn.message': 'Go back to the application and start again.',
  'notice.nothingToConfirm.title': 'Nothing to confirm',
  'notice.nothingToConfirm.message': 'Go back to the application and start again.',
  'notice.cancelled.title': 'Sign-in cancelled',
  'notice.cancelled.message': 'Nothing was shared with the application. You can close this page.',
  'notice.throttled.title': 'Too many sign-in attempts',
  'notice.throttled.message': 'Signing in is paused for a while after several unsuccessful attempts. Wait {wait}, then go back and try again.',
  'notice.throttled.minute': 'up to a minute',
  'notice.throttled.minutes': 'about {minutes} minutes',
  'notice.authorizationRate.title': 'Too many sign-in requests',
  'notice.authorizationRate.message': 'Too many sign-in requests came from your network in a short time. Wait {wait}, then go back to the application and try again.',
  'notice.supportCode': 'For support: {code}',

  'error.title': 'This sign-in link does not work',
  'error.client.message': 'The link names an application this service does not know, or one that was removed.',
  'error.redirect.message': 'The application asked to send you back to an address it has not registered, so you were stopped here to keep your account safe.',
  'error.request.message': 'The link that brought you here is incomplete or damaged.',
  'error.expired.message': 'This sign-in took too long or was already finished.',
  'error.scope.message': 'The application asked for access it may not have, or did not say which access it needs.',
  'error.server.title': 'Something went wrong',
  'error.server.message': 'The sign-in could not be completed because of a problem on our side.',
  'error.whatToDo': 'Go back to the application and start signing in again. If it happens again, contact the application’s support and give them the code below.',
  'error.whatToDoServer': 'Try again in a few minutes. If it keeps happening, contact support and give them the code below.',

  'scopes': Object.freeze(Object.fromEntries(SCOPES.map((s) => [s.name, s.description]))) as Readonly<Record<string, string>>,
} as const;
