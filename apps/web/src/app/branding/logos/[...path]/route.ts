import type { NextRequest } from "next/server";
import { forwardToApi } from "../../../../lib/api-proxy";

/**
 * Uploaded branding logos (`/branding/logos/<orgId>/<yyyymm>/<random>`), passed through from the
 * API so the portal, form and preview pages load them from their own origin (`img-src 'self'`).
 * Public: patients see them. The API's type, policy and caching headers come along unchanged.
 */

export const dynamic = "force-dynamic";

export const GET = (request: NextRequest) => forwardToApi(request, { file: true });
