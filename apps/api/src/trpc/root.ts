import { authRouter } from "./routers/auth";
import { organizationRouter } from "./routers/organization";
import { templatesRouter } from "./routers/templates";
import { tokensRouter } from "./routers/tokens";
import { createCallerFactory, router } from "./trpc";

export const appRouter = router({
  auth: authRouter,
  organization: organizationRouter,
  templates: templatesRouter,
  tokens: tokensRouter,
});

export type AppRouter = typeof appRouter;
export const createCaller = createCallerFactory(appRouter);
