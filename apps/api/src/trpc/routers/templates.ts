import type { TRPCRouterRecord } from "@trpc/server";
import {
  createTemplateInput,
  getTemplateInput,
  listTemplatesInput,
  templateByIdentifierInput,
  templateOverviewInput,
  updateTemplateInput,
} from "@clinsign/contracts";
import {
  createTemplate,
  deleteTemplate,
  getTemplate,
  listTemplates,
  templateOverview,
  updateTemplate,
} from "../../core/templates/templates";
import { orgProcedure, staffProcedure } from "../trpc";

export const templatesRouter = {
  create: orgProcedure.input(createTemplateInput).mutation(({ ctx, input }) => createTemplate(ctx.org, input)),
  get: orgProcedure.input(getTemplateInput).query(({ ctx, input }) => getTemplate(ctx.org, input)),
  list: orgProcedure.input(listTemplatesInput).query(({ ctx, input }) => listTemplates(ctx.org, input)),
  /** Staff console: the list with question and submission counts. */
  overview: staffProcedure.input(templateOverviewInput).query(({ ctx, input }) => templateOverview(ctx.org, input)),
  update: orgProcedure.input(updateTemplateInput).mutation(({ ctx, input }) => updateTemplate(ctx.org, input)),
  delete: orgProcedure.input(templateByIdentifierInput).mutation(async ({ ctx, input }) => {
    await deleteTemplate(ctx.org, input);
    return { ok: true as const };
  }),
} satisfies TRPCRouterRecord;
