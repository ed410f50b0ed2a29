import type { NextRequest } from "next/server";
import { forwardToApi } from "../../../../../lib/api-proxy";

/** Uploads from the SMS portal's form, with its access cookie: to the API's /api/embed/uploads. */

export const dynamic = "force-dynamic";

export function POST(request: NextRequest) {
  return forwardToApi(request, { pathPrefix: "/f" });
}
