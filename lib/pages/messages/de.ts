/**
 * Die deutschen Seitentexte (German): complete, as the type requires; a test checks that each
 * string has the placeholders of its English original and that every scope is described.
 *
 * @module
 */
import { isKnownScope } from '../../scopes/catalogue.ts';
import type { MessageCatalogue } from './types.ts';

/** Operator scope resources, as the German descriptions name them. */
const RESOURCES: Readonly<Record<string, string>> = {
  courses: 'Kurse',
  students: 'Lernende',
  members: 'Mitglieder',
  analytics: 'Auswertungen',
  curriculum: 'Lehrpläne',
  orders: 'Bestellungen',
  school: 'Schuleinstellungen',
  appearance: 'Erscheinungsbild',
  events: 'Veranstaltungen',
  membership_plans: 'Mitgliedschaftspläne',
  coupons: 'Gutscheine',
  posts: 'Beiträge',
  subscriptions: 'Abonnements',
  digital_products: 'digitale Produkte',
  comments: 'Kommentare',
  lecturers: 'Lehrende',
  storage: 'Speicher',
  forms: 'Formulare',
  pages: 'Seiten',
};

const capitalised = (label: string) => `${label[0]!.toUpperCase()}${label.slice(1)}`;
const OPERATOR_SCOPES = Object.fromEntries(Object.entries(RESOURCES).flatMap(([resource, label]) => [
  [`${resource}:read`, `${capitalised(label)} lesen`],
  [`${resource}:write`, `${capitalised(label)} ändern`],
]).filter(([name]) => isKnownScope(name!)));

