import { z } from "zod";
import {
  createTemplateInput,
  listTemplatesInput,
  template,
  templateIdentifier,
  templateListItem,
  updateTemplateInput,
} from "@clinsign/contracts";
import type { createCaller } from "../trpc/root";
import type { Area } from "./envelopes";

export type Caller = ReturnType<typeof createCaller>;
export type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/**
 * How a route authenticates:
 * - `bearer`: `Authorization: Bearer <token>` (area A);
 * - `orgToken`: `token` + `orgId` in the body, or the query for GET (area B).
 */
export type RouteAuth = "bearer" | "orgToken";

export interface Route<I extends z.ZodType = z.ZodType> {
  /** Interface document number (F2, A6 …), for the docs and the coverage test. */
  ref: string;
  method: Method;
  /** The documented path; `{name}` segments are path parameters. */
  path: string;
  area: Area;
  auth: RouteAuth;
  summary: string;
  /** Everything besides credentials, from path, query (GET) or body, validated before the call. */
  input: I;
  /** The success body, for the OpenAPI document. */
  output: z.ZodType;
  status: 200 | 201;
  call(caller: Caller, input: z.output<I>): Promise<unknown>;
}

const route = <I extends z.ZodType>(r: Route<I>) => r as unknown as Route;

const ok = z.literal(true);
const identifierParam = z.object({ identifier: templateIdentifier });

/** The REST door: documented paths, each wired to the tRPC procedure that does the work. */
export const routes: Route[] = [
  route({
    ref: "F2",
    method: "POST",
    path: "/api/embed/templates",
    area: "B",
    auth: "orgToken",
    summary: "Create a form template",
    input: createTemplateInput,
    output: z.object({ ok, template }),
    status: 201,
    call: async (caller, input) => ({ ok: true, template: await caller.templates.create(input) }),
  }),
  route({
    ref: "F3",
    method: "GET",
    path: "/api/embed/template",
    area: "B",
    auth: "orgToken",
    summary: "Load one active template",
    input: z.object({ templateIdentifier }),
    output: z.object({ ok, template: template.pick({ identifier: true, title: true, description: true, status: true, schema: true }) }),
    status: 200,
    call: async (caller, input) => {
      const found = await caller.templates.get({ identifier: input.templateIdentifier, activeOnly: true });
      const { identifier, title, description, status, schema } = found;
      return { ok: true, template: { identifier, title, description, status, schema } };
    },
  }),
  route({
    ref: "F4",
    method: "GET",
    path: "/api/embed/templates",
    area: "B",
    auth: "orgToken",
    summary: "List templates, newest change first",
    input: listTemplatesInput,
    output: z.object({ ok, templates: z.array(templateListItem) }),
    status: 200,
    call: async (caller, input) => ({ ok: true, templates: await caller.templates.list(input) }),
  }),
  route({
    ref: "F5",
    method: "PATCH",
    path: "/api/embed/templates/{identifier}",
    area: "B",
    auth: "orgToken",
    summary: "Change a template; only the fields sent change",
    input: updateTemplateInput,
    output: z.object({ ok, template }),
    status: 200,
    call: async (caller, input) => ({ ok: true, template: await caller.templates.update(input) }),
  }),
  route({
    ref: "F6",
    method: "DELETE",
    path: "/api/embed/templates/{identifier}",
    area: "B",
    auth: "orgToken",
    summary: "Delete a template (past submissions are kept)",
    input: identifierParam,
    output: z.object({ ok }),
    status: 200,
    call: (caller, input) => caller.templates.delete(input),
  }),
];
