import { authRouter, invitationsRouter } from "./routers/auth";
import { accountRouter, usersRouter } from "./routers/users";
import { accountSecurityRouter } from "./routers/account-security";
import {
  auditRouter,
  draftsRouter,
  formsRouter,
  messagesRouter,
  publicEmbedsRouter,
  sessionsRouter,
  submissionsRouter,
  uploadsRouter,
} from "./routers/forms";
import { formRequestsRouter } from "./routers/form-requests";
import { webhooksRouter } from "./routers/webhooks";
import { fhirPushRouter } from "./routers/fhir-push";
import { organizationRouter } from "./routers/organization";
import { smsFormRouter } from "./routers/sms-form";
import { documentsRouter } from "./routers/documents";
import { signaturesRouter } from "./routers/signatures";
import { signingRouter } from "./routers/signing";
import { templatesRouter } from "./routers/templates";
import { tokensRouter } from "./routers/tokens";
import { verifyRouter } from "./routers/verify";
import { fhirRouter } from "./routers/fhir";
import { retentionRouter } from "./routers/retention";
import { patientsRouter } from "./routers/patients";
import { createCallerFactory, router } from "./trpc";

export const appRouter = router({
  auth: authRouter,
  invitations: invitationsRouter,
  users: usersRouter,
  account: accountRouter,
  accountSecurity: accountSecurityRouter,
  documents: documentsRouter,
  organization: organizationRouter,
  signatures: signaturesRouter,
  signing: signingRouter,
  templates: templatesRouter,
  tokens: tokensRouter,
  sessions: sessionsRouter,
  publicEmbeds: publicEmbedsRouter,
  forms: formsRouter,
  drafts: draftsRouter,
  submissions: submissionsRouter,
  webhooks: webhooksRouter,
  fhirPush: fhirPushRouter,
  audit: auditRouter,
  messages: messagesRouter,
  uploads: uploadsRouter,
  formRequests: formRequestsRouter,
  smsForm: smsFormRouter,
  verify: verifyRouter,
  fhir: fhirRouter,
  retention: retentionRouter,
  patients: patientsRouter,
});

export type AppRouter = typeof appRouter;
export const createCaller = createCallerFactory(appRouter);
