import type { NextRequest } from "next/server";
import { forwardToApi } from "../../../lib/api-proxy";

/**
 * Staff file routes (the submissions export, a submission's PDF, the audit log CSV, a document's
 * PDF, and the uploads of documents and logos), passed on to the API's /staff/* routes with the
 * session cookie. Files: the answer keeps its Content-Disposition and has no overall deadline
 * (lib/api-proxy.ts); uploads stream through.
 */

export const dynamic = "force-dynamic";

const forward = (request: NextRequest) => forwardToApi(request, { file: true });

export { forward as GET, forward as POST };
