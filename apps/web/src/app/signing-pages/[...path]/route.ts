import type { NextRequest } from "next/server";
import { forwardToApi } from "../../../lib/api-proxy";

/**
 * The signing page's page images (`/signing-pages/<grant>/<version sha256>/<page>-<width>.webp`),
 * passed through from the API so the page loads them from its own origin (`img-src 'self'`). The
 * grant in the path is the credential (core/credentials/signing.ts in the API); the API's type and
 * year-long private caching headers come along unchanged.
 */

export const dynamic = "force-dynamic";

export const GET = (request: NextRequest) => forwardToApi(request, { file: true });
