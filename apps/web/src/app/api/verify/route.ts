import type { NextRequest } from "next/server";
import { forwardToApi } from "../../../lib/api-proxy";

/** The /verify page's check, passed on (streamed, as sent) to the API's public `POST /verify`. */

export const dynamic = "force-dynamic";

export function POST(request: NextRequest) {
  return forwardToApi(request, { pathPrefix: "/api" });
}
