import type { NextRequest } from "next/server";
import { forwardToApi } from "../../../lib/api-proxy";

/** The web app's /trpc/* calls, passed on to the API (lib/api-proxy.ts). */

export const dynamic = "force-dynamic";

const forward = (request: NextRequest) => forwardToApi(request);

export {
  forward as GET,
  forward as POST,
  forward as PUT,
  forward as PATCH,
  forward as DELETE,
  forward as OPTIONS,
  forward as HEAD,
};
