import type { Role } from "./auth";

const everyone = ["owner", "admin", "staff", "viewer"] as const satisfies readonly Role[];
/** The daily work: creating and changing documents, requests, templates, forms. */
const workers = ["owner", "admin", "staff"] as const satisfies readonly Role[];
/** Who may sign in to the organization and as what (single sign-on). */
const owners = ["owner"] as const satisfies readonly Role[];
/** Running the organization: tokens, settings, users, branding, outbox secrets. */
const admins = ["owner", "admin"] as const satisfies readonly Role[];

/**
 * The one permission table: which staff role may call which tRPC procedure (its path, e.g.
 * `documents.create`). One middleware (apps/api/src/trpc/trpc.ts) enforces it for every request
 * made with a staff session, with 403 `forbidden`; the console hides what `can` refuses. A path
 * missing here is refused to every staff role, and the table walk test
 * (apps/api/src/trpc/permissions.test.ts) fails until the new procedure gets an entry.
 *
 * Viewers read (lists, details, downloads, the audit chain check) and change nothing but their own
 * sessions. API tokens and embed sessions are not staff: the table does not apply to them.
 */
export const staffPermissions = {
  "auth.me": everyone,

  "account.sessions": everyone,
  "account.endSession": everyone,
  "account.endOtherSessions": everyone,
  // Every staff session of the account, in every organization (this one's too).
  "account.endAllSessions": everyone,

  // Each member's own sign-in factors (authenticator app, passkeys, recovery codes).
  "accountSecurity.overview": everyone,
  "accountSecurity.totpStart": everyone,
  "accountSecurity.totpConfirm": everyone,
  "accountSecurity.totpRemove": everyone,
  "accountSecurity.passkeyOptions": everyone,
  "accountSecurity.passkeyRegister": everyone,
  "accountSecurity.passkeyRename": everyone,
  "accountSecurity.passkeyRemove": everyone,
  "accountSecurity.regenerateRecoveryCodes": everyone,
  // A passkey's challenge for the step-up those changes ask for.
  "accountSecurity.stepUpOptions": everyone,

  "users.list": admins,
  "users.invites": admins,
  "users.invite": admins,
  "users.revokeInvite": admins,
  "users.changeRole": admins,
  "users.deactivate": admins,
  "users.reactivate": admins,

  "organization.settings": everyone,
  "organization.update": admins,
  "organization.rotateWebhookSecret": admins,
  "organization.defaultBranding": everyone,
  // What every patient sees under the clinic's name (core/branding: assertMayChangeBranding).
  "organization.setDefaultBranding": admins,
  // Who may sign in, and as what: single sign-on (the client secret is never returned). Admins read;
  // only owners change it (with step-up), so no admin can make themselves owner through a provider.
  "organization.sso": admins,
  "organization.saveSso": owners,
  "organization.verifySsoDomain": owners,
  // The organization's own seal: its certificate signs every completed document.
  "organization.seal": admins,
  "organization.uploadSeal": admins,
  "organization.removeSeal": admins,

  // Data retention: how long records are kept, what the next sweep deletes; legal holds keep a
  // patient's records from every deletion (core/retention).
  "retention.settings": everyone,
  "retention.preview": everyone,
  "retention.updatePolicy": admins,
  "retention.legalHolds": workers,
  "retention.placeLegalHold": admins,
  "retention.releaseLegalHold": admins,
  // Patient erasure (GDPR Art. 17, core/patients): the dry run too, as it lists what is held about a patient.
  "patients.erase": admins,

  // The patient access export (GDPR Art. 15/20): everything held about one patient, as a ZIP.
  "patients.export": admins,
  "patients.exportLanguage": admins,

  "tokens.list": admins,
  "tokens.create": admins,
  "tokens.revoke": admins,

  "documents.create": workers,
  "documents.update": workers,
  "documents.delete": workers,
  "documents.setAvailability": workers,
  "documents.setRecordClass": workers,
  "documents.get": everyone,
  "documents.list": everyone,
  "documents.overview": everyone,
  "documents.detail": everyone,

  "signatures.create": workers,
  "signatures.listOpen": everyone,
  "signatures.listCompleted": everyone,
  "signatures.get": everyone,
  "signatures.sealAgain": workers,
  "signatures.updateAssignment": workers,
  "signatures.signedArtifact": everyone,
  "signatures.verifySession": workers,
  "signatures.createDesign": admins,
  "signatures.replaceDesign": admins,
  "signatures.list": everyone,
  "signatures.detail": everyone,
  // A signing link opens the patient's document: handing it out is work, not reading.
  "signatures.revealLink": workers,
  "signatures.startKiosk": workers,
  "signatures.update": workers,
  // Several signers: the named staff signer signs in the console (the service checks it is them).
  "signatures.revealSignerLink": workers,
  // Sending a link by SMS or e-mail is handing it over, as revealing it is.
  "signatures.sendLink": workers,
  "signatures.staffSigningView": workers,
  "signatures.staffSigningDocument": workers,
  "signatures.signAsStaff": workers,
  "signatures.declineAsStaff": workers,
  "signatures.awaitingMySignature": everyone,
  "signatures.signerCandidates": workers,
  "signatures.brandings": everyone,
  "signatures.institutions": everyone,
  "signatures.getDesign": everyone,

  "templates.create": workers,
  "templates.get": everyone,
  "templates.list": everyone,
  "templates.overview": everyone,
  "templates.update": workers,
  "templates.delete": workers,

  "sessions.create": workers,
  "sessions.list": everyone,
  "sessions.revoke": workers,
  "sessions.current": everyone,

  "publicEmbeds.get": everyone,
  "publicEmbeds.save": workers,

  "forms.template": everyone,
  "forms.event": workers,
  "forms.holdKey": everyone,

  "drafts.save": workers,
  "drafts.get": everyone,
  "drafts.delete": workers,

  "submissions.submit": workers,
  "submissions.list": everyone,
  "submissions.get": everyone,
  "fhir.questionnaire": everyone,
  "fhir.questionnaires": everyone,
  "fhir.importQuestionnaire": workers,
  "fhir.questionnaireResponse": everyone,
  "fhir.questionnaireResponses": everyone,
  "fhir.documentReference": everyone,
  "fhir.documentReferences": everyone,
  // Computes and answers; stores nothing.
  "fhir.extract": everyone,

  "webhooks.test": workers,
  "webhooks.log": everyone,
  "webhooks.resend": workers,
  "webhooks.attempts": everyone,
  "webhooks.delivery": everyone,
  "webhooks.overview": everyone,

  // FHIR push (issue 34): where the clinical record goes, and with which credential. Admins read
  // and change the server (the credential is never returned); everyone reads the delivery log.
  "fhirPush.target": admins,
  "fhirPush.saveTarget": admins,
  "fhirPush.deliveries": everyone,
  "fhirPush.resend": workers,

  // Checking the chain changes nothing; it is a mutation only because it may take a while.
  "audit.list": everyone,
  "audit.entries": everyone,
  "audit.verify": everyone,

  "messages.list": everyone,
  "messages.providers": everyone,
  "messages.reveal": admins,

  "uploads.create": workers,

  "formRequests.create": workers,
  "formRequests.list": everyone,
  "formRequests.messages": everyone,
  "formRequests.resend": workers,
  "formRequests.cancel": workers,
} as const satisfies Record<string, readonly Role[]>;

export type StaffProcedure = keyof typeof staffPermissions;

/** Whether a staff member with `role` may call `procedure`; unknown paths are refused. */
export function can(role: Role, procedure: StaffProcedure | (string & {})): boolean {
  if (!Object.hasOwn(staffPermissions, procedure)) return false;
  return (staffPermissions as Record<string, readonly Role[]>)[procedure]!.includes(role);
}
