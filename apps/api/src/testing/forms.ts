import type { FormField } from "@clinsign/contracts";
import { createTemplate } from "../core/templates/templates";
import type { TestApi, TestOrg } from "./harness";

export const creds = (o: TestOrg) => ({ token: o.token, orgId: o.orgId });

export const query = (params: Record<string, string | number | undefined>) =>
  new URLSearchParams(
    Object.entries(params)
      .filter((e): e is [string, string | number] => e[1] !== undefined)
      .map(([k, v]): [string, string] => [k, String(v)]),
  ).toString();

/** An active template with the given fields (a single optional text field by default). */
export async function activeTemplate(
  org: TestOrg,
  fields: FormField[] = [{ id: "f1", type: "text", key: "name", label: "Name" }],
  title = "Anamnese",
) {
  return createTemplate(org.ctx, { title, status: "active", schema: { version: 1, fields } });
}

/** A sessionId through the REST door. */
export async function newSession(
  api: TestApi,
  org: TestOrg,
  templateIdentifier: string,
  config: Record<string, unknown> = {},
): Promise<string> {
  const res = await api.request("POST", "/api/embed/sessions", { body: { ...creds(org), templateIdentifier, config } });
  if (res.status !== 200) throw new Error(`session: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.sessionId as string;
}