export const de: MessageCatalogue = {
  'login.title': 'Anmelden',
  'login.heading': 'Anmelden',
  'login.toContinue': 'um mit {client} fortzufahren',
  'login.again': '{client} bittet Sie, sich erneut anzumelden, auch wenn Sie bereits angemeldet sind.',
  'login.email': 'E-Mail-Adresse',
  'login.password': 'Passwort',
  'login.submit': 'Anmelden',
  'login.cancel': 'Abbrechen',
  'login.incorrect': 'Die E-Mail-Adresse oder das Passwort ist falsch.',

  'consent.title': 'Zugriff erlauben?',
  'consent.headingSite': '{site}: {client} möchte auf Ihr Konto zugreifen',
  'consent.heading': '{client} möchte auf Ihr Konto zugreifen',
  'consent.signedInAs': 'Angemeldet als {email}.',
  'consent.returnTo': 'Nach Ihrer Entscheidung kehren Sie zu {host} zurück.',
  'consent.canDo': 'Die Anwendung darf dann:',
  'consent.chooseSite': 'Für welche Schule?',
  'consent.allow': 'Erlauben',
  'consent.deny': 'Ablehnen',
  'consent.loopback': 'Diese Anwendung läuft auf Ihrem eigenen Gerät (sie kehrt zu einer Loopback-Adresse zurück). Fahren Sie nur fort, wenn Sie diese Anmeldung selbst begonnen haben.',

  'trust.member': 'Erstellt von {site}',
  'trust.memberDetail': 'Diese Anwendung hat {site} für seine Mitglieder eingerichtet.',
  'trust.vendor': 'Geprüfte Integration',
  'trust.vendorDetail': 'Diese Integration stammt von einem Partner, mit dem dieser Dienst zusammenarbeitet.',
  'trust.service': 'Von diesem Dienst eingerichtet',
  'trust.serviceDetail': 'Diese Anwendung haben die Betreiber dieses Dienstes eingerichtet.',
  'trust.reviewed': 'Geprüft',
  'trust.reviewedDetail': 'Diese Anwendung beschreibt sich selbst unter {host}; eine Schule hat sie geprüft.',
  'trust.unverified': 'Nicht überprüft',
  'trust.registeredDetail': 'Diese Anwendung hat sich selbst registriert: Ihr Name ist eine eigene Angabe, die niemand geprüft hat. Sie kehrt zu {host} zurück.',
  'trust.documentDetail': 'Diese Anwendung beschreibt sich selbst unter {host}; ihr Name ist eine eigene Angabe, die niemand geprüft hat.',

  'refusal.title': 'Sie können diese Anwendung nicht verwenden',
  'refusal.member': 'Diese Anwendung gehört zu einer Schule, deren Mitglied Sie nicht sind.',
  'refusal.operator': 'Diese Anwendung ist für Schulverwaltungen gedacht, und Sie verwalten keine Schule.',
  'refusal.back': 'Zurück zur Anwendung',

  'notice.expired.title': 'Diese Seite ist abgelaufen',
  'notice.expired.message': 'Kehren Sie zur Anwendung zurück und beginnen Sie die Anmeldung erneut.',
  'notice.unknownClient.title': 'Unbekannte Anwendung',
  'notice.unknownClient.message': 'Die Anwendung, die Sie hierher geschickt hat, ist nicht mehr registriert.',
  'notice.clientUnavailable.title': 'Diese Anwendung kann gerade nicht geprüft werden',
  'notice.clientUnavailable.message': 'Ihre Beschreibung konnte nicht von ihrer Adresse geladen werden. Versuchen Sie es gleich noch einmal, oder kehren Sie zur Anwendung zurück.',
  'notice.formExpired.title': 'Dieses Formular ist abgelaufen',
  'notice.formExpired.message': 'Laden Sie die Seite neu und versuchen Sie es noch einmal.',
  'notice.alreadySignedIn.title': 'Bereits angemeldet',
  'notice.alreadySignedIn.message': 'Kehren Sie zur Anwendung zurück und beginnen Sie von vorn.',
  'notice.nothingToConfirm.title': 'Nichts zu bestätigen',
  'notice.nothingToConfirm.message': 'Kehren Sie zur Anwendung zurück und beginnen Sie von vorn.',
  'notice.cancelled.title': 'Anmeldung abgebrochen',
  'notice.cancelled.message': 'Mit der Anwendung wurde nichts geteilt. Sie können diese Seite schließen.',
  'notice.throttled.title': 'Zu viele Anmeldeversuche',
  'notice.throttled.message': 'Nach mehreren erfolglosen Versuchen ist die Anmeldung eine Weile gesperrt. Warten Sie {wait} und versuchen Sie es dann noch einmal.',
  'notice.throttled.minute': 'bis zu einer Minute',
  'notice.throttled.minutes': 'etwa {minutes} Minuten',
  'notice.authorizationRate.title': 'Zu viele Anmeldeanfragen',
  'notice.authorizationRate.message': 'Aus Ihrem Netzwerk kamen in kurzer Zeit zu viele Anmeldeanfragen. Warten Sie {wait}, kehren Sie dann zur Anwendung zurück und versuchen Sie es noch einmal.',
  'notice.supportCode': 'Für den Support: {code}',

  'error.title': 'Dieser Anmeldelink funktioniert nicht',
  'error.client.message': 'Der Link nennt eine Anwendung, die dieser Dienst nicht kennt oder die entfernt wurde.',
  'error.redirect.message': 'Die Anwendung wollte Sie an eine Adresse zurückschicken, die sie nicht registriert hat. Zum Schutz Ihres Kontos wurden Sie hier angehalten.',
  'error.request.message': 'Der Link, der Sie hierher geführt hat, ist unvollständig oder beschädigt.',
  'error.expired.message': 'Diese Anmeldung hat zu lange gedauert oder wurde bereits abgeschlossen.',
  'error.scope.message': 'Die Anwendung hat Zugriff verlangt, der ihr nicht zusteht, oder nicht gesagt, welchen Zugriff sie braucht.',
  'error.server.title': 'Etwas ist schiefgelaufen',
  'error.server.message': 'Die Anmeldung konnte wegen eines Problems auf unserer Seite nicht abgeschlossen werden.',
  'error.whatToDo': 'Kehren Sie zur Anwendung zurück und beginnen Sie die Anmeldung erneut. Passiert es wieder, wenden Sie sich an den Support der Anwendung und nennen Sie den Code unten.',
  'error.whatToDoServer': 'Versuchen Sie es in ein paar Minuten noch einmal. Passiert es weiterhin, wenden Sie sich an den Support und nennen Sie den Code unten.',

  scopes: {
    'openid': 'Sie anmelden (OpenID Connect)',
    'profile': 'Ihre grundlegenden Profilangaben (Name) sehen',
    'email': 'Ihre E-Mail-Adresse sehen',
    ...OPERATOR_SCOPES,
    'account:read': 'Ihr eigenes Konto an dieser Schule lesen: Einschreibungen, Fortschritt, Bestellungen und Veranstaltungsanmeldungen',
    'account:write': 'Änderungen an Ihrem eigenen Konto an dieser Schule vornehmen',
  },
};
