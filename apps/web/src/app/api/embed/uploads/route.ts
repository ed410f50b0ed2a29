import type { NextRequest } from "next/server";
import { forwardToApi } from "../../../../lib/api-proxy";

/** Uploads from the embedded form, passed on to the API's `POST /api/embed/uploads`. */

export const dynamic = "force-dynamic";

export function POST(request: NextRequest) {
  return forwardToApi(request);
}
