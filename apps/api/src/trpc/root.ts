import { authRouter } from "./routers/auth";
import { documentsRouter } from "./routers/documents";
import { organizationRouter } from "./routers/organization";
import { signaturesRouter } from "./routers/signatures";
import { signingRouter } from "./routers/signing";
import { templatesRouter } from "./routers/templates";
import { tokensRouter } from "./routers/tokens";
import { createCallerFactory, router } from "./trpc";

export const appRouter = router({
  auth: authRouter,
  documents: documentsRouter,
  organization: organizationRouter,
  signatures: signaturesRouter,
  signing: signingRouter,
  templates: templatesRouter,
  tokens: tokensRouter,
});

export type AppRouter = typeof appRouter;
export const createCaller = createCallerFactory(appRouter);
