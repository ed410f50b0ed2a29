import type { NextRequest } from "next/server";
import { forwardToApi } from "../../../../lib/api-proxy";

/**
 * The SMS portal's tRPC door: `/f/trpc/*` goes to the API's `/trpc/*`. Under /f/ so that the
 * portal's access cookie (Path=/f/) travels with these calls and with no other page's.
 */

export const dynamic = "force-dynamic";

export function POST(request: NextRequest) {
  return forwardToApi(request, { pathPrefix: "/f" });
}
